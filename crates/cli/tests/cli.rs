//! The `mahjong` binary through its real interface: arguments, files, standard input,
//! standard output, standard error and the exit status.

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn mahjong(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mahjong"))
        .args(args)
        .output()
        .expect("the mahjong binary runs")
}

fn mahjong_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mahjong"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the mahjong binary runs");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("the mahjong binary ends")
}

fn settlements() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/settlements")
}

/// A file under the test's scratch directory holding `text`.
fn scratch(name: &str, text: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&p, text).expect("write scratch file");
    p
}

fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).expect("utf-8 stdout");
    assert_eq!(text.lines().count(), 1, "one JSON line: {text}");
    serde_json::from_str(&text).expect("stdout is JSON")
}

/// A failure: non-zero exit, nothing on stdout, exactly one line on stderr, returned.
fn one_line_error(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8(out.stderr.clone()).expect("utf-8 stderr");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line on stderr: {err:?}"
    );
    err
}

#[test]
fn the_worked_examples_of_rules_section_8_score_as_expected() {
    for i in 1..=3 {
        let file = settlements().join(format!("settlement-{i}.json"));
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(settlements().join(format!("settlement-{i}.expected.json")))
                .expect("expected file"),
        )
        .expect("expected JSON");
        let got = stdout_json(&mahjong(&["score", file.to_str().expect("utf-8 path")]));
        assert_eq!(got["payments"], expected["payments"], "settlement-{i}");
        assert_eq!(got["hands"], expected["hands"], "settlement-{i}");
        let sum: f64 = got["payments"]
            .as_array()
            .expect("payments")
            .iter()
            .map(|p| p.as_f64().expect("number"))
            .sum();
        assert_eq!(sum, 0.0, "settlement-{i} sums to zero");
    }
}

/// Terminal columns of a line (CJK characters take two).
fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

