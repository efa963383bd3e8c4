//! The platform layer (docs/sources.md#qq-rules): surrender, escape, scoring, levels and
//! the ledger, one test per case the QQ rules state.
use junqi::platform::{level_for, Platform, PlatformError, ScoreRule, Seat, LEVELS};
use junqi::{EndReason, Event, Game, GameResult, PlayError, RuleSet, Side, Side::*, SideSet};

fn result(winners: &[Side], reason: EndReason) -> GameResult {
    GameResult {
        winners: winners.iter().copied().collect(),
        reason,
    }
}

fn seats(list: &[(Side, i64)]) -> Vec<Seat> {
    list.iter().map(|&(s, p)| Seat::new(s, p)).collect()
}

fn deltas(rules: &str, r: GameResult, plies: u32, list: &[(Side, i64)]) -> Vec<(i64, ScoreRule)> {
    let rules = RuleSet::preset(rules).unwrap();
    Platform::QQ
        .apply(&rules, &r, plies, &seats(list))
        .unwrap()
        .iter()
        .map(|s| (s.delta, s.rule))
        .collect()
}

fn four_player_game(seed: u64) -> Game {
    let mut g = Game::new("siguo", seed).unwrap();
    for (i, s) in [South, East, North, West].into_iter().enumerate() {
        g.deploy_random(s, seed + i as u64).unwrap();
    }
    g
}

#[test]
fn the_eighteen_levels_and_their_thresholds() {
    // docs/sources.md#qq-levels.
    let table = [
        ("小兵", 0),
        ("副班长", 10),
        ("正班长", 20),
        ("副排长", 30),
        ("排长", 50),
        ("副连长", 100),
        ("连长", 150),
        ("副营长", 220),
        ("营长", 350),
        ("副团长", 500),
        ("团长", 750),
        ("副旅长", 1000),
        ("旅长", 1550),
        ("副师长", 2150),
        ("师长", 3150),
        ("副军长", 5000),
        ("军长", 6350),
        ("司令", 12750),
    ];
    assert_eq!(LEVELS.len(), 18);
    for (i, (name, min)) in table.iter().enumerate() {
        assert_eq!(
            (
                LEVELS[i].name,
                LEVELS[i].min_points,
                LEVELS[i].index as usize
            ),
            (*name, *min, i)
        );
        assert_eq!(level_for(*min).name, *name);
        if i > 0 {
            assert_eq!(level_for(min - 1).name, table[i - 1].0, "just below {name}");
        }
    }
    assert_eq!(level_for(-7).name, "小兵");
    assert_eq!(level_for(1_000_000).name, "司令");
}

#[test]
fn two_players_win_one_point_and_four_players_two_per_seat() {
    // docs/sources.md#qq-scoring: 赢方得 2 分，输方得 -2 分 / 赢方得 1 分，输方得 -1 分.
    let r = result(&[South], EndReason::FlagCaptured);
    assert_eq!(
        deltas("classic", r, 31, &[(South, 0), (North, 0)]),
        vec![(1, ScoreRule::Win), (-1, ScoreRule::Loss)]
    );
    let r = result(&[East, West], EndReason::FlagCaptured);
    assert_eq!(
        deltas(
            "siguo",
            r,
            41,
            &[(South, 0), (East, 0), (North, 0), (West, 0)]
        ),
        vec![
            (-2, ScoreRule::Loss),
            (2, ScoreRule::Win),
            (-2, ScoreRule::Loss),
            (2, ScoreRule::Win)
        ]
    );
}

#[test]
fn a_quick_win_scores_nothing_for_the_winner() {
    // docs/sources.md#qq-quick-win: 30 步之内 (two players), 40 步之内 (four) the winner scores 0.
    let r = result(&[South], EndReason::Resignation);
    assert_eq!(
        deltas("classic", r, 30, &[(South, 5), (North, 5)]),
        vec![(0, ScoreRule::QuickWin), (-1, ScoreRule::Loss)]
    );
    assert_eq!(
        deltas("classic", r, 31, &[(South, 5), (North, 5)])[0],
        (1, ScoreRule::Win)
    );
    let r = result(&[South, North], EndReason::FlagCaptured);
    let four = [(South, 5), (East, 5), (North, 5), (West, 5)];
    assert_eq!(deltas("siguo", r, 40, &four)[0], (0, ScoreRule::QuickWin));
    assert_eq!(deltas("siguo", r, 40, &four)[1], (-2, ScoreRule::Loss));
    assert_eq!(deltas("siguo", r, 41, &four)[0], (2, ScoreRule::Win));
    // siguo-2p has two players: 30 plies and one point.
    assert_eq!(
        deltas(
            "siguo-2p",
            result(&[North], EndReason::FlagCaptured),
            35,
            &[(South, 0), (North, 0)]
        )[1],
        (1, ScoreRule::Win)
    );
}

