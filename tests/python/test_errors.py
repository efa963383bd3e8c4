"""Every error path: each is a ValueError subclass of its kind (docs/errors.md) with
the core's specific message, and a refused action changes nothing."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any, Callable

import pytest

import junqi
from conftest import NORTH, SOUTH


def documented_kinds() -> list[tuple[str, str]]:
    """(kind, Python exception) of each row of docs/errors.md's table."""
    page = pathlib.Path(__file__).parents[2] / "docs" / "errors.md"
    rows = [line.split("|") for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    return [(cells[1].strip().strip("`"), cells[4].strip().strip("`")) for cells in rows]


def test_each_kind_has_its_documented_exception() -> None:
    rows = documented_kinds()
    assert [kind for kind, _ in rows] == list(junqi.ERROR_KINDS)
    for kind, name in rows:
        cls = junqi.ERROR_KINDS[kind]
        assert cls.__name__ == name, kind
        if cls is not MemoryError:
            assert getattr(junqi, name) is cls and issubclass(cls, junqi.JunqiError), kind
    assert issubclass(junqi.JunqiError, ValueError)
    for name in ("NotYourTurnError", "WrongPhaseError", "GameOverError", "SideNotInGameError"):
        assert issubclass(getattr(junqi, name), junqi.IllegalActionError)


def test_names_of_development_versions_warn_and_still_work() -> None:
    game = junqi.Game.random_start("classic", 1)
    old_and_new: list[tuple[Callable[[], object], object]] = [
        (lambda: junqi.IllegalMoveError, junqi.IllegalActionError),
        (lambda: junqi.Move, junqi.Action),
        (lambda: junqi.Outcome, junqi.CombatOutcome),
        (game.legal_moves, game.legal_actions()),
        (lambda: game.parse_move("a2-a3"), game.parse_action("a2-a3")),
        (lambda: game.quiet_plies, game.no_capture_plies),
        (lambda: game.view("south").quiet_plies, game.view("south").no_capture_plies),
    ]
    for old, new in old_and_new:
        with pytest.warns(DeprecationWarning, match="deprecated: use"):
            assert old() == new


@pytest.mark.parametrize(
    "kind, call",
    [
        ("unknown_name", lambda: junqi.Game("chess")),
        ("out_of_range", lambda: junqi.Game(seed=1).play_id(10**6)),
        ("invalid_rules", lambda: junqi.Game("{oops")),
        ("invalid_setup", lambda: junqi.Game().deploy("south", {"a1": "flag"})),
        ("invalid_notation", lambda: junqi.Game().parse_action("a2a6")),
        ("invalid_position", lambda: junqi.Game.from_position_string("")),
        ("invalid_record", lambda: junqi.Game.from_record("[]")),
        ("wrong_phase", lambda: junqi.Game().play("a2-a3")),
        ("side_not_in_game", lambda: junqi.Game().deploy_random("east")),
    ],
)
def test_real_refusals_raise_their_kinds_class(kind: str, call: Any) -> None:
    with pytest.raises(junqi.ERROR_KINDS[kind]) as info:
        call()
    assert type(info.value) is junqi.ERROR_KINDS[kind]


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"b1": "mine", "a1": "flag"}, junqi.SetupError, "flag may not stand on a1 .hq.|flag may not stand on a1"),
        ({"b3": "engineer"}, junqi.SetupError, "nothing may be deployed on b3: it is a camp"),
        ({"a3": "mine", "a1": "company_commander"}, junqi.SetupError, "mine may not stand on a3 \\(row 3"),
        ({"a6": "bomb", "a5": "division_commander"}, junqi.SetupError, "bomb may not stand on a6"),
        ({"a7": "engineer"}, junqi.SetupError, "a7 is outside south's half"),
        ({"z9": "engineer"}, junqi.UnknownNameError, 'unknown point "z9"'),
        ({"a2": "general"}, junqi.UnknownNameError, 'unknown piece kind "general"'),
        ({"a2": "tank"}, junqi.SetupError, "tank is not part of the classic army"),
        ({"a2": None}, junqi.SetupError, "engineer: 2 placed, the army has 3"),
    ],
)
def test_setup_errors(change: dict[str, str | None], error: type[Exception], message: str) -> None:
    setup = {p: k for p, k in {**SOUTH, **change}.items() if k is not None}
    game = junqi.Game()
    with pytest.raises(error, match=message):
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
    with pytest.raises(junqi.UnknownNameError, match='unknown side "up"'):
        game.deploy("up", SOUTH)
    with pytest.raises(junqi.SideNotInGameError, match="east is not in the game"):
        game.deploy("east", SOUTH)
    # Chinese kind names and PieceKind values work as setup values.
    zh = {p: junqi.PieceKind(k).chinese_names[0] for p, k in SOUTH.items()}
    game.deploy("south", zh)
    with pytest.raises(junqi.WrongPhaseError, match="south has already deployed"):
        game.deploy("south", SOUTH)
    game.deploy("north", {p: junqi.PieceKind(k) for p, k in NORTH.items()})
    with pytest.raises(junqi.WrongPhaseError, match="deployment is over"):
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
        with pytest.raises(junqi.IllegalActionError, match=message) as info:
            game.play(notation)
        assert type(info.value) is junqi.IllegalActionError
    with pytest.raises(junqi.NotYourTurnError, match="it is south's turn, not north's"):
        game.play_as("north", "a7-a6")
    assert game.record() == before
    assert game.ply == 0 and game.to_act == junqi.Side.SOUTH