#[test]
fn score_explain_prints_who_pays_what_and_why_in_english_and_chinese() {
    let file = settlements().join("settlement-3.json");
    let file = file.to_str().expect("utf-8 path");
    let out = mahjong(&["score", "--explain", file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let en = String::from_utf8(out.stdout).expect("utf-8");
    for needle in [
        "Seat 0 won by self-draw",
        "碰碰胡 (pengpenghu)",
        "Points: P = base 2 + flowers 4 = 6",
        "Who pays:",
        "Seat 1 pays seat 0 30 (5 × 6 points): the self-draw, paid in full by the",
        "Seat 2 pays seat 0 6 (1 × 6 points): the self-draw;",
        "Result: seat 0 +42, seat 1 -30, seat 2 -6, seat 3 -6",
    ] {
        assert!(en.contains(needle), "{needle:?} in {en}");
    }
    let out = mahjong(&["score", "--explain", "--lang", "zh", file]);
    assert!(out.status.success());
    let zh = String::from_utf8(out.stdout).expect("utf-8");
    for needle in [
        "座位0 自摸",
        "付分：",
        "点数：P = 底分 2 + 花 4 = 6",
        "座位1 付给 座位0 30（5 × 6 分）：自摸，全由承包的一家付。",
        "结果：座位0 +42",
    ] {
        assert!(zh.contains(needle), "{needle:?} in {zh}");
    }
    for line in en.lines().chain(zh.lines()) {
        assert!(columns(line) <= 80, "{} columns: {line}", columns(line));
    }
    let err = one_line_error(&mahjong(&["score", "--explain", "--lang", "fr", file]));
    assert!(err.contains("--lang"), "{err}");
}

#[test]
fn the_json_result_gains_the_explanation_with_its_fields_unchanged() {
    let file = settlements().join("settlement-2.json");
    let got = stdout_json(&mahjong(&["score", file.to_str().expect("utf-8 path")]));
    let keys: Vec<&String> = got["winners"][0]
        .as_object()
        .expect("winner")
        .keys()
        .collect();
    assert_eq!(
        keys,
        [
            "cap", "flowers", "hand", "patterns", "points", "score", "seat", "value"
        ]
    );
    let e = &got["explain"];
    assert_eq!(e["payments"], got["payments"]);
    assert_eq!(e["winners"][0]["score"], 40);
    assert_eq!(e["winners"][0]["cap"]["lezi"], 4);
    assert_eq!(e["winners"][0]["multiplier"], 4);
    let reasons: Vec<&Value> = e["shares"]
        .as_array()
        .expect("shares")
        .iter()
        .map(|s| &s["reason"]["reason"])
        .collect();
    assert_eq!(reasons, ["self_draw", "self_draw", "self_draw"]);
}

#[test]
fn score_reads_standard_input_with_a_dash_or_no_file() {
    let text = std::fs::read_to_string(settlements().join("settlement-1.json")).expect("file");
    for args in [&["score", "-"][..], &["score"][..]] {
        let got = stdout_json(&mahjong_stdin(args, &text));
        assert_eq!(got["payments"], serde_json::json!([0, 9, 0, -9]));
        assert_eq!(got["winners"][0]["hand"], "pengpenghu");
        assert_eq!(got["winners"][0]["points"], 9);
    }
}

#[test]
fn a_hand_that_does_not_win_fails_with_one_line_naming_it() {
    // A standard-shape hand of mixed suits: no qiaoma hand type.
    let input = r#"{"ruleset":"qiaoma","declared":[true,false,false,false],
        "win":{"kind":"self_draw","winners":[{"seat":0,
        "concealed":"123m456p789s11122z","winning_tile":"2z"}]}}"#;
    let err = one_line_error(&mahjong_stdin(&["score"], input));
    assert!(err.starts_with("mahjong: "), "{err}");
    assert!(err.contains("does not win"), "{err}");
    assert!(err.contains("123m456p789s11122z"), "names the hand: {err}");
    // The same hand undeclared: qiaoma needs 敲 to win, and the error says so.
    let input = input.replace("[true,false,false,false]", "[false,false,false,false]");
    let err = one_line_error(&mahjong_stdin(&["score"], &input));
    assert!(err.contains("declared ready"), "{err}");
}

#[test]
fn bad_input_fails_with_one_line_naming_the_problem() {
    let cases: &[(&str, &str)] = &[
        ("{\"win\": ", "JSON"),
        ("[1, 2, 3]", "object"),
        ("{}", "win"),
        (
            r#"{"ruleset":"qiaomo","win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"11122233344455m","winning_tile":"5m"}]}}"#,
            "qiaomo",
        ),
        (
            r#"{"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"111222333444m8z","winning_tile":"8z"}]}}"#,
            "8z",
        ),
        (
            r#"{"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"11111m222333444p","winning_tile":"1m"}]}}"#,
            "1m",
        ),
        (
            r#"{"stake":-1,"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"11122233344455m","winning_tile":"5m"}]}}"#,
            "stake",
        ),
        (
            r#"{"win":{"kind":"discard","winners":[{"seat":0,"concealed":"11122233344455m","winning_tile":"5m"}]}}"#,
            "from",
        ),
    ];
    for (input, names) in cases {
        let err = one_line_error(&mahjong_stdin(&["score"], input));
        assert!(
            err.to_lowercase().contains(&names.to_lowercase()),
            "error for {input} should name {names}: {err}"
        );
    }
    let err = one_line_error(&mahjong(&["score", "/nonexistent/settlement.json"]));
    assert!(err.contains("/nonexistent/settlement.json"), "{err}");
    // A file cut short: its name, and what is wrong in it.
    let dir = tempfile::tempdir().expect("temp dir");
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, "{\"ruleset\":\"qiaoma\",\"win\": ").expect("write");
    let cut = cut.to_str().expect("utf-8 path");
    let err = one_line_error(&mahjong(&["score", cut]));
    assert!(err.contains(cut) && err.contains("JSON"), "{err}");
}