#[test]
fn above_fifty_gains_nothing_against_an_opponent_below_fifty() {
    // docs/sources.md#qq-50-points: 如果您的分数高于 50 分，而您的对手中有人分数低于 50 分，不增加积分.
    let r = result(&[South], EndReason::FlagCaptured);
    assert_eq!(
        deltas("classic", r, 100, &[(South, 51), (North, 49)])[0],
        (0, ScoreRule::Protected)
    );
    assert_eq!(
        deltas("classic", r, 100, &[(South, 51), (North, 49)])[1],
        (-1, ScoreRule::Loss),
        "the loser still loses"
    );
    assert_eq!(
        deltas("classic", r, 100, &[(South, 50), (North, 0)])[0],
        (1, ScoreRule::Win),
        "50 is not above 50"
    );
    assert_eq!(
        deltas("classic", r, 100, &[(South, 51), (North, 50)])[0],
        (1, ScoreRule::Win),
        "50 is not below 50"
    );
    // Four players: one opponent below 50 is enough; a partner below 50 does not count.
    let r = result(&[South, North], EndReason::FlagCaptured);
    let d = deltas(
        "siguo",
        r,
        100,
        &[(South, 60), (East, 70), (North, 10), (West, 49)],
    );
    assert_eq!(d[0], (0, ScoreRule::Protected));
    assert_eq!(
        d[2],
        (2, ScoreRule::Win),
        "North has 10 points: the rule is about winners above 50"
    );
    let d = deltas(
        "siguo",
        r,
        100,
        &[(South, 60), (East, 70), (North, 10), (West, 50)],
    );
    assert_eq!(d[0], (2, ScoreRule::Win));
}

#[test]
fn draws_score_nothing() {
    // docs/sources.md#qq-no-capture-draw: 70 steps without a capture is a draw; a draw moves no points.
    for reason in [EndReason::NoCaptureLimit, EndReason::Agreement] {
        let d = deltas(
            "classic",
            result(&[], reason),
            200,
            &[(South, 10), (North, 60)],
        );
        assert_eq!(d, vec![(0, ScoreRule::Draw), (0, ScoreRule::Draw)]);
    }
}

#[test]
fn escapes_end_the_game_and_score_as_the_qq_rules_say() {
    // docs/sources.md#qq-escape, two players: 若对方逃跑，则我方算胜.
    let mut g = Game::new("classic", 3).unwrap();
    g.deploy_random(South, 1).unwrap();
    g.deploy_random(North, 2).unwrap();
    for _ in 0..40 {
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
        if g.result().is_some() {
            break;
        }
    }
    let plies = g.position().ply();
    let report = g.escape(North).unwrap();
    assert_eq!(report.public[0], Event::Escaped { side: North });
    let r = g.result().unwrap();
    assert_eq!((r.winner(), r.reason), (Some(South), EndReason::Escape));
    let scores = Platform::QQ
        .apply_game(&g, &seats(&[(South, 0), (North, 0)]))
        .unwrap();
    let want = if plies > 30 { 1 } else { 0 };
    assert_eq!((scores[0].delta, scores[1].delta), (want, -1));
    // The record replays the escape.
    let again =
        Game::from_record(&junqi::Record::from_json(&g.record().to_json()).unwrap()).unwrap();
    assert_eq!(again.result(), g.result());

    // Four players, both enemies still in: 若敌人双方都没有输掉，此时敌方有一人逃跑，双方不计分.
    let mut g = four_player_game(5);
    g.escape(East).unwrap();
    let r = g.result().unwrap();
    assert!(r.winners.is_empty() && r.reason == EndReason::Escape);
    let before = [(South, 60), (East, 10), (North, 0), (West, 5)];
    let scores = Platform::QQ.apply_game(&g, &seats(&before)).unwrap();
    assert!(scores
        .iter()
        .all(|s| s.delta == 0 && s.rule == ScoreRule::NoScore && s.rating == s.rating_before));

    // Four players, one enemy already out and the other escapes: 则判我方胜.
    let mut g = four_player_game(6);
    g.resign(East).unwrap();
    assert!(g.result().is_none());
    g.escape(West).unwrap();
    let r = g.result().unwrap();
    assert_eq!(
        (r.winners, r.reason),
        (
            [South, North].into_iter().collect::<SideSet>(),
            EndReason::Escape
        )
    );
    // The escape is a game-ending action: nothing after it.
    assert!(matches!(
        g.escape(South),
        Err(junqi::GameError::Play(PlayError::GameOver))
    ));
}

