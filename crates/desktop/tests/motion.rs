//! The table's short motions never hold input up: while a discard slides into its pond the
//! player's clicks act at once, the picture at the end is the still one, and with "reduce
//! motion" (remembered in the settings) nothing moves — through the app's real `update` and
//! `view` in the `iced_test` simulator.

mod common;

use shanghai_mahjong::i18n::Text;
use std::time::Duration;

use common::Harness;
use mahjong_rules::Action;
use shanghai_mahjong::app::Message;
use shanghai_mahjong::i18n::{Lang, T};
use shanghai_mahjong::motion::{DURATION_MS, Frame, Kind};
use shanghai_mahjong::screens::table::Message as TableMsg;
use shanghai_mahjong::screens::table_view::hand_tile_id;
use shanghai_mahjong::settings::Settings;
use shanghai_mahjong::tiles::Faces;

/// Plays the hint until the player is to discard.
fn to_my_discard(h: &mut Harness) {
    for _ in 0..60 {
        let t = h.app.table_state().expect("at the table");
        if t.legal()
            .iter()
            .any(|a| matches!(a, Action::Discard { .. }))
        {
            return;
        }
        let a = t
            .hint
            .as_ref()
            .map(|(a, _)| a.clone())
            .filter(|a| t.legal().contains(a));
        match a {
            Some(a) => h.apply(vec![Message::Table(TableMsg::Act(a))]),
            None => h.pump(),
        }
    }
    panic!("no discard prompt");
}

#[test]
fn a_click_during_a_motion_acts_at_once_and_the_end_is_the_still_picture()
-> Result<(), iced_test::Error> {
    let mut h = Harness::new("motion-click", Lang::En, Faces::Chinese);
    let _ = h
        .app
        .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
    h.click(Lang::En.t(T::StartPractice))?;
    h.sit_down();
    to_my_discard(&mut h);
    // The others' moves since the player's last one left a motion running (the simulator
    // sends no frames); at the dealer's first turn nothing has moved yet: play one more turn.
    if h.app.table_state().is_some_and(|t| t.motion.is_none()) {
        let a = h
            .app
            .table_state()
            .and_then(|t| t.hint.clone())
            .map(|(a, _)| a)
            .expect("a hint");
        h.apply(vec![Message::Table(TableMsg::Act(a))]);
        to_my_discard(&mut h);
    }
    let t = h.app.table_state().expect("table");
    let started = t.motion.expect("the others' moves started a motion");
    assert!(matches!(started.kind, Kind::Discard(_) | Kind::Claim(_)));
    assert_ne!(t.frame(), Frame::default(), "the frame moves");
    let hand = t.shown_hand();
    let before = t.view.as_ref().map_or(0, |v| v.seats[0].discards.len());
    let i = (0..hand.len())
        .find(|&i| t.can_discard(hand[i], false))
        .expect("a discard");
    // The view draws mid-motion, and both clicks act while it runs.
    h.click_id(&hand_tile_id(i))?;
    h.click_id(&hand_tile_id(i))?;
    let t = h.app.table_state().expect("table");
    let v = t.view.as_ref().expect("view");
    assert_eq!(
        v.seats[0].discards.len(),
        before + 1,
        "the discard was played"
    );
    assert_eq!(
        v.seats[0].discards.last().map(|d| d.card.tile),
        Some(hand[i].tile)
    );
    // The player's own discard slides now; a frame past its end stops it: the still picture.
    let m = t.motion.expect("the player's discard moves too");
    let end = m.started + Duration::from_millis(DURATION_MS + 1);
    h.apply(vec![Message::Table(TableMsg::Frame(end))]);
    let t = h.app.table_state().expect("table");
    assert!(t.motion.is_none(), "over: no frames are asked for");
    assert_eq!(t.frame(), Frame::default());
    Ok(())
}