/// **[reading]** The table limit (单局封顶) caps S as §6 step 6 computes it; a bound seat
/// that pays 5 × S may lose more than the limit in all.
#[test]
fn the_table_limit_caps_the_score_not_a_bound_seats_total() {
    // 清碰 + 门清 self-drawn: V × M = 20 × 2 = 40, capped at 10 × C = 20 (C = 2 lezi).
    let input = r#"{"ruleset":"qiaoma","declared":[true,false,false,false],
        "claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],
        "win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"11122233344455m","winning_tile":"5m"}]}}"#;
    let got = stdout_json(&mahjong_stdin(&["score"], input));
    let s = got["winners"][0]["score"].as_i64().expect("score");
    assert!(s <= 50, "S within the table limit: {got}");
    // Seat 0 is bound to seat 1 (three claims): seat 1 pays 5 S, the others S each.
    assert_eq!(
        got["payments"],
        serde_json::json!([7 * s, -5 * s, -s, -s]),
        "{got}"
    );
    // With 荒番 and 开宝 S reaches the limit, and the bound seat still pays 5 × 50.
    let input = input.replace(
        r#""ruleset":"qiaoma","#,
        r#""ruleset":"qiaoma","kaibao":true,"huangfan":1,"#,
    );
    let got = stdout_json(&mahjong_stdin(&["score"], &input));
    assert_eq!(got["winners"][0]["score"], 50, "{got}");
    assert_eq!(got["payments"], serde_json::json!([350, -250, -50, -50]));
    // Without the limit the same hand scores 10 × C = 80.
    let input = input.replace(
        r#""ruleset":"qiaoma","#,
        r#""ruleset":"qiaoma","options":{"table_limit_lezi":null},"#,
    );
    let got = stdout_json(&mahjong_stdin(&["score"], &input));
    assert_eq!(got["winners"][0]["score"], 80, "{got}");
}

