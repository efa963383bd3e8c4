"""Position strings from Python: the referee's string, a player's view string, games
started from either, and refusals (docs/position-strings.md)."""

from __future__ import annotations

import random

import pytest

import junqi
from junqi import Side


def played(rules: str, plies: int, seed: int) -> junqi.Game:
    game = junqi.Game(rules, seed)
    if game.phase == junqi.Phase.DEPLOY:
        for side in game.rules.sides:
            game.deploy_random(side, seed + 1)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over:
            break
        game.play_id(rng.choice(game.legal_action_ids()))
    return game


@pytest.mark.parametrize("rules", ["classic", "siguo", "fanqi", "sanjun-modern"])
def test_a_game_from_its_position_string_prints_and_plays_the_same(rules: str) -> None:
    game = played(rules, 12, 4)
    text = game.position_string()
    assert "\n" not in text and text.startswith(rules + " ")
    again = junqi.Game.from_position_string(text, 1)
    assert again.position_string() == text
    assert again.legal_action_ids() == game.legal_action_ids()
    # A game from a view string shows its viewer the same view.
    side = game.to_act
    assert side is not None
    view = game.view_string(side)
    assert junqi.Game.from_position_string(view, 1).view_string(side) == view


def test_a_view_string_hides_what_its_player_has_not_seen() -> None:
    game = played("classic", 0, 2)
    full, view = game.position_string(), game.view_string(Side.SOUTH)
    assert "=NFL" in full and "=NFL" not in view and "=N??" in view
    assert view.endswith("view=S")


def test_bad_strings_raise_position_string_error() -> None:
    with pytest.raises(junqi.PositionStringError, match="ZZ"):
        junqi.Game.from_position_string("classic a1=SZZ move S 0 0")
    with pytest.raises(junqi.JunqiError, match="chess"):
        junqi.Game.from_position_string("chess - move S 0 0")
    with pytest.raises(junqi.IllegalActionError):
        played("classic", 0, 1).view_string(Side.EAST)