#[test]
fn with_reduced_motion_nothing_moves_and_the_choice_is_remembered() -> Result<(), iced_test::Error>
{
    let mut h = Harness::new("motion-reduce", Lang::Zh, Faces::Chinese);
    let _ = h
        .app
        .update(Message::Resized(iced::Size::new(1280.0, 800.0)));
    h.click(Lang::Zh.t(T::MotionOn))?;
    assert!(h.app.settings.reduce_motion);
    assert!(h.find(Lang::Zh.t(T::MotionOff)));
    let saved = Settings::load(h.dir()).expect("settings");
    assert!(saved.reduce_motion, "remembered");
    h.click(Lang::Zh.t(T::StartPractice))?;
    h.sit_down();
    to_my_discard(&mut h);
    let t = h.app.table_state().expect("table");
    assert!(t.reduce_motion);
    assert!(t.motion.is_none(), "the bots' discards did not move");
    let hand = t.shown_hand();
    let i = (0..hand.len())
        .find(|&i| t.can_discard(hand[i], false))
        .expect("a discard");
    h.click_id(&hand_tile_id(i))?;
    h.click_id(&hand_tile_id(i))?;
    assert!(h.app.table_state().expect("table").motion.is_none());
    // Turned on again mid-hand: the next discard moves.
    h.click(Lang::Zh.t(T::MotionOff))?;
    assert!(!h.app.settings.reduce_motion);
    to_my_discard(&mut h);
    let t = h.app.table_state().expect("table");
    let hand = t.shown_hand();
    let i = (0..hand.len())
        .find(|&i| t.can_discard(hand[i], false))
        .expect("a discard");
    h.click_id(&hand_tile_id(i))?;
    h.click_id(&hand_tile_id(i))?;
    let t = h.app.table_state().expect("table");
    assert!(t.motion.is_some(), "motion is back");
    Ok(())
}

/// A 200×80 picture: a tile of `tile` 48 px wide whose place is 120 px in, slid 90 px to the
/// left of it (all of it beside its place, over the table).
fn sliding(tile: &str) -> iced_test::Simulator<'static, ()> {
    use iced::widget::{Space, row};
    let t: mahjong_rules::Tile = tile.parse().expect("tile");
    let view: iced::Element<'static, ()> = row![
        Space::new().width(120),
        shanghai_mahjong::tiles::TileView::face(t, Faces::Chinese, false)
            .moved((-90, 0))
            .view(48.0),
    ]
    .into();
    iced_test::Simulator::with_size(
        shanghai_mahjong::iced_settings(),
        iced::Size::new(200.0, 80.0),
        view,
    )
}

/// The same picture with the tile of `tile` still, 30 px in: where the sliding one is on its
/// way.
fn still(tile: &str) -> iced_test::Simulator<'static, ()> {
    use iced::widget::{Space, row};
    let t: mahjong_rules::Tile = tile.parse().expect("tile");
    let view: iced::Element<'static, ()> = row![
        Space::new().width(30),
        shanghai_mahjong::tiles::TileView::face(t, Faces::Chinese, false).view(48.0),
    ]
    .into();
    iced_test::Simulator::with_size(
        shanghai_mahjong::iced_settings(),
        iced::Size::new(200.0, 80.0),
        view,
    )
}

/// A sliding tile is drawn whole on its way, face and characters included, and nothing of it
/// stays at its place or spills beside it: the picture of a 七萬 slid 90 px is the picture of a
/// 七萬 standing there, pixel for pixel (a sliding tile used to be drawn blank, its face
/// hidden because a canvas's text escapes its clip; a meld was seen with three blank faces).
#[test]
fn a_sliding_tile_is_drawn_whole_where_it_is_on_its_way() -> Result<(), iced_test::Error> {
    let path = std::env::temp_dir().join(format!("shanghai-motion-{}-sliding", std::process::id()));
    // The first picture is written (`…-tiny-skia.png`), the others compared with it.
    let _ = sliding("7m")
        .snapshot(&iced::Theme::Dark)?
        .matches_image(&path)?;
    let written = path.with_file_name(format!(
        "{}-tiny-skia.png",
        path.file_name().expect("name").to_string_lossy()
    ));
    assert!(written.is_file(), "the first picture is written");
    let same = still("7m")
        .snapshot(&iced::Theme::Dark)?
        .matches_image(&path)?;
    let other = still("5p")
        .snapshot(&iced::Theme::Dark)?
        .matches_image(&path)?;
    let _ = std::fs::remove_file(written);
    assert!(same, "a sliding 七萬 is a 七萬 where it is on its way");
    assert!(!other, "and its face is drawn: it is not a 五筒");
    Ok(())
}
