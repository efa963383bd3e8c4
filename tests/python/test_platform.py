"""The platform layer (docs/sources.md#qq-rules) and the new rule options from the sources,
from Python."""

from __future__ import annotations

from typing import Mapping

import pytest

import junqi


def deployed(rules: str, seed: int = 1) -> junqi.Game:
    game = junqi.Game(rules, seed=seed)
    for i, side in enumerate(junqi.RuleSet(rules).sides):
        game.deploy_random(side, seed=seed + i)
    return game


def test_levels() -> None:
    levels = junqi.levels()
    assert len(levels) == 18
    assert [lv.name for lv in levels][:2] == ["小兵", "副班长"]
    assert levels[-1] == junqi.level_for(12750)
    assert junqi.level_for(12750).english == "commander"
    assert junqi.level_for(49).name == "副排长"
    assert junqi.level_for(50).min_points == 50
    assert junqi.level_for(-3).index == 0
    assert "排长" in repr(junqi.level_for(50))


def test_two_player_escape_and_ledger() -> None:
    game = deployed("classic")
    report = game.escape("north")
    assert [e.type for e in report.public] == ["escaped", "game_over"]
    assert report.public[0].side == junqi.Side.NORTH
    result = game.result
    assert result is not None
    assert result.winner == junqi.Side.SOUTH
    assert result.reason == junqi.EndReason.ESCAPE
    # Ended at ply 0, within 30 plies: the winner scores nothing, the loser -1.
    south, north = game.platform_score({"south": 49, "north": 10})
    assert (south.rule, south.delta, south.points) == ("quick_win", 0, 49)
    assert (north.rule, north.delta, north.points, north.level.name) == ("loss", -1, 9, "小兵")
    assert north.rating < north.rating_before == 1500.0
    assert "SeatScore(side=Side.NORTH" in repr(north)
    with pytest.raises(junqi.IllegalActionError):
        game.escape("south")
    with pytest.raises(junqi.PlatformError, match="north has no seat"):
        game.platform_score({"south": 1})
    bad: dict[str, object] = {"south": 1, "north": "x"}
    with pytest.raises(junqi.PlatformError):
        game.platform_score(bad)  # type: ignore[arg-type]


def test_four_player_escapes() -> None:
    game = deployed("siguo")
    game.escape("east")  # West, East's partner, is still in: nobody scores
    result = game.result
    assert result is not None and result.is_draw and result.reason == junqi.EndReason.ESCAPE
    scores = game.platform_score({"south": 60, "east": 10, "north": 0, "west": 5})
    assert {s.rule for s in scores} == {"no_score"} and all(s.delta == 0 for s in scores)

    game = deployed("siguo", seed=3)
    game.resign("east")
    game.escape("west")  # the last enemy escapes: South and North win
    result = game.result
    assert result is not None
    assert set(result.winners) == {junqi.Side.SOUTH, junqi.Side.NORTH}


def test_scoring_cases_from_a_stored_result() -> None:
    win = junqi.Game("siguo", seed=1)
    assert win.result is None
    with pytest.raises(junqi.IllegalActionError):
        win.platform_score({"south": 0, "east": 0, "north": 0, "west": 0})
    game = deployed("classic")
    game.escape("south")
    result = game.result
    assert result is not None
    # Two players after 31 plies: +1/-1; 50-point rule for a winner above 50.
    s = junqi.platform_score("classic", result, 31, {"south": 0, "north": 0})
    assert [x.delta for x in s] == [-1, 1]
    s = junqi.platform_score("classic", result, 31, {"south": 49, "north": 51})
    assert (s[1].rule, s[1].delta) == ("protected", 0)
    s = junqi.platform_score("classic", result, 31, {"south": 0, "north": 0}, {"north": 1600.0})
    assert s[1].rating_before == 1600.0


def ratings(scores: list[junqi.SeatScore]) -> dict[str, float]:
    return {s.side.name.lower(): s.rating for s in scores}


def assert_ratings(got: dict[str, float], want: dict[str, float]) -> None:
    assert got.keys() == want.keys()
    for side, rating in want.items():
        assert got[side] == pytest.approx(rating, abs=1e-6), (side, got)


