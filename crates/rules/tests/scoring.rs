//! Scoring (the rules, "Scoring") through the settlement file, one named case per rule, each
//! computed by hand from the rules (the computation is in the case's doc line). Every case
//! also checks that its explanation (`"explain"`) adds up to the payments it explains.

use serde_json::{Value, json};

fn scored(input: &str) -> Value {
    let r = mahjong_rules::score_json(input).unwrap_or_else(|e| panic!("{e}: {input}"));
    serde_json::to_value(&r).expect("result as JSON")
}

fn check(input: &str, payments: Value, hands: Value) {
    let got = scored(input);
    assert_eq!(got["payments"], payments, "{got}");
    assert_eq!(got["hands"], hands, "{got}");
    explanation_adds_up(&got);
}

/// The explanation's shares sum to the payments, each share is its units × the winner's S,
/// each winner's flower items sum to its flowers, and its S is the one scored. It reads back
/// from its JSON unchanged, and its text in both languages fits 80 columns.
fn explanation_adds_up(got: &Value) {
    use mahjong_rules::explain_text::{Lang, columns, render};
    let e = &got["explain"];
    let typed: mahjong_rules::Explanation =
        serde_json::from_value(e.clone()).expect("the explanation reads back");
    assert_eq!(&serde_json::to_value(&typed).expect("as JSON"), e);
    for lang in [Lang::En, Lang::Zh] {
        let lines = render(&typed, lang);
        assert!(lines.len() > 3, "{lines:?}");
        for line in &lines {
            assert!(columns(line) <= 80, "{} columns: {line}", columns(line));
        }
    }
    let mut sums = [0f64; 4];
    let shares = e["shares"].as_array().expect("shares");
    for sh in shares {
        let amount = sh["amount"].as_f64().expect("amount");
        sums[sh["payer"].as_u64().expect("payer") as usize] -= amount;
        sums[sh["payee"].as_u64().expect("payee") as usize] += amount;
        let payee = &sh["payee"];
        let w = e["winners"]
            .as_array()
            .expect("winners")
            .iter()
            .find(|w| &w["seat"] == payee)
            .expect("a share is paid to a winner");
        let s = w["score"].as_u64().expect("score");
        assert_eq!(
            sh["points"].as_u64(),
            Some(sh["units"].as_u64().expect("units") * s)
        );
    }
    for (p, sum) in sums.iter().enumerate() {
        assert_eq!(Some(*sum), got["payments"][p].as_f64(), "{got}");
    }
    for (i, w) in e["winners"].as_array().expect("winners").iter().enumerate() {
        let items: u64 = w["flower_items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|it| it["flowers"].as_u64().expect("flowers"))
            .sum();
        assert_eq!(Some(items), w["flowers"].as_u64(), "{got}");
        assert_eq!(w["score"], got["winners"][i]["score"], "{got}");
        assert_eq!(w["hand"], got["winners"][i]["hand"], "{got}");
    }
}

/// 风碰 + 荒番 (§6 check): V 40 × 2 = 80, C = 4 × 2 = 8 lezi → 80, table limit → 50.
#[test]
fn fengpeng_with_huangfan_reaches_its_doubled_cap_and_then_the_table_limit() {
    check(
        r#"{"huangfan":1,"declared":[true,true,true,true],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"22233344455z","winning_tile":"4z","melds":[{"type":"pung","tiles":"111z"}]}]}}"#,
        json!([150, -50, -50, -50]),
        json!(["fengpeng"]),
    );
}

/// The same hand with `table_limit_lezi: null`.
#[test]
fn without_a_table_limit_the_same_fengpeng_scores_80() {
    check(
        r#"{"options":{"table_limit_lezi":null},"huangfan":1,"declared":[true,true,true,true],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"22233344455z","winning_tile":"4z","melds":[{"type":"pung","tiles":"111z"}]}]}}"#,
        json!([240, -80, -80, -80]),
        json!(["fengpeng"]),
    );
}

/// 清一色 门清 robbing 2m: S = min(10 × 2, 20) = 20; the kong player pays 3 S.
#[test]
fn robbing_a_kong_the_kong_player_alone_pays_three_times() {
    check(
        r#"{"declared":[true,true,true,true],"win":{"kind":"rob_kong","from":3,"winners":[{"seat":0,"concealed":"11123455678999m","winning_tile":"2m"}]}}"#,
        json!([60, 0, 0, -60]),
        json!(["qingyise"]),
    );
}

/// 碰碰胡 门清 (P 2 × 2 = 4) and 清一色 门清 (20) on seat 2's 5s.
#[test]
fn two_winners_on_one_discard_are_each_paid_by_the_discarder() {
    check(
        r#"{"declared":[true,true,true,true],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"111m222p333s44455s","winning_tile":"5s"},{"seat":1,"concealed":"11123455678999s","winning_tile":"5s"}]}}"#,
        json!([4, 20, -24, 0]),
        json!(["pengpenghu", "qingyise"]),
    );
}

/// 混碰 (S 10), seat 0 bound to seat 1 by three claims; seat 1 discards: 2 S.
#[test]
fn binding_the_bound_seats_discard_pays_two() {
    check(
        r#"{"declared":[true,true,true,true],"claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":1,"winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([20, -20, 0, 0]),
        json!(["hunpeng"]),
    );
}

/// The same hand won on seat 2's discard, seat 2 not declared: seat 2 pays 2 S.
#[test]
fn binding_a_third_seat_not_ready_pays_two() {
    check(
        r#"{"declared":[true,true,false,true],"claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([20, 0, -20, 0]),
        json!(["hunpeng"]),
    );
}

/// The same, seat 2 declared: seat 2 pays S and the bound seat 1 pays S.
#[test]
fn binding_a_third_seat_ready_pays_one_and_the_bound_seat_one() {
    check(
        r#"{"declared":[true,true,true,true],"claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([20, -10, -10, 0]),
        json!(["hunpeng"]),
    );
}

/// Self-drawn: seat 1 pays 5 S, the two others S each.
#[test]
fn binding_on_a_self_draw_the_bound_seat_pays_five() {
    check(
        r#"{"declared":[true,true,true,true],"claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([70, -50, -10, -10]),
        json!(["hunpeng"]),
    );
}

/// 碰碰胡 with a concealed suited kong (P = 2 + 2), won on the replacement draw: V = max(4, 10); 门清 ×2 within C 2.
#[test]
fn gangkai_lifts_a_small_pengpenghu_to_one_lezi() {
    check(
        r#"{"declared":[true,true,true,true],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"111m222p333s55s","winning_tile":"5s","replacement_draw":true,"melds":[{"type":"kong","tiles":"4444s","concealed":true}]}]}}"#,
        json!([60, -20, -20, -20]),
        json!(["pengpenghu"]),
    );
}

/// Four exposed pungs and a single wait for the pair: V = max(2, 10) = 10.
#[test]
fn dadiaoche_lifts_a_small_pengpenghu_to_one_lezi() {
    check(
        r#"{"declared":[true,true,true,true],"claims":[[0,1,1,2],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"55s","winning_tile":"5s","melds":[{"type":"pung","tiles":"111m"},{"type":"pung","tiles":"222p"},{"type":"pung","tiles":"333s"},{"type":"pung","tiles":"444s"}]}]}}"#,
        json!([10, 0, -10, 0]),
        json!(["pengpenghu"]),
    );
}

/// 八花齐 on 13 ordinary tiles, undeclared: 2 lezi, 门清 ×2 capped at 2 lezi.
#[test]
fn eight_flowers_win_without_a_declaration_for_two_lezi() {
    check(
        r#"{"win":{"kind":"eight_flowers","winners":[{"seat":0,"concealed":"123m456p789s1234z","flowers":"12345678f"}]}}"#,
        json!([60, -20, -20, -20]),
        json!(["bahuaqi"]),
    );
}

/// 乱风: 14 honors in no standard shape still make 风一色 (2 lezi).
#[test]
fn fengyise_is_any_fourteen_honors() {
    check(
        r#"{"declared":[true,true,true,true],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"12345671234567z","winning_tile":"7z"}]}}"#,
        json!([60, -20, -20, -20]),
        json!(["fengyise"]),
    );
}

/// P = 2 + 6 flowers + 1 wind pung = 9 → 8; 荒番 ×2.
#[test]
fn classic_pengpenghu_is_worth_at_most_eight_and_doubles_with_huangfan() {
    check(
        r#"{"ruleset":"classic","huangfan":1,"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"111m222p333s44455z","winning_tile":"4z","flowers":"123456f"}]}}"#,
        json!([48, -16, -16, -16]),
        json!(["pengpenghu"]),
    );
}

/// classic: a double or 1-4 adds to the 荒番 counter and this hand already counts it.
#[test]
fn classic_kaibao_dice_make_this_hand_a_huangfan_hand() {
    check(
        r#"{"ruleset":"classic","kaibao":true,"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"111m222p333s44455z","winning_tile":"4z","flowers":"123456f"}]}}"#,
        json!([48, -16, -16, -16]),
        json!(["pengpenghu"]),
    );
}

/// 吃三口: three pungs from seat 1; self-drawn: seat 1 pays 3 S, the others S.
#[test]
fn classic_chi_san_kou_self_draw_the_bound_seat_pays_three() {
    check(
        r#"{"ruleset":"classic","claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455z","winning_tile":"4z","flowers":"123456f","melds":[{"type":"pung","tiles":"111m"},{"type":"pung","tiles":"222p"},{"type":"pung","tiles":"333s"}]}]}}"#,
        json!([40, -24, -8, -8]),
        json!(["pengpenghu"]),
    );
}

/// 底花 1 + one wildcard 1 = 2 flowers, no fan, an exposed chow (not 门清).
#[test]
fn baida_a_plain_hand_with_a_wildcard_is_pinghu() {
    check(
        r#"{"ruleset":"baida","wildcard":"9m","win":{"kind":"self_draw","winners":[{"seat":1,"concealed":"1239m4556p78s5p","winning_tile":"8s","melds":[{"type":"chow","tiles":"234s"}]}]}}"#,
        json!([-2, 6, -2, -2]),
        json!(["pinghu"]),
    );
}

/// **[reading]** §5 lists 门清 before "otherwise 平胡": the hand is named menqing; +1 flower.
#[test]
fn baida_an_all_concealed_hand_is_named_menqing_and_gains_a_flower() {
    check(
        r#"{"ruleset":"baida","wildcard":"9m","win":{"kind":"self_draw","winners":[{"seat":1,"concealed":"1239m4556p78s5p234s","winning_tile":"8s"}]}}"#,
        json!([-3, 9, -3, -3]),
        json!(["menqing"]),
    );
}

/// **[reading]** `four_wildcards: false` turns off the immediate win, not the 2 fan of holding four: (1 + 2 flowers + 4 wildcards + 门清 1) × 4.
#[test]
fn baida_sibaida_counts_even_when_the_immediate_win_is_off() {
    check(
        r#"{"ruleset":"baida","options":{"four_wildcards":false},"wildcard":"2p","win":{"kind":"self_draw","winners":[{"seat":2,"concealed":"578m11222278p345s","flowers":"14f","winning_tile":"5m"}]}}"#,
        json!([-32, -32, 96, -32]),
        json!(["sibaida"]),
    );
}

/// "Where a hand fits several rows, the highest value is taken": a 混碰 (1 lezi) of 11 points
/// (2 + 5 flower tiles + two wind pungs 2 + a dragon pung 2) also fits 碰碰胡 and 混一色 (worth
/// their points), so V = 11; S = min(11 × 2, 2 lezi) = 20, as it would be with V = 10.
#[test]
fn a_hand_fitting_several_rows_takes_the_highest_value() {
    let got = scored(
        r#"{"declared":[true,true,true,true],"win":{"kind":"self_draw","winners":[{"seat":0,
        "concealed":"999s33344455666z","flowers":"12347f","winning_tile":"6z"}]}}"#,
    );
    let w = &got["winners"][0];
    assert_eq!(w["hand"], "hunpeng", "{got}");
    assert_eq!(w["points"], 11, "{got}");
    assert_eq!(w["value"], 11, "{got}");
    assert_eq!(w["score"], 20, "{got}");
    assert_eq!(got["payments"], json!([60, -20, -20, -20]));
}