#[test]
fn no_resignation_within_the_first_twenty_plies_on_the_platform() {
    // docs/sources.md#qq-resign: 20 步之内不允许投降. The bare engine allows it at once.
    let plain = RuleSet::preset("classic").unwrap();
    assert_eq!(plain.options().min_plies_before_resign, 0);
    let qq = Platform::QQ.rules(&plain).unwrap();
    assert_eq!(qq.options().min_plies_before_resign, 20);
    let mut g = Game::with_rules(qq, 9);
    g.deploy_random(South, 1).unwrap();
    g.deploy_random(North, 2).unwrap();
    for _ in 0..20 {
        assert!(matches!(
            g.resign(g.to_act().unwrap()),
            Err(junqi::GameError::Play(PlayError::TooEarlyToResign {
                min: 20,
                ..
            }))
        ));
        let a = g.legal_actions()[0];
        g.play(a).unwrap();
        if g.result().is_some() {
            return;
        }
    }
    assert!(g.resign(South).is_ok());
    assert_eq!(g.result().unwrap().winner(), Some(North));
}

#[test]
fn the_ledger_gives_new_points_levels_and_ratings() {
    let rules = RuleSet::preset("classic").unwrap();
    let r = result(&[South], EndReason::FlagCaptured);
    let s = Platform::QQ
        .apply(&rules, &r, 100, &seats(&[(North, 10), (South, 49)]))
        .unwrap();
    assert_eq!(
        (s[0].side, s[0].points, s[0].level.name),
        (North, 9, "小兵")
    );
    assert_eq!(
        (s[1].side, s[1].points, s[1].level.name),
        (South, 50, "排长")
    );
    // Our Elo (K = 32): equal ratings, the winner gains 16 and the loser gives 16.
    assert!((s[1].rating - 1516.0).abs() < 1e-9 && (s[0].rating - 1484.0).abs() < 1e-9);
    let d = Platform::QQ
        .apply(
            &rules,
            &result(&[], EndReason::Agreement),
            100,
            &seats(&[(North, 10), (South, 49)]),
        )
        .unwrap();
    assert!(d.iter().all(|x| x.rating == 1500.0));
    // Bad seats are refused with the reason.
    let bad = |list: &[(Side, i64)]| {
        Platform::QQ
            .apply(&rules, &r, 100, &seats(list))
            .unwrap_err()
    };
    assert!(
        matches!(bad(&[(South, 0)]), PlatformError::Seats(m) if m.contains("north has no seat"))
    );
    assert!(
        matches!(bad(&[(South, 0), (South, 1)]), PlatformError::Seats(m) if m.contains("twice"))
    );
    assert!(
        matches!(bad(&[(South, 0), (North, 0), (East, 0)]), PlatformError::Seats(m) if m.contains("does not play"))
    );
    let east = result(&[East], EndReason::FlagCaptured);
    let e = Platform::QQ.apply(&rules, &east, 100, &seats(&[(South, 0), (North, 0)])).unwrap_err();
    assert!(matches!(e, PlatformError::Seats(m) if m.contains("east as a winner")));
    let g = Game::new("classic", 1).unwrap();
    assert_eq!(
        Platform::QQ.apply_game(&g, &seats(&[(South, 0), (North, 0)])),
        Err(PlatformError::NotOver)
    );
}