def test_elo_with_unequal_ratings_against_values_worked_by_hand() -> None:
    # Elo (docs/platform.md, K = 32): expected(us, them) = 1 / (1 + 10^((them - us) / 400)),
    # new = old + 32 * (actual - expected), actual 1 / 0.5 / 0 for a win / draw / loss.
    # 1600 against 1400: expected(1600, 1400) = 1 / (1 + 10^-0.5) = 0.759746926648,
    # expected(1400, 1600) = 1 / (1 + 10^0.5) = 0.240253073352.
    before = {"south": 1600.0, "north": 1400.0}
    points = {"south": 0, "north": 0}
    game = deployed("classic")
    game.escape("north")  # South, the favourite, wins
    result = game.result
    assert result is not None
    # 1600 + 32 * (1 - 0.759746926648) = 1607.688098347; 1400 - 32 * 0.240253073352 = 1392.311901653.
    s = junqi.platform_score("classic", result, 100, points, before)
    assert {x.side.name.lower(): x.rating_before for x in s} == before
    assert_ratings(ratings(s), {"south": 1607.688098347, "north": 1392.311901653})
    # The same through Game.platform_score (the game ended at ply 0: a quick win, still a win).
    assert_ratings(ratings(game.platform_score(points, before)), {"south": 1607.688098347, "north": 1392.311901653})
    game = deployed("classic")
    game.escape("south")  # North, the outsider, wins
    result = game.result
    assert result is not None
    # 1400 + 32 * (1 - 0.240253073352) = 1424.311901653; 1600 - 32 * 0.759746926648 = 1575.688098347.
    s = junqi.platform_score("classic", result, 100, points, before)
    assert_ratings(ratings(s), {"south": 1575.688098347, "north": 1424.311901653})
    game = deployed("classic")
    draw = game.agree_draw().result
    assert draw is not None and draw.is_draw
    # 1600 + 32 * (0.5 - 0.759746926648) = 1591.688098347; 1400 + 32 * (0.5 - 0.240253073352) = 1408.311901653.
    s = junqi.platform_score("classic", draw, 100, points, before)
    assert_ratings(ratings(s), {"south": 1591.688098347, "north": 1408.311901653})


def test_four_player_elo_is_each_team_s_mean_against_the_other_s() -> None:
    # 四国 (docs/platform.md, docs/web.md): each seat is rated as its team's mean against
    # the other team's, K = 32. South 1700 + North 1500: mean 1600; East 1450 + West 1350:
    # mean 1400. expected(1600, 1400) = 1 / (1 + 10^-0.5) = 0.759746926648.
    game = deployed("siguo", seed=3)
    game.resign("east")
    game.escape("west")  # South and North win
    result = game.result
    assert result is not None
    before = {"south": 1700.0, "east": 1450.0, "north": 1500.0, "west": 1350.0}
    points = {"south": 0, "east": 0, "north": 0, "west": 0}
    # Winners +32 * (1 - 0.759746926648) = +7.688098347, losers -32 * 0.240253073352 = -7.688098347.
    # (South's own 1700 against 1400 would give 1704.831345831.)
    s = junqi.platform_score("siguo", result, 100, points, before)
    assert_ratings(
        ratings(s),
        {"south": 1707.688098347, "east": 1442.311901653, "north": 1507.688098347, "west": 1342.311901653},
    )
    # Equal team means from unequal seats (1800 + 1200, 1550 + 1450): expected 1/2, ±16 each.
    even = {"south": 1800.0, "east": 1550.0, "north": 1200.0, "west": 1450.0}
    s = junqi.platform_score("siguo", result, 100, points, even)
    assert_ratings(ratings(s), {"south": 1816.0, "east": 1534.0, "north": 1216.0, "west": 1434.0})


def test_resignation_waits_twenty_plies_with_the_platform_option() -> None:
    rules = {"extends": "classic", "name": "qq", "options": {"min_plies_before_resign": 20}}
    game = junqi.Game(rules, seed=2)
    game.deploy_random("south", seed=1)
    game.deploy_random("north", seed=2)
    with pytest.raises(junqi.IllegalActionError, match="first 20 plies"):
        game.resign("south")


def test_new_presets_and_options() -> None:
    assert "siguo-2p" in junqi.rule_sets()
    assert junqi.RuleSet("siguo-2p").sides == [junqi.Side.SOUTH, junqi.Side.NORTH]
    assert junqi.resolve("sanjun-hk", "fighter", "trap") == junqi.CombatOutcome.WIN
    with pytest.raises(junqi.RulesError, match="open_after_deploy"):
        junqi.RuleSet({"extends": "fanqi", "name": "x", "options": {"open_after_deploy": True}})
    open_rules = {"extends": "classic", "name": "mingqi", "options": {"open_after_deploy": True}}
    game = deployed_custom(open_rules)
    assert all(p.kind is not None for p in game.view("north").pieces)


def deployed_custom(rules: Mapping[str, object]) -> junqi.Game:
    game = junqi.Game(rules, seed=1)
    game.deploy_random("south", seed=1)
    game.deploy_random("north", seed=2)
    return game