/// `baida`, the rules' first example: `123m 456m 789s 22s 11z` and the wildcard 5p, self-drawn,
/// all concealed. The wildcard makes the east pung but earns only its own flower: 底花 1 +
/// wildcard 1 + 门清 1 = 3, no fan (not 跑百搭: before the 2s the hand waited on 2s and 1z and
/// the wildcard only). Each pays 3.
#[test]
fn baida_a_wildcard_completing_a_wind_pung_earns_only_its_own_flower() {
    check(
        r#"{"ruleset":"baida","wildcard":"5p","win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"123m456m789s22s11z5p","winning_tile":"2s"}]}}"#,
        json!([9, -3, -3, -3]),
        json!(["menqing"]),
    );
}

/// `baida`, the rules' second example: `123m 456m 789s 22s` and three wildcards 5p: three
/// wildcards together are no wind pung, each earns its own flower: 1 + 3 + 门清 1 = 5;
/// 跑百搭 (before the last 5p, two wildcards won on any tile) 1 fan: 10 each.
#[test]
fn baida_three_wildcards_together_earn_three_flowers_not_a_wind_pung() {
    check(
        r#"{"ruleset":"baida","wildcard":"5p","win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"123m456m789s22s555p","winning_tile":"5p"}]}}"#,
        json!([30, -10, -10, -10]),
        json!(["paobaida"]),
    );
}