#[test]
fn a_result_with_no_loser_or_half_a_team_is_refused() {
    // Issue #27: a request naming both sides as winners was scored as two wins.
    let classic = RuleSet::preset("classic").unwrap();
    let both = result(&[South, North], EndReason::FlagCaptured);
    let err = Platform::QQ
        .apply(&classic, &both, 120, &seats(&[(South, 49), (North, 49)]))
        .unwrap_err();
    assert!(matches!(err, PlatformError::Winners(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "result: south and north all won: a decided game has a losing side (a draw names no winner)"
    );
    // In 四国 a team wins whole: South without its ally north is no result.
    let siguo = RuleSet::preset("siguo").unwrap();
    let four = seats(&[(South, 0), (East, 0), (North, 0), (West, 0)]);
    let half = result(&[South], EndReason::FlagCaptured);
    let err = Platform::QQ.apply(&siguo, &half, 120, &four).unwrap_err();
    assert!(matches!(err, PlatformError::Winners(_)), "{err}");
    assert!(err.to_string().contains("without its ally north"), "{err}");
    // A team, one side of two, and a draw are scored.
    let team = result(&[South, North], EndReason::FlagCaptured);
    assert!(Platform::QQ.apply(&siguo, &team, 120, &four).is_ok());
    let one = result(&[North], EndReason::FlagCaptured);
    assert!(Platform::QQ.apply(&classic, &one, 120, &seats(&[(South, 1), (North, 1)])).is_ok());
    let draw = result(&[], EndReason::Agreement);
    assert!(Platform::QQ.apply(&classic, &draw, 120, &seats(&[(South, 1), (North, 1)])).is_ok());
}

/// Scores `r` after 100 plies for seats of (side, rating), 0 points each; the new
/// ratings in seat order.
fn ratings(rules: &str, r: GameResult, list: &[(Side, f64)]) -> Vec<f64> {
    let rules = RuleSet::preset(rules).unwrap();
    let seats: Vec<Seat> = list.iter().map(|&(side, rating)| Seat { side, points: 0, rating }).collect();
    let scores = Platform::QQ.apply(&rules, &r, 100, &seats).unwrap();
    for (s, &(side, before)) in scores.iter().zip(list) {
        assert_eq!((s.side, s.rating_before), (side, before));
    }
    scores.iter().map(|s| s.rating).collect()
}

fn assert_ratings(got: &[f64], want: &[f64], label: &str) {
    assert_eq!(got.len(), want.len(), "{label}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-6, "{label}: seat {i} rated {g}, expected {w} (all: {got:?})");
    }
}

#[test]
fn elo_with_unequal_ratings_against_values_worked_by_hand() {
    // Elo as docs/platform.md gives it, K = 32 (Platform::QQ.elo_k):
    //   expected(us, them) = 1 / (1 + 10^((them - us) / 400)),
    //   new = old + 32 * (actual - expected), actual 1 for a win, 0.5 a draw, 0 a loss.
    // 1600 against 1400: 10^((1400 - 1600) / 400) = 10^-0.5 = 0.316227766017;
    //   expected(1600, 1400) = 1 / 1.316227766017 = 0.759746926648,
    //   expected(1400, 1600) = 1 / (1 + 10^0.5) = 1 / 4.162277660168 = 0.240253073352.
    assert_eq!(Platform::QQ.elo_k, 32.0);
    // The favourite wins: 1600 + 32 * (1 - 0.759746926648) = 1600 + 7.688098347 = 1607.688098347;
    // 1400 + 32 * (0 - 0.240253073352) = 1400 - 7.688098347 = 1392.311901653.
    let win = result(&[South], EndReason::FlagCaptured);
    let got = ratings("classic", win, &[(South, 1600.0), (North, 1400.0)]);
    assert_ratings(&got, &[1607.688098347, 1392.311901653], "classic, 1600 beats 1400");
    // The same game with the seats listed the other way round.
    let got = ratings("classic", win, &[(North, 1400.0), (South, 1600.0)]);
    assert_ratings(&got, &[1392.311901653, 1607.688098347], "classic, seats reversed");
    // The outsider wins: 1400 + 32 * (1 - 0.240253073352) = 1400 + 24.311901653 = 1424.311901653;
    // 1600 + 32 * (0 - 0.759746926648) = 1600 - 24.311901653 = 1575.688098347.
    let upset = result(&[North], EndReason::FlagCaptured);
    let got = ratings("classic", upset, &[(South, 1600.0), (North, 1400.0)]);
    assert_ratings(&got, &[1575.688098347, 1424.311901653], "classic, 1400 beats 1600");
    // A draw: 1600 + 32 * (0.5 - 0.759746926648) = 1600 - 8.311901653 = 1591.688098347;
    // 1400 + 32 * (0.5 - 0.240253073352) = 1400 + 8.311901653 = 1408.311901653.
    let draw = result(&[], EndReason::Agreement);
    let got = ratings("classic", draw, &[(South, 1600.0), (North, 1400.0)]);
    assert_ratings(&got, &[1591.688098347, 1408.311901653], "classic, a draw");
    // siguo-2p: two players on the four-player board, the same arithmetic.
    let got = ratings("siguo-2p", win, &[(South, 1600.0), (North, 1400.0)]);
    assert_ratings(&got, &[1607.688098347, 1392.311901653], "siguo-2p");
}

#[test]
fn four_player_elo_is_each_team_s_mean_against_the_other_s() {
    // 四国: each seat is rated as its team's mean against the other team's mean
    // (docs/web.md#ratings, docs/platform.md), K = 32.
    // South 1700 + North 1500: mean 1600; East 1450 + West 1350: mean 1400. So every
    // seat of South's team has expected(1600, 1400) = 1 / (1 + 10^-0.5) = 0.759746926648
    // and every seat of East's expected(1400, 1600) = 1 / (1 + 10^0.5) = 0.240253073352.
    let four = [(South, 1700.0), (East, 1450.0), (North, 1500.0), (West, 1350.0)];
    // South and North win: each of them gains 32 * (1 - 0.759746926648) = 7.688098347,
    // each of East and West loses 32 * 0.240253073352 = 7.688098347:
    // 1707.688098347, 1442.311901653, 1507.688098347, 1342.311901653.
    // (South's own 1700 against 1400 would give 1704.831345831; against the other
    // team's mean with a flipped sign, 1724.311901653.)
    let r = result(&[South, North], EndReason::FlagCaptured);
    let got = ratings("siguo", r, &four);
    assert_ratings(&got, &[1707.688098347, 1442.311901653, 1507.688098347, 1342.311901653], "siguo, South's team wins");
    // East and West win, the outsiders: each gains 32 * (1 - 0.240253073352) = 24.311901653,
    // each of South and North loses 32 * 0.759746926648 = 24.311901653:
    // 1675.688098347, 1474.311901653, 1475.688098347, 1374.311901653.
    let r = result(&[East, West], EndReason::FlagCaptured);
    let got = ratings("siguo", r, &four);
    assert_ratings(&got, &[1675.688098347, 1474.311901653, 1475.688098347, 1374.311901653], "siguo, East's team wins");
    // A draw: South's team 32 * (0.5 - 0.759746926648) = -8.311901653 each, East's +8.311901653:
    // 1691.688098347, 1458.311901653, 1491.688098347, 1358.311901653.
    let r = result(&[], EndReason::Agreement);
    let got = ratings("siguo", r, &four);
    assert_ratings(&got, &[1691.688098347, 1458.311901653, 1491.688098347, 1358.311901653], "siguo, a draw");
    // Equal team means with unequal seats: 1800 + 1200 = 3000 / 2 = 1500 against
    // 1550 + 1450 = 1500, expected 1/2 each: ±16 for everyone, whatever the seat's own rating.
    let even = [(South, 1800.0), (East, 1550.0), (North, 1200.0), (West, 1450.0)];
    let got = ratings("siguo", result(&[South, North], EndReason::FlagCaptured), &even);
    assert_ratings(&got, &[1816.0, 1534.0, 1216.0, 1434.0], "siguo, equal means");
}

#[test]
fn a_no_score_escape_leaves_unequal_ratings_as_they_were() {
    // docs/sources.md#qq-escape: 双方不计分, and our Elo follows (docs/platform.md). With
    // equal ratings a draw's Elo is ±0 too, so only unequal team means tell "nothing
    // rated" from "rated as a draw": here 1600 against 1400, where a draw would move
    // every seat by 8.311901653. Kills the mutant `match guard !no_score with true`
    // (Platform::apply), which rated the escape as a draw.
    let four = [(South, 1700.0), (East, 1450.0), (North, 1500.0), (West, 1350.0)];
    let got = ratings("siguo", result(&[], EndReason::Escape), &four);
    assert_ratings(&got, &[1700.0, 1450.0, 1500.0, 1350.0], "siguo, a no-score escape");
    // The same seats after an agreed draw do move: the escape's case is its own.
    let got = ratings("siguo", result(&[], EndReason::Agreement), &four);
    assert_ratings(&got, &[1691.688098347, 1458.311901653, 1491.688098347, 1358.311901653], "siguo, a draw");
}

#[test]
fn a_seat_read_without_a_rating_is_a_new_player_at_1500() {
    // Seats arrive as JSON from the C API (junqi_platform_score), Python and the web
    // server's store; "rating" may be left out for a new player, who starts at
    // Platform::QQ.initial_rating. Kills the mutants `replace default_rating -> f64 with
    // 0.0 / 1.0 / -1.0`.
    assert_eq!(Platform::QQ.initial_rating, 1500.0);
    let s: Seat = serde_json::from_str(r#"{"side":"south","points":7}"#).unwrap();
    assert_eq!(s, Seat { side: South, points: 7, rating: 1500.0 });
    assert_eq!(s, Seat::new(South, 7));
    let s: Seat = serde_json::from_str(r#"{"side":"north","points":0,"rating":1612.5}"#).unwrap();
    assert_eq!(s, Seat { side: North, points: 0, rating: 1612.5 });
}
