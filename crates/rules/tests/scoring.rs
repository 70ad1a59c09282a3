//! Scoring (RULES.md §6) through the settlement format of §8, one named case per rule,
//! each computed by hand from RULES.md (the computation is in the case's doc line).

use serde_json::{Value, json};

fn scored(input: &str) -> Value {
    let r = mahjong_rules::score_json(input).unwrap_or_else(|e| panic!("{e}: {input}"));
    serde_json::to_value(&r).expect("result as JSON")
}

fn check(input: &str, payments: Value, hands: Value) {
    let got = scored(input);
    assert_eq!(got["payments"], payments, "{got}");
    assert_eq!(got["hands"], hands, "{got}");
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