def test_notation_errors(game: junqi.Game) -> None:
    with pytest.raises(junqi.NotationError, match="malformed action"):
        game.play("a2a6")
    with pytest.raises(junqi.UnknownNameError, match='unknown point "q1"'):
        game.play("q1-a2")
    with pytest.raises(junqi.OutOfRangeError, match="outside the action space"):
        game.play_id(-1)
    with pytest.raises(junqi.OutOfRangeError, match="outside the action space"):
        game.play_id(game.action_space)
    with pytest.raises(junqi.OutOfRangeError, match="outside the action space"):
        game.play(10**6)
    with pytest.raises(TypeError):
        game.play(1.5)  # type: ignore[arg-type]
    with pytest.raises(junqi.UnknownNameError, match="unknown piece kind"):
        junqi.resolve("classic", "general", "mine")
    with pytest.raises(junqi.UnknownNameError):
        junqi.PieceKind("nothing")
    with pytest.raises(junqi.OutOfRangeError, match="out of range"):
        junqi.Side(9)


def test_moves_before_deployment() -> None:
    game = junqi.Game()
    with pytest.raises(junqi.WrongPhaseError, match="deployment phase"):
        game.play("a2-a3")
    assert game.legal_actions() == [] and not any(game.action_mask())


def test_rules_errors() -> None:
    with pytest.raises(junqi.UnknownNameError, match='unknown rule set "chess"'):
        junqi.Game("chess")
    with pytest.raises(junqi.RulesError, match="invalid rule set JSON"):
        junqi.Game("{oops")
    with pytest.raises(junqi.UnknownNameError, match='unknown rule set "chess"'):
        junqi.Game('{"extends": "chess"}')
    with pytest.raises(junqi.RulesError, match="invalid rule set JSON"):
        junqi.RuleSet({"extends": "classic", "name": "x", "options": {"no_such_option": 1}})
    with pytest.raises(junqi.UnknownNameError):
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
    with pytest.raises(junqi.SideNotInGameError, match="east is not in the game"):
        game.resign("east")
    with pytest.raises(junqi.SideNotInGameError, match="west is not in the game"):
        game.play_as("west", "a6-a7")
    with pytest.raises(junqi.WrongPhaseError, match="deployment is over"):
        game.deploy_random("west")
    with pytest.raises(junqi.SideNotInGameError, match="west is not in the game"):
        junqi.Game("classic", seed=1).deploy_random("west")
    assert not game.is_over
