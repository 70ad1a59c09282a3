//! Table talk through the app's real `update` and `view` in the `iced_test` simulator, in 中文
//! and English: the app sits at a LAN table (its link to the LAN thread is a pair whose far
//! ends this test holds, the table resumed from a signed roster), a quick phrase clicked goes
//! out as `Request::Say`, a line typed goes out with Send or Enter, the lines said at the table
//! (`NetEvent::Chat`) and who watches (`NetEvent::Watchers`) are shown, a line not sent says
//! why in the player's language, and a sender muted by a click on their name disappears, stays
//! muted in a restarted app on the same data dir (`muted.json`), and comes back when unmuted.
//! A practice table has nobody to talk to: no panel.

use std::path::PathBuf;

use ed25519_dalek::{SigningKey, VerifyingKey};
use iced::keyboard::{Key, key::Named};
use iced_test::{Error, Simulator, selector};
use mahjong_net::{Advert, NetEvent, Roster, SeatInfo, TableState};
use mahjong_rules::{Money, Ruleset};
use shanghai_mahjong::app::{App, Flags, Message, Screen};
use shanghai_mahjong::i18n::{Lang, T, Text};
use shanghai_mahjong::lan::{Feed, Link, Request};
use shanghai_mahjong::screens::talk::{self, FIELD};
use shanghai_mahjong::settings::Settings;
use tokio::sync::mpsc::UnboundedReceiver;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shanghai-talk-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// Mei (this app), Bo, Cy and Di at one table hosted by Mei.
fn roster() -> Roster {
    let seat = |k: &SigningKey, name: &str| SeatInfo {
        key: k.verifying_key(),
        name: name.into(),
        peer: k.verifying_key(),
        bot: false,
    };
    let advert = Advert {
        table: [9; 32],
        host: key(1).verifying_key(),
        nonce: [3; 32],
        name: "Mei's table".into(),
        preset: Ruleset::Qiaoma,
        options_hash: [0; 32],
        stake: Money::coins(1),
        hands: 1,
        bots: 0,
        seats: [
            Some(seat(&key(1), "Mei")),
            Some(seat(&key(2), "Bo")),
            Some(seat(&key(3), "Cy")),
            Some(seat(&key(4), "Di")),
        ],
        state: TableState::Started,
        revision: 1,
        chosen: true,
    };
    Roster::sign(advert, 0, &key(1))
}

struct Harness {
    app: App,
    requests: UnboundedReceiver<Request>,
    dir: PathBuf,
}

impl Harness {
    /// Mei's app in `lang` on `dir`, at the LAN table of [`roster`].
    fn at_table(dir: PathBuf, lang: Lang) -> Harness {
        Settings {
            name: "Mei".into(),
            lang,
            ..Settings::default()
        }
        .save(&dir)
        .expect("settings");
        let (mut app, _) = App::new(Flags {
            data_dir: dir.clone(),
            lang: None,
            practice: None,
            seed: Some(1),
            think_ms: (0, 0),
        });
        app.size = iced::Size::new(1280.0, 800.0);
        let (link, requests, _commands) = Link::pair(key(1).verifying_key());
        let _ = app.update(Message::Lan(Feed::Ready(link)));
        let _ = app.update(Message::Lan(Feed::Net(NetEvent::Resumed {
            roster: Box::new(roster()),
            hands: 0,
        })));
        assert!(matches!(app.screen, Screen::Table(ref t) if t.is_lan()));
        Harness { app, requests, dir }
    }

    fn ui(&self) -> Simulator<'_, Message> {
        Simulator::with_size(
            shanghai_mahjong::iced_settings(),
            self.app.size,
            self.app.view(),
        )
    }

    fn run(&mut self, f: impl FnOnce(&mut Simulator<'_, Message>) -> Result<(), Error>) {
        let msgs: Vec<Message> = {
            let mut ui = self.ui();
            f(&mut ui).expect("found on screen");
            ui.into_messages().collect()
        };
        for m in msgs {
            let _ = self.app.update(m);
        }
    }

    fn click(&mut self, text: &str) {
        let text = text.to_string();
        self.run(move |ui| ui.click(text.as_str()).map(|_| ()));
    }

    fn find(&self, text: &str) -> bool {
        self.ui().find(text).is_ok()
    }

    fn said(&mut self, name: &str, from: VerifyingKey, text: &str, watcher: bool) {
        let _ = self.app.update(Message::Lan(Feed::Net(NetEvent::Chat {
            name: name.into(),
            from,
            text: text.into(),
            watcher,
        })));
    }

    /// The lines asked of the LAN thread since the last call.
    fn says(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(r) = self.requests.try_recv() {
            if let Request::Say(line) = r {
                out.push(line);
            }
        }
        out
    }
}