/// `baida`: three real east tiles are a wind pung even when a wildcard could stand in it; the
/// split keeping the real pung is taken: 1 + wind pung 1 + wildcard 1 + 门清 1 = 4, 跑百搭
/// (a lone wildcard waits on everything) 1 fan: 8 each.
#[test]
fn baida_three_real_wind_tiles_still_earn_their_pung_flower() {
    check(
        r#"{"ruleset":"baida","wildcard":"5p","win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"123m456m789s111z2s5p","winning_tile":"2s"}]}}"#,
        json!([24, -8, -8, -8]),
        json!(["paobaida"]),
    );
}

/// `baida`: an exposed pung of north (its tiles real by face) earns 1: 底花 1 + pung 1 +
/// wildcard 1 = 3, not 门清, no fan (before the 4s, 234s + wildcard waited on few tiles).
#[test]
fn baida_an_exposed_wind_pung_earns_one_flower() {
    check(
        r#"{"ruleset":"baida","wildcard":"5p","win":{"kind":"self_draw","winners":[{"seat":3,"concealed":"123m456m23s4s9p5p","winning_tile":"4s","melds":[{"type":"pung","tiles":"444z"}]}]}}"#,
        json!([-3, -3, -3, 9]),
        json!(["pinghu"]),
    );
}

