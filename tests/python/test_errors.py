"""Every error path: each is a ValueError subclass with the core's specific message,
and a refused action changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

import junqi
from conftest import NORTH, SOUTH


def test_hierarchy() -> None:
    for exc in (
        junqi.RulesError,
        junqi.SetupError,
        junqi.NotationError,
        junqi.IllegalMoveError,
        junqi.RecordError,
    ):
        assert issubclass(exc, junqi.JunqiError)
    assert issubclass(junqi.JunqiError, ValueError)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"b1": "mine", "a1": "flag"}, "flag may not stand on a1 .hq.|flag may not stand on a1"),
        ({"b3": "engineer"}, "nothing may be deployed on b3: it is a camp"),
        ({"a3": "mine", "a1": "company_commander"}, "mine may not stand on a3 \\(row 3"),
        ({"a6": "bomb", "a5": "division_commander"}, "bomb may not stand on a6"),
        ({"a7": "engineer"}, "a7 is outside south's half"),
        ({"z9": "engineer"}, 'unknown point "z9"'),
        ({"a2": "general"}, 'unknown piece kind "general"'),
        ({"a2": "tank"}, "tank is not part of the classic army"),
        ({"a2": None}, "engineer: 2 placed, the army has 3"),
    ],
)
def test_setup_errors(change: dict[str, str | None], message: str) -> None:
    setup = {p: k for p, k in {**SOUTH, **change}.items() if k is not None}
    game = junqi.Game()
    with pytest.raises(junqi.SetupError, match=message):
        game.deploy("south", setup)
    assert game.deployed == []  # nothing changed
    game.deploy("south", SOUTH)
    assert game.deployed == [junqi.Side.SOUTH]


def test_setup_error_texts_and_types() -> None:
    game = junqi.Game()
    with pytest.raises(junqi.SetupError, match="point a1 is given more than once"):
        game.deploy("south", '{"a1": "mine", "a1": "mine"}')
    with pytest.raises(junqi.SetupError, match="invalid setup JSON"):
        game.deploy("south", "{not json")
    with pytest.raises(TypeError):
        game.deploy("south", 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        game.deploy("south", {"a1": 3})  # type: ignore[dict-item]
    with pytest.raises(junqi.NotationError, match='unknown side "up"'):
        game.deploy("up", SOUTH)
    with pytest.raises(junqi.SetupError, match="east does not play in classic"):
        game.deploy("east", SOUTH)
    # Chinese kind names and PieceKind values work as setup values.
    zh = {p: junqi.PieceKind(k).chinese_names[0] for p, k in SOUTH.items()}
    game.deploy("south", zh)
    with pytest.raises(junqi.SetupError, match="south has already deployed"):
        game.deploy("south", SOUTH)
    game.deploy("north", {p: junqi.PieceKind(k) for p, k in NORTH.items()})
    with pytest.raises(junqi.SetupError, match="deployment is over"):
        game.deploy_random("north", 1)


def test_illegal_moves_leave_the_game_unchanged(game: junqi.Game) -> None:
    before = game.record()
    cases = [
        ("a7-a8", "the piece on a7 is not yours"),
        ("c4-c5", "there is no piece on c4"),
        ("b1-a1", "the flag on b1 never moves"),
        ("a1-a2", "the mine on a1 never moves"),
        ("d1-d2", "the piece on d1 is in a headquarters"),
        ("a6-a5", "a5 holds one of your own pieces"),
        ("a2-a9", "the engineer on a2 cannot reach a9"),
    ]
    for notation, message in cases:
        with pytest.raises(junqi.IllegalMoveError, match=message):
            game.play(notation)
    with pytest.raises(junqi.IllegalMoveError, match="it is south's turn, not north's"):
        game.play_as("north", "a7-a6")
    assert game.record() == before
    assert game.ply == 0 and game.to_act == junqi.Side.SOUTH


def test_notation_errors(game: junqi.Game) -> None:
    with pytest.raises(junqi.NotationError, match="malformed action"):
        game.play("a2a6")
    with pytest.raises(junqi.NotationError, match='unknown point "q1"'):
        game.play("q1-a2")
    with pytest.raises(junqi.NotationError, match="outside the action space"):
        game.play_id(-1)
    with pytest.raises(junqi.NotationError, match="outside the action space"):
        game.play_id(game.action_space)
    with pytest.raises(junqi.NotationError, match="outside the action space"):
        game.play(10**6)
    with pytest.raises(TypeError):
        game.play(1.5)  # type: ignore[arg-type]
    with pytest.raises(junqi.NotationError, match="unknown piece kind"):
        junqi.resolve("classic", "general", "mine")
    with pytest.raises(junqi.NotationError):
        junqi.PieceKind("nothing")
    with pytest.raises(junqi.NotationError, match="out of range"):
        junqi.Side(9)


def test_moves_before_deployment() -> None:
    game = junqi.Game()
    with pytest.raises(junqi.IllegalMoveError, match="deployment phase"):
        game.play("a2-a3")
    assert game.legal_moves() == [] and not any(game.action_mask())


def test_rules_errors() -> None:
    with pytest.raises(junqi.RulesError, match='unknown rule set "chess"'):
        junqi.Game("chess")
    with pytest.raises(junqi.RulesError, match="invalid rule set JSON"):
        junqi.Game("{oops")
    with pytest.raises(junqi.RulesError, match='unknown rule set "chess"'):
        junqi.Game('{"extends": "chess"}')
    with pytest.raises(junqi.RulesError, match="invalid rule set JSON"):
        junqi.RuleSet({"extends": "classic", "name": "x", "options": {"no_such_option": 1}})
    with pytest.raises(junqi.RulesError):
        junqi.resolve("nope", "bomb", "mine")
    with pytest.raises(TypeError):
        junqi.Game(3)  # type: ignore[arg-type]


def test_record_errors(game: junqi.Game) -> None:
    with pytest.raises(junqi.RecordError, match="invalid JSON"):
        junqi.Game.from_record("{")
    with pytest.raises(junqi.RecordError, match="format"):
        junqi.Game.from_record('{"format": "x", "rules": "classic", "seed": 1, "actions": [], "result": null}')
    game.play("c6-c7")
    record = json.loads(game.record())
    record["actions"].append("a6-a1")  # not a legal move for North
    with pytest.raises(junqi.RecordError, match="entry 3"):
        junqi.Game.from_record(record)
    record["actions"].pop()
    record["result"] = {"winners": ["south"], "reason": "resignation"}
    with pytest.raises(junqi.RecordError, match="the record says"):
        junqi.Game.from_record(record)
    with pytest.raises(TypeError):
        junqi.Game.from_record(12)  # type: ignore[arg-type]


def test_no_input_crashes_the_interpreter() -> None:
    """A sweep of odd inputs: each is refused with an exception, never a crash."""
    game = junqi.Game(seed=2)
    odd: list[Any] = ["", " ", "-", "a1-", "-a1", "a1-a1", "é-ü", "\x00", "a" * 10_000, -(2**70), None, [], {}]
    for value in odd:
        for call in (game.play, game.view, game.deploy_random, game.is_legal):
            try:
                call(value)
            except (ValueError, TypeError, OverflowError):
                pass
    assert game.phase == junqi.Phase.DEPLOY


def test_only_playing_sides_act(game: junqi.Game) -> None:
    with pytest.raises(junqi.IllegalMoveError, match="east is not in the game"):
        game.resign("east")
    with pytest.raises(junqi.IllegalMoveError, match="it is south's turn, not west's"):
        game.play_as("west", "a6-a7")
    with pytest.raises(junqi.SetupError, match="deployment is over"):
        game.deploy_random("west")
    with pytest.raises(junqi.SetupError, match="west does not play in classic"):
        junqi.Game("classic", seed=1).deploy_random("west")
    assert not game.is_over