fn talk_at_a_lan_table(lang: Lang) {
    let dir = temp_dir(&format!("{lang:?}"));
    let mut h = Harness::at_table(dir.clone(), lang);
    let bo = key(2).verifying_key();
    let me = key(1).verifying_key();
    assert!(h.find(lang.t(T::TalkTitle)), "the panel at a LAN table");
    assert!(h.find(lang.t(T::TalkNobody)));

    // A quick phrase clicked is said at once; an emote goes out as its emoji.
    h.click(lang.t(T::TalkHurry));
    h.click(lang.t(T::TalkThumbsUp));
    assert_eq!(h.says(), [lang.t(T::TalkHurry), talk::THUMBS_UP]);

    // The player's own line comes back once sent: shown, the emote as a word.
    h.said("Mei", me, lang.t(T::TalkHurry), false);
    h.said("Mei", me, talk::THUMBS_UP, false);
    assert!(!h.find(lang.t(T::TalkNobody)));
    assert!(h.find("Mei"));
    assert!(!h.find(talk::THUMBS_UP), "no emoji drawn: the font has none");
    // The player's own name is no mute button.
    let msgs: Vec<Message> = {
        let mut ui = h.ui();
        let _ = ui.click("Mei");
        ui.into_messages().collect()
    };
    assert!(
        !msgs.iter().any(|m| matches!(m, Message::Talk(_))),
        "{msgs:?}"
    );

    // A line typed: Send, then Enter in the field.
    h.run(|ui| {
        ui.click(selector::id(FIELD))?;
        ui.typewrite("gg all");
        Ok(())
    });
    h.click(lang.t(T::TalkSend));
    h.run(|ui| {
        ui.click(selector::id(FIELD))?;
        ui.typewrite("one more line");
        ui.tap_key(Key::Named(Named::Enter));
        Ok(())
    });
    assert_eq!(h.says(), ["gg all", "one more line"]);

    // Friends' lines and a watcher's, and who watches.
    let bo_line = "这把要赢了 / this one is mine";
    h.said("Bo", bo, bo_line, false);
    h.said("Dan", key(5).verifying_key(), "加油", true);
    let _ = h.app.update(Message::Lan(Feed::Net(NetEvent::Watchers {
        names: vec!["Dan".into(), "Eve".into()],
        chat: true,
    })));
    assert!(h.find(bo_line));
    assert!(h.find(&format!("Dan{}", lang.t(T::TalkWatcherTag))));
    let watching = match lang {
        Lang::Zh => "观战：Dan、Eve",
        Lang::En => "Watching: Dan and Eve",
    };
    assert!(h.find(watching), "{watching}");

    // A line not sent says why, in the player's language.
    let _ = h.app.update(Message::Lan(Feed::Unsaid(
        "at most 5 lines in 10 seconds".into(),
    )));
    let why = match lang {
        Lang::Zh => "没有发出去：10 秒内最多说 5 句",
        Lang::En => "Not sent: at most 5 lines in 10 seconds",
    };
    assert!(h.find(why), "{why}");
    // The next line sent clears it.
    h.said("Mei", me, "ok", false);
    assert!(!h.find(why));

    // Bo muted by a click on his name: his lines go, and stay gone.
    h.click("Bo");
    assert!(!h.find(bo_line), "a muted sender's lines disappear");
    h.said("Bo", bo, "still talking", false);
    assert!(!h.find("still talking"));
    let chip = lang.f(T::TalkMutedChip, &[&"Bo"]);
    assert!(h.find(&chip), "{chip}");
    assert!(
        mahjong_store::Muted::load(&h.dir).is_muted(&bo),
        "remembered in muted.json"
    );

    // A restarted app on the same data dir still mutes Bo, whatever name he takes.
    drop(h);
    let mut h = Harness::at_table(dir.clone(), lang);
    h.said("Bobby", bo, "new name, same key", false);
    assert!(!h.find("new name, same key"));
    // Unmuted from his chip: his lines show again.
    let chip = lang.f(T::TalkMutedChip, &[&"Bobby"]);
    h.click(&chip);
    h.said("Bobby", bo, "back again", false);
    assert!(h.find("back again"));
    assert!(!mahjong_store::Muted::load(&dir).is_muted(&bo));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn talk_at_a_lan_table_in_chinese() {
    talk_at_a_lan_table(Lang::Zh);
}

#[test]
fn talk_at_a_lan_table_in_english() {
    talk_at_a_lan_table(Lang::En);
}

#[test]
fn a_small_window_keeps_the_panel_and_every_quick_phrase() {
    for lang in [Lang::Zh, Lang::En] {
        let dir = temp_dir(&format!("small-{lang:?}"));
        let mut h = Harness::at_table(dir.clone(), lang);
        h.app.size = iced::Size::new(1024.0, 560.0);
        for (i, (said, k)) in talk::phrases(lang).into_iter().enumerate() {
            h.click(lang.t(k));
            assert_eq!(h.says(), [said], "phrase {i}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_practice_table_has_no_talk() {
    let dir = temp_dir("practice");
    Settings {
        name: "Mei".into(),
        ..Settings::default()
    }
    .save(&dir)
    .expect("settings");
    let (app, _) = App::new(Flags {
        data_dir: dir.clone(),
        lang: Some(Lang::En),
        practice: Some(Ruleset::Qiaoma),
        seed: Some(1),
        think_ms: (0, 0),
    });
    assert!(matches!(app.screen, Screen::Table(_)));
    let mut ui = Simulator::with_size(shanghai_mahjong::iced_settings(), app.size, app.view());
    assert!(ui.find(Lang::En.t(T::TalkTitle)).is_err());
    assert!(ui.find(Lang::En.t(T::TalkHurry)).is_err());
    drop(ui);
    let _ = std::fs::remove_dir_all(&dir);
}