/// `classic` 吃三口, robbing the kong: seat 0 (bound to seat 1 by three claims) robs seat 3's
/// added kong of 3m with a 混一色. P = 2 + 6 flowers + the concealed wind pung 1 = 9 → 8. The kong player
/// pays 3 S = 24 and the bound seat 1 also 3 S = 24.
#[test]
fn classic_chi_san_kou_robbing_the_kong_the_kong_player_and_the_bound_seat_pay_three_each() {
    check(
        r#"{"ruleset":"classic","claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"rob_kong","from":3,"winners":[{"seat":0,"concealed":"123456789m11155z","winning_tile":"3m","flowers":"123456f"}]}}"#,
        json!([48, -24, 0, -24]),
        json!(["hunyise"]),
    );
}

/// The same robbed kong made by the bound seat 1 itself: it pays 3 S once (as the kong
/// player), nobody else pays.
#[test]
fn classic_chi_san_kou_robbing_the_bound_seats_kong_it_pays_three() {
    check(
        r#"{"ruleset":"classic","claims":[[0,3,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"rob_kong","from":1,"winners":[{"seat":0,"concealed":"123456789m11155z","winning_tile":"3m","flowers":"123456f"}]}}"#,
        json!([24, -24, 0, 0]),
        json!(["hunyise"]),
    );
}