#[test]
fn score_help_explains_the_format_with_an_example() {
    let out = mahjong(&["score", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).expect("utf-8");
    for needle in [
        "settlement",
        "winning_tile",
        "claims",
        "Example",
        "payments",
        "stderr",
    ] {
        assert!(help.contains(needle), "--help mentions {needle}");
    }
    // Every option name is listed, and where they are described.
    let options = serde_json::to_value(mahjong_rules::Options::preset(
        mahjong_rules::Ruleset::Qiaoma,
    ))
    .expect("options as JSON");
    for name in options.as_object().expect("an object").keys() {
        if name != "ruleset" {
            assert!(
                help.contains(name.as_str()),
                "--help names the option {name}"
            );
        }
    }
    assert!(help.contains("docs/rules.en.md"));
    // The example in the help text scores as it says.
    let start = help
        .find("  {\"ruleset\"")
        .expect("example JSON in the help");
    let rest = &help[start..];
    let example = &rest[..rest.find("\n\n").unwrap_or(rest.len())];
    let got = stdout_json(&mahjong_stdin(&["score"], example));
    assert_eq!(got["payments"], serde_json::json!([0, 9, 0, -9]));
}

#[test]
fn bench_win_check_prints_one_json_line_with_the_count_of_winning_hands() {
    let file = scratch(
        "win_check_hands.txt",
        "11122233344455m\n123456789m11p789s\n13579m2468p13579s\n# a comment\n\n19m19p19s12345677z\n",
    );
    let got = stdout_json(&mahjong(&[
        "bench",
        "win-check",
        file.to_str().expect("utf-8 path"),
        "--verdicts",
    ]));
    assert_eq!(got["hands"], 4);
    // Thirteen orphans is not the standard shape.
    assert_eq!(got["winning"], 2);
    assert_eq!(got["verdicts"], "1100");
    assert!(got["ns_per_hand"].as_f64().expect("ns_per_hand") > 0.0);
}

#[test]
fn bench_win_check_names_the_bad_line() {
    let file = scratch("win_check_bad.txt", "11122233344455m\n0m123456789m1234p\n");
    let err = one_line_error(&mahjong(&[
        "bench",
        "win-check",
        file.to_str().expect("path"),
    ]));
    assert!(err.contains(":2"), "names line 2: {err}");
    assert!(
        err.contains("0m") || err.contains('0'),
        "names the tile: {err}"
    );
    let file = scratch("win_check_short.txt", "1112223334445m\n");
    let err = one_line_error(&mahjong(&[
        "bench",
        "win-check",
        file.to_str().expect("path"),
    ]));
    assert!(err.contains("14"), "says 14 tiles are needed: {err}");
}

#[test]
fn bench_hands_plays_complete_hands() {
    for preset in ["qiaoma", "classic", "baida"] {
        let got = stdout_json(&mahjong(&[
            "bench", "hands", "--preset", preset, "--hands", "50",
        ]));
        assert_eq!(got["preset"], preset);
        assert_eq!(got["hands"], 50);
        assert!(got["moves"].as_u64().expect("moves") > 50 * 20);
        assert!(got["hands_per_second"].as_f64().expect("rate") > 0.0);
    }
}

#[test]
fn arena_json_reports_every_seat_in_the_order_given() {
    let args = [
        "arena",
        "--preset",
        "qiaoma",
        "--hands",
        "40",
        "--seats",
        "strong,basic,random,basic",
        "--seed",
        "7",
        "--json",
    ];
    let got = stdout_json(&mahjong(&args));
    assert_eq!(got["hands"], 40);
    let seats = got["seats"].as_array().expect("seats");
    let levels: Vec<&str> = seats
        .iter()
        .map(|s| s["level"].as_str().expect("level"))
        .collect();
    assert_eq!(levels, ["strong", "basic", "random", "basic"]);
    let mut total = 0.0;
    for s in seats {
        for rate in ["win_rate", "deal_in_rate"] {
            let r = s[rate].as_f64().expect(rate);
            assert!((0.0..=1.0).contains(&r), "{rate} {r}");
        }
        let avg = s["avg_points"].as_f64().expect("avg_points");
        let ci = s["ci95"].as_array().expect("ci95");
        let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
        assert!(lo <= avg && avg <= hi, "{avg} in [{lo}, {hi}]");
        total += avg;
    }
    assert!(total.abs() < 1e-6, "points are zero-sum: {total}");
    // The same seed gives the same result.
    let again = stdout_json(&mahjong(&args));
    assert_eq!(got["seats"], again["seats"]);
}

#[test]
fn arena_rejects_a_bad_seat_list() {
    for seats in ["strong,basic,basic", "strong,basic,basic,genius"] {
        let err = one_line_error(&mahjong(&["arena", "--hands", "1", "--seats", seats]));
        assert!(err.contains("seat") || err.contains("level"), "{err}");
    }
}

/// `mahjong arena --duplicate ... --json`, without the timing fields.
fn duplicate(args: &[&str]) -> Value {
    let mut all = vec!["arena", "--duplicate", "--json"];
    all.extend_from_slice(args);
    let mut got = stdout_json(&mahjong(&all));
    for timing in [
        "seconds",
        "walls_per_second",
        "played_hands_per_second",
        "threads",
    ] {
        assert!(got.get(timing).is_some(), "{timing} in {got}");
        got.as_object_mut().expect("an object").remove(timing);
    }
    got
}

#[test]
fn duplicate_arena_is_fixed_by_its_seed_whatever_the_threads() {
    let args = |threads: &'static str| {
        [
            "--challenger",
            "basic",
            "--champion",
            "beginner",
            "--preset",
            "classic",
            "--hands",
            "5",
            "--seed",
            "3",
            "--threads",
            threads,
        ]
    };
    let one = duplicate(&args("1"));
    assert_eq!(one["hands"], 5, "--hands counts walls");
    assert_eq!(one["walls"], 5);
    assert_eq!(one["challenger_hands"], 20, "four challenger hands a wall");
    assert_eq!(one["challenger"], "basic");
    assert_eq!(one["champion"], "beginner");
    let mean = one["mean"].as_f64().expect("mean");
    let (lo, hi) = (
        one["ci95_low"].as_f64().expect("ci95_low"),
        one["ci95_high"].as_f64().expect("ci95_high"),
    );
    assert!(lo <= mean && mean <= hi, "{mean} in [{lo}, {hi}]");
    for rate in [
        "win_rate",
        "self_draw_rate",
        "deal_in_rate",
        "binding_rate",
        "drawn_rate",
    ] {
        let r = one[rate].as_f64().expect(rate);
        assert!((0.0..=1.0).contains(&r), "{rate} {r}");
    }
    assert!(one["binding_points"].as_f64().expect("binding_points") >= 0.0);
    assert_eq!(duplicate(&args("2")), one, "two threads");
    assert_eq!(duplicate(&args("3")), one, "three threads");
    assert_eq!(duplicate(&args("1")), one, "again");
    let mut other = args("1");
    other[9] = "4";
    assert_ne!(duplicate(&other)["mean"], one["mean"], "another seed");
}

