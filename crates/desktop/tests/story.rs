//! The evening's story and the statistics through the app's real `update` and `view` (the
//! `iced_test` simulator): a two-hand practice session played to its end shows the story
//! over its last settlement (the chart, each player's tally, the settle-up in sentences); the
//! statistics screen, opened from home, counts the hands as practice; the history opens the
//! newest table's story — in 中文 and in English.

mod common;

use common::Harness;
use iced_test::Error;
use shanghai_mahjong::app::{Message, Screen};
use shanghai_mahjong::i18n::{Lang, T, Text};
use shanghai_mahjong::records;
use shanghai_mahjong::screens::{history, home, options, stats, story};
use shanghai_mahjong::tiles::Faces;

fn session_in(lang: Lang) -> Result<(), Error> {
    let mut h = Harness::seeded(&format!("story-{lang}"), lang, Faces::Chinese, 5);
    h.apply(vec![Message::Home(home::Message::Options(
        options::Message::Hands(2),
    ))]);
    h.click(lang.t(T::StartPractice))?;
    h.sit_down_kept();
    h.play_to_end(2_000);
    assert!(h.app.table_state().is_some_and(|t| t.end.is_some()));
    assert!(
        !h.find(lang.t(T::StoryTitle)),
        "no story before the session's end"
    );
    h.click(lang.t(T::NextHand))?;
    h.play_to_end(2_000);
    let t = h.app.table_state().expect("at the table");
    assert!(t.over, "two hands make the session");
    assert_eq!(t.results.len(), 2);
    let told = mahjong_store::story(&t.results);
    let names = [0u8, 1, 2, 3].map(|s| t.names("Mei").of(lang, s));
    // (The chart is a canvas: its drawing is looked at in the real window, docs/stats.md.)
    for needle in [lang.t(T::StoryTitle), lang.t(T::SettleUpTitle)] {
        assert!(h.find(needle), "{needle} at the session's end");
    }
    let name = |s: u8| names[usize::from(s)].clone();
    for line in story::settle_up_lines(lang, &name, &told) {
        assert!(h.find(&line), "{line}");
    }
    let tally = lang.f(
        T::StoryTally,
        &[
            &names[0],
            &told.seats[0].wins,
            &told.seats[0].self_draws,
            &told.seats[0].deal_ins,
        ],
    );
    assert!(h.find(&tally), "{tally}");
    // Home, then the statistics: the two hands are practice.
    h.click(lang.t(T::Stop))?;
    assert!(
        matches!(h.app.screen, Screen::Home(_)),
        "home after the session"
    );
    h.click(lang.t(T::StatsButton))?;
    assert!(h.find(lang.t(T::StatsLoading)));
    h.apply(vec![Message::Stats(stats::Message::Loaded(
        records::stats(h.dir()),
    ))]);
    let practice = lang.f(T::StatsPractice, &[&1]);
    assert!(h.find(&practice), "{practice}");
    assert!(
        !h.find(&lang.f(T::StatsFriends, &[&1])),
        "no friends' table"
    );
    assert!(h.find(&format!("Mei · {}", lang.t(T::Me))));
    for col in [
        T::ColWinRate,
        T::ColSelfDraw,
        T::ColDealIn,
        T::ColAvgWin,
        T::ColRating,
    ] {
        assert!(h.find(lang.t(col)), "{col:?}");
    }
    let s = records::stats(h.dir()).expect("stats");
    let me = s.practice.expect("practice");
    assert_eq!((me.hands, me.sessions), (2, 1));
    assert_eq!(me.balance, told.seats[0].balance);
    h.click(lang.t(T::Back))?;
    // The history opens the newest table's story.
    h.click(lang.t(T::History))?;
    let loaded = history::load(h.dir().to_path_buf());
    h.apply(vec![Message::History(loaded)]);
    assert!(h.find(lang.t(T::StoryTitle)), "the story in the history");
    h.click(lang.t(T::StoryHide))?;
    assert!(!h.find(lang.t(T::StoryTitle)), "closed");
    assert!(h.find(lang.t(T::StoryShow)));
    Ok(())
}

#[test]
fn a_session_end_tells_the_evening_and_the_statistics_count_it_as_practice() -> Result<(), Error> {
    session_in(Lang::Zh)?;
    session_in(Lang::En)
}