/// `classic` 吃三口, robbing without a binding: the kong player alone pays 3 S.
#[test]
fn classic_robbing_the_kong_unbound_the_kong_player_pays_three() {
    check(
        r#"{"ruleset":"classic","claims":[[0,2,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"rob_kong","from":3,"winners":[{"seat":0,"concealed":"123456789m11155z","winning_tile":"3m","flowers":"123456f"}]}}"#,
        json!([24, 0, 0, -24]),
        json!(["hunyise"]),
    );
}

/// `classic` 吃三口: seat 2's 9p wins for seats 0 and 1, bound to each other (3 claims, 2 one
/// way and 1 the other). Seat 0 碰碰胡 P 2 (S 2); seat 1 清一色 8. The discarder pays each
/// 1 S; the bound seat 1 pays seat 0 nothing (it is a winner).
#[test]
fn classic_chi_san_kou_a_third_seats_discard_winning_for_both_bound_seats_pays_each_once() {
    check(
        r#"{"ruleset":"classic","claims":[[0,2,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"999p55z","winning_tile":"9p","melds":[{"type":"pung","tiles":"111m"},{"type":"pung","tiles":"222p"},{"type":"pung","tiles":"333s"}]},{"seat":1,"concealed":"11134555666789p","winning_tile":"9p","melds":[]}]}}"#,
        json!([2, 8, -10, 0]),
        json!(["pengpenghu", "qingyise"]),
    );
}

/// `qiaoma` 承包, the same two bound winners on seat 2's discard, seat 2 not declared: it pays
/// each 2 S (seat 0 S 2 → 4; seat 1 清一色 门清 S 20 → 40).
#[test]
fn qiaoma_a_third_seat_not_ready_winning_for_both_bound_seats_pays_each_twice() {
    check(
        r#"{"declared":[true,true,false,false],"claims":[[0,2,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"999p55z","winning_tile":"9p","melds":[{"type":"pung","tiles":"111m"},{"type":"pung","tiles":"222p"},{"type":"pung","tiles":"333s"}]},{"seat":1,"concealed":"11134555666789p","winning_tile":"9p"}]}}"#,
        json!([4, 40, -44, 0]),
        json!(["pengpenghu", "qingyise"]),
    );
}

/// …and declared ready: it pays each 1 S.
#[test]
fn qiaoma_a_third_seat_ready_winning_for_both_bound_seats_pays_each_once() {
    check(
        r#"{"declared":[true,true,true,false],"claims":[[0,2,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"discard","from":2,"winners":[{"seat":0,"concealed":"999p55z","winning_tile":"9p","melds":[{"type":"pung","tiles":"111m"},{"type":"pung","tiles":"222p"},{"type":"pung","tiles":"333s"}]},{"seat":1,"concealed":"11134555666789p","winning_tile":"9p"}]}}"#,
        json!([2, 20, -22, 0]),
        json!(["pengpenghu", "qingyise"]),
    );
}