#[test]
fn duplicate_arena_rotations_share_wall_dice_and_flowers() {
    // The same level in every seat: the four games of a wall are then one game (same
    // wall, dice, flowers and seat seeds), so the challenger's four results are the four
    // seats' payments of that game, which sum to zero, on every wall.
    let got = duplicate(&[
        "--challenger",
        "beginner",
        "--champion",
        "beginner",
        "--preset",
        "qiaoma",
        "--hands",
        "4",
        "--seed",
        "9",
    ]);
    assert_eq!(got["mean"].as_f64(), Some(0.0));
    assert_eq!(
        got["ci95_low"].as_f64(),
        Some(0.0),
        "no spread between walls"
    );
    assert_eq!(got["ci95_high"].as_f64(), Some(0.0));
}

#[test]
fn duplicate_arena_prints_its_figures_and_rejects_bad_levels() {
    let out = mahjong(&[
        "arena",
        "--duplicate",
        "--challenger",
        "basic",
        "--champion",
        "random",
        "--preset",
        "baida",
        "--hands",
        "2",
        "--threads",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for words in [
        "2 walls × 4 seats = 8 challenger hands",
        "95% interval over walls",
        "self-draw",
        "deal-in",
        "承包 paid",
        "hands/s",
        "2 threads",
    ] {
        assert!(text.contains(words), "{words:?} in {text}");
    }
    let err = one_line_error(&mahjong(&[
        "arena",
        "--duplicate",
        "--challenger",
        "genius",
        "--champion",
        "basic",
    ]));
    assert!(err.contains("level"), "{err}");
    // A missing champion is refused by the argument parser (its usage text follows).
    let out = mahjong(&["arena", "--duplicate", "--challenger", "basic"]);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--champion"));
}

#[test]
fn solo_plays_whole_hands_from_standard_input() {
    for preset in ["qiaoma", "classic", "baida"] {
        // Ask for a hint, then always take the first action offered.
        let mut input = String::from("h\n");
        input.push_str(&"1\n".repeat(3000));
        let out = mahjong_stdin(
            &["solo", "--preset", preset, "--hands", "2", "--seed", "11"],
            &input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert!(text.contains(&format!("({preset})")), "{preset}: {text}");
        assert!(text.contains("hint: "), "{preset}: a hint is shown");
        assert_eq!(text.matches("Hand over").count(), 2, "{preset}: {text}");
        assert!(text.contains("Session over."), "{preset}");
        solo_output_reads_well(preset, &text);
    }
    // The settlement in 中文.
    let mut input = String::new();
    input.push_str(&"1\n".repeat(3000));
    let out = mahjong_stdin(
        &["solo", "--hands", "2", "--seed", "11", "--lang", "zh"],
        &input,
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("付分："), "{text}");
    assert!(text.contains("结果："), "{text}");
    solo_output_reads_well_zh(&text);
    let err = one_line_error(&mahjong_stdin(&["solo", "--lang", "fr"], ""));
    assert!(err.contains("--lang"), "{err}");
    // End of input stops the game cleanly with the balances so far.
    let out = mahjong_stdin(&["solo", "--seed", "11"], "");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Stopped. Balances"));
    let err = one_line_error(&mahjong_stdin(&["solo", "--seat", "4"], ""));
    assert!(err.contains("--seat"), "{err}");
}

#[test]
fn solo_plays_swap_five() {
    let args = [
        "solo",
        "--hands",
        "1",
        "--seed",
        "5",
        "--option",
        "swap_five=true",
    ];
    // Wrong tile strings get a clear line and the prompt again; the hint names five tiles.
    let out = mahjong_stdin(&args, "h\n1x\n123m\n1m1m1m1m1m\nq\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(text.contains("换牌: type five tiles to put back"), "{text}");
    assert!(
        text.contains("换牌 puts back exactly five tiles, got 3"),
        "{text}"
    );
    assert!(text.contains("换牌: you hold 0 of 1m, not 5"), "{text}");
    assert!(text.contains("unexpected character 'x'"), "{text}");
    let hint = text
        .lines()
        .find_map(|l| l.split("hint: put back ").nth(1))
        .and_then(|l| l.split(" — ").next())
        .expect("the hint names the tiles to put back")
        .to_string();
    // Put back the hinted five and play the hand out.
    let mut input = format!("{hint}\n");
    input.push_str(&"1\n".repeat(3000));
    let out = mahjong_stdin(&args, &input);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains(&format!("You put back {hint} face down and drew ")),
        "{text}"
    );
    assert!(text.contains("Hand over"), "{text}");
    assert!(
        text.contains(&format!("; put back {hint} (换牌)")),
        "your own put-back shown: {text}"
    );
    assert!(
        text.contains("put back 5 (换牌)"),
        "the others' put-back shown"
    );
    for line in text.lines() {
        let line = line.trim_start_matches("> ");
        assert!(columns(line) <= 80, "{} columns: {line}", columns(line));
    }
    // Keeping the hand.
    let mut input = String::from("k\n");
    input.push_str(&"1\n".repeat(3000));
    let out = mahjong_stdin(&args, &input);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!text.contains("You put back"), "{text}");
    assert!(text.contains("Hand over"), "{text}");
    // Bad options: one clear line each.
    let err = one_line_error(&mahjong_stdin(&["solo", "--option", "swap_five"], ""));
    assert!(err.contains("NAME=VALUE"), "{err}");
    let err = one_line_error(&mahjong_stdin(&["solo", "--option", "swap_fiv=true"], ""));
    assert!(err.contains("swap_fiv"), "{err}");
    let err = one_line_error(&mahjong_stdin(&["solo", "--option", "swap_five=maybe"], ""));
    assert!(err.contains("swap_five"), "{err}");
}

fn solo_output_reads_well_zh(text: &str) {
    for line in text.lines() {
        let line = line.trim_start_matches("> ");
        assert!(columns(line) <= 80, "{} columns: {line}", columns(line));
    }
}

/// What a player reads: lines within 80 columns (the prompt "> " is followed by the
/// player's own line in a terminal), own discards shown, discard choices in the order of the
/// hand, no "1 tiles", and every won hand explained without "points a payer".
fn solo_output_reads_well(preset: &str, text: &str) {
    for line in text.lines() {
        let line = line.trim_start_matches("> ");
        assert!(
            columns(line) <= 80,
            "{preset}: {} columns: {line}",
            columns(line)
        );
        assert!(!line.contains(" 1 tiles"), "{preset}: {line}");
        assert!(!line.contains("a payer"), "{preset}: {line}");
    }
    assert!(text.contains("YOUR discards:"), "{preset}");
    // The first prompt's discards follow the hand as shown (sorted by suit and number).
    let prompt: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("  YOU: "))
        .skip(1)
        .take_while(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .filter_map(|l| l.split("discard ").nth(1))
        .map(|t| t.split_whitespace().next().unwrap_or(""))
        .collect();
    let order = |t: &&str| {
        let (n, s) = t.split_at(1);
        ("mpsz".find(s).unwrap_or(9), n.to_string())
    };
    let mut sorted = prompt.clone();
    sorted.sort_by_key(order);
    assert!(!prompt.is_empty(), "{preset}: {text}");
    assert_eq!(prompt, sorted, "{preset}");
    // Each won hand: how it was won, the winner's hand, who pays and why.
    for part in text.split("Hand over.").skip(1) {
        assert!(
            part.contains(" won ") || part.contains(" holds all "),
            "{preset}: {part}"
        );
        assert!(part.contains("  Hand: "), "{preset}: {part}");
        assert!(part.contains("Who pays:"), "{preset}: {part}");
        assert!(part.contains("Result: "), "{preset}: {part}");
    }
}

#[test]
fn bench_win_check_names_a_fifth_copy_and_a_flower() {
    let file = scratch("win_check_five.txt", "11111m22233344p5p\n");
    let err = one_line_error(&mahjong(&[
        "bench",
        "win-check",
        file.to_str().expect("path"),
    ]));
    assert!(
        err.contains(":1") && err.contains("5 copies of 1m"),
        "{err}"
    );
    let file = scratch("win_check_flower.txt", "1112223334445m1f\n");
    let err = one_line_error(&mahjong(&[
        "bench",
        "win-check",
        file.to_str().expect("path"),
    ]));
    assert!(err.contains("flower 1f"), "{err}");
}