/// 八花齐 is worth 八花齐 whatever the concealed tiles: a complete 风碰 (4 lezi) in hand,
/// declared, still scores 2 lezi (门清 ×2 within its cap of 2 lezi): 20 each.
#[test]
fn eight_flowers_is_worth_bahuaqi_even_over_a_complete_fengpeng() {
    check(
        r#"{"declared":[true,true,true,true],"win":{"kind":"eight_flowers","winners":[{"seat":0,"concealed":"11122233344455z","winning_tile":"5z","flowers":"12345678f"}]}}"#,
        json!([60, -20, -20, -20]),
        json!(["bahuaqi"]),
    );
}

/// `classic`: 八花齐 is worth one lezi (8) over a complete 清一色 with 杠开 in hand; 荒番 ×2.
#[test]
fn classic_eight_flowers_is_worth_eight_whatever_the_hand() {
    check(
        r#"{"ruleset":"classic","huangfan":1,"win":{"kind":"eight_flowers","winners":[{"seat":2,"concealed":"11123455678999s","winning_tile":"5s","replacement_draw":true,"flowers":"12345678f"}]}}"#,
        json!([-16, -16, 48, -16]),
        json!(["bahuaqi"]),
    );
}

/// The first worked example explained: seat 1's flower items (two flower tiles, the exposed
/// red-dragon pung 2, the concealed east kong 3), P = 2 + 7, 碰碰胡 V = P, cap 1 lezi, the table
/// limit 50, and one share: seat 3 pays 9 as the discarder.
#[test]
fn the_first_worked_example_is_explained_item_by_item() {
    let got = scored(
        r#"{"ruleset":"qiaoma","stake":1,"declared":[false,true,false,false],"win":{"kind":"discard","from":3,"winners":[{"seat":1,"concealed":"222m55p999s","winning_tile":"9s","melds":[{"type":"pung","tiles":"777z"},{"type":"kong","tiles":"1111z","concealed":true}],"flowers":"12f"}]}}"#,
    );
    let e = &got["explain"];
    assert_eq!(
        e["end"],
        json!({"type": "win", "kind": "discard", "from": 3})
    );
    let w = &e["winners"][0];
    assert_eq!(
        w["flower_items"],
        json!([
            {"source": "flower_tile", "tile": "1f", "meld": null, "flowers": 1},
            {"source": "flower_tile", "tile": "2f", "meld": null, "flowers": 1},
            {"source": "meld", "tile": "7z", "meld": "pung", "flowers": 2},
            {"source": "meld", "tile": "1z", "meld": "concealed_kong", "flowers": 3},
        ])
    );
    assert_eq!(w["base"], 2);
    assert_eq!(w["points"], 9);
    assert_eq!(w["hand"], "pengpenghu");
    assert_eq!(
        w["rows"],
        json!([{"hand": "pengpenghu", "basis": {"basis": "points"}, "value": 9}])
    );
    assert_eq!(w["modifiers"], json!([]));
    assert_eq!(w["multiplier"], 1);
    assert_eq!(w["cap"]["lezi"], 1);
    assert_eq!(w["table_limit"], 50);
    assert_eq!(w["limited_by"], Value::Null);
    assert_eq!(w["score"], 9);
    assert_eq!(
        e["shares"],
        json!([{"payer": 3, "payee": 1, "units": 1, "points": 9, "amount": 9,
                "reason": {"reason": "discarder"}}])
    );
}

/// A bound self-draw explained: the 承包 rows name the bound seat and the claims that bind it,
/// and the cap names the modifiers that doubled it.
#[test]
fn a_bound_self_draw_names_its_rows_and_the_claims() {
    let got = scored(
        r#"{"kaibao":true,"declared":[true,true,true,true],"claims":[[0,2,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
    );
    let e = &got["explain"];
    // 混碰 10 × 2 (开宝), cap 1 × 2 = 2 lezi: S = 20; seat 1 pays 5 S, the others S.
    assert_eq!(got["payments"], json!([140, -100, -20, -20]));
    let w = &e["winners"][0];
    assert_eq!(w["cap"]["doubled_by"], json!(["kaibao"]));
    assert_eq!(
        w["modifiers"],
        json!([{"id": "kaibao", "effect": {"effect": "times", "times": 2}}])
    );
    let rows: Vec<&str> = e["shares"]
        .as_array()
        .expect("shares")
        .iter()
        .map(|s| s["reason"]["row"].as_str().expect("row"))
        .collect();
    assert_eq!(
        rows,
        ["self_draw_bound", "self_draw_other", "self_draw_other"]
    );
    assert_eq!(e["shares"][0]["reason"]["bound"], 1);
    assert_eq!(e["shares"][0]["reason"]["winner_claimed"], 2);
    assert_eq!(e["shares"][0]["reason"]["bound_claimed"], 1);
    assert_eq!(e["shares"][0]["reason"]["rule"], "qiaoma");
    explanation_adds_up(&got);
}

/// A leaver's penalty is explained as three shares that sum to the payments.
#[test]
fn a_leavers_penalty_is_explained_share_by_share() {
    use mahjong_rules::{Money, Options, Ruleset, scoring};
    let o = Options::preset(Ruleset::Qiaoma);
    let e = scoring::explain_leaver(&o, Money::coins(1), 2, 0);
    assert_eq!(
        e.payments,
        scoring::leaver_payments(&o, Money::coins(1), 2, 0)
    );
    assert_eq!(e.shares.len(), 3);
    assert!(e.shares.iter().all(|s| s.payer == 2));
    assert_eq!(e.shares.iter().map(|s| s.amount.0).sum::<i64>(), 100);
}

/// The text of a bound self-draw in both languages names the row, the bound seat and the
/// claims; a `baida` hand shows its fan.
#[test]
fn the_text_names_the_binding_and_the_fan() {
    use mahjong_rules::explain_text::{Lang, render};
    let s = mahjong_rules::parse_settlement(
        r#"{"declared":[true,true,true,true],"claims":[[0,2,0,0],[1,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
    )
    .expect("a settlement");
    let e = mahjong_rules::explain(&s).expect("it scores");
    let en = render(&e, Lang::En).join("\n");
    assert!(en.contains("Seat 0 won by self-draw on the 5m."), "{en}");
    assert!(en.contains("混碰 (hunpeng)"), "{en}");
    let flat = en.replace("\n    ", " ");
    assert!(
        flat.contains("Seat 1 pays seat 0 50 (5 × 10 points): the self-draw, paid in full by the bound seat; seat 0 and seat 1 are bound (承包)")
            && flat.contains("seat 0 claimed 2 of seat 1's discards and seat 1 claimed 1 of seat 0's, 3 in all."),
        "{en}"
    );
    assert!(
        en.contains("Result: seat 0 +70, seat 1 -50, seat 2 -10, seat 3 -10"),
        "{en}"
    );
    let zh = render(&e, Lang::Zh).join("\n");
    assert!(zh.contains("座位0 自摸5m，胡了。"), "{zh}");
    assert!(zh.contains("自摸，全由承包的一家付。"), "{zh}");
    assert!(zh.contains("结果：座位0 +70，座位1 -50"), "{zh}");
    // baida: a single wait on 5p with four melds, drawn as a replacement, no wildcard:
    // 无百搭 + 大吊 + 杠开 = 3 fan (跑百搭 needs a wildcard, so 3 is the most in practice).
    let s = mahjong_rules::parse_settlement(
        r#"{"ruleset":"baida","wildcard":"9s","win":{"kind":"self_draw","winners":[{"seat":1,"concealed":"55p","winning_tile":"5p","replacement_draw":true,"melds":[{"type":"chow","tiles":"123m"},{"type":"chow","tiles":"456m"},{"type":"pung","tiles":"777s"},{"type":"kong","tiles":"1111z","concealed":true}]}]}}"#,
    )
    .expect("a settlement");
    let e = mahjong_rules::explain(&s).expect("it scores");
    let w = &e.winners[0];
    // 底花 1 + concealed wind kong 3 = 4 flowers, × 2^3.
    assert_eq!((w.flowers, w.fan, w.score), (4, Some(3), 32));
    let en = render(&e, Lang::En).join("\n");
    assert!(en.contains("Fan: 3 in all\n"), "{en}");
}

/// 混碰 (S 10) self-drawn by seat 0, bound to seat 1 (2 + 1 claims) and to seat 2 (1 + 2):
/// bindings add up, each row applied for each bound seat and a seat named twice paying the
/// sum. Row for seat 1: seat 1 pays 5, seats 2 and 3 one each; row for seat 2: seat 2 pays
/// 5, seats 1 and 3 one each. Seats 1 and 2 pay 6 S = 60, seat 3 pays 2 S = 20.
#[test]
fn binding_to_two_seats_on_a_self_draw_applies_each_row() {
    check(
        r#"{"declared":[true,false,false,false],"claims":[[0,2,1,0],[1,0,0,0],[2,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([140, -60, -60, -20]),
        json!(["hunpeng"]),
    );
}

/// `classic` 混碰 (8) self-drawn by seat 0 with five claims between seats 0 and 1 (3 + 2):
/// 吃三口 binds once three claims are reached (both directions added), so seat 1 pays 3 × 8
/// and the others 8 each.
#[test]
fn classic_chi_san_kou_binds_past_four_claims_too() {
    check(
        r#"{"ruleset":"classic","claims":[[0,3,0,0],[2,0,0,0],[0,0,0,0],[0,0,0,0]],"win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"44455m","winning_tile":"5m","melds":[{"type":"pung","tiles":"111z"},{"type":"pung","tiles":"222m"},{"type":"pung","tiles":"333m"}]}]}}"#,
        json!([40, -24, -8, -8]),
        json!(["hunpeng"]),
    );
}

/// `baida`, wildcard 5p: four melds and a lone wildcard, won on a drawn 9s. The 13 tiles
/// before the draw win on any tile (跑百搭, 1 fan) and the wait is single behind four melds
/// (大吊, 1 fan); a wildcard in hand, so no 无百搭; chows and a pung, so no 门清. Flowers:
/// 底花 1 + the 5z flower 1 + exposed east pung 1 + concealed south kong 3 + the wildcard 1
/// = 7; 7 × 2² = 28 from each of the three others.
#[test]
fn baida_paobaida_and_dadiao_behind_four_melds() {
    check(
        r#"{"ruleset":"baida","wildcard":"5p","win":{"kind":"self_draw","winners":[{"seat":0,"concealed":"5p9s","winning_tile":"9s","melds":[{"type":"chow","tiles":"123m"},{"type":"pung","tiles":"111z"},{"type":"kong","tiles":"2222z","concealed":true},{"type":"chow","tiles":"789s"}],"flowers":"5z"}]}}"#,
        json!([84, -28, -28, -28]),
        json!(["paobaida"]),
    );
}

/// `baida`, wildcard 9m: seat 1 holds all four 9m and wins at once (四百搭, 2 fan and no
/// other). Its concealed 222z is three real south winds, a wind pung worth 1 flower. Flowers:
/// 底花 1 + 1f 1 + the wind pung 1 + four wildcards 4 + 门清 1 = 8; 8 × 2² = 32 each.
#[test]
fn baida_four_wildcards_win_counts_a_real_concealed_wind_pung() {
    check(
        r#"{"ruleset":"baida","wildcard":"9m","win":{"kind":"four_wildcards","winners":[{"seat":1,"concealed":"9999m2333445s222z","winning_tile":"9m","melds":[],"flowers":"1f"}]}}"#,
        json!([-32, 96, -32, -32]),
        json!(["sibaida"]),
    );
}
