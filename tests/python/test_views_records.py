"""Views hide enemy identities; records replay; games pickle and copy."""

from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

import junqi
from junqi import PieceKind, Side
from conftest import NORTH, SOUTH


def play_some(game: junqi.Game, plies: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over:
            break
        game.play_id(rng.choice(game.legal_action_ids()))


def test_view_hides_enemy_kinds(game: junqi.Game) -> None:
    for player, own in ((Side.SOUTH, SOUTH), (Side.NORTH, NORTH)):
        view = game.view(player)
        assert view.player == player and view.to_act == Side.SOUTH
        assert len(view.pieces) == 50
        for piece in view.pieces:
            if piece.owner == player:
                assert piece.kind == PieceKind(own[piece.point])
            else:
                assert piece.kind is None
        as_dict = view.to_dict()
        assert all(p["kind"] is None for p in as_dict["pieces"] if p["owner"] != player.id)
        text = str(view)
        assert "??" in text and text.count("FL") == 1  # only the own flag is shown
        assert json.loads(view.to_json()) == as_dict
        state = view.to_dict(events=False)
        assert "events" not in state and as_dict["events"]
        assert state == {k: v for k, v in as_dict.items() if k != "events"}
        assert json.loads(view.to_json(events=False)) == state


def test_view_depends_only_on_the_players_information() -> None:
    """Swapping two North pieces South has never seen changes nothing South sees."""
    swapped = dict(NORTH)
    swapped["a10"], swapped["e10"] = swapped["e10"], swapped["a10"]
    assert swapped != NORTH
    games = []
    for north in (NORTH, swapped):
        g = junqi.Game(seed=5)
        g.deploy("south", SOUTH)
        g.deploy("north", north)
        g.play("e6-e7")  # South's engineer attacks North's division: no reveal
        g.play("a8-b8")
        games.append(g)
    a, b = games
    assert a.view("south") == b.view("south")
    assert a.view("south").to_json() == b.view("south").to_json()
    assert a.legal_action_ids() == b.legal_action_ids()
    assert a.player_record("south") == b.player_record("south")
    assert a.view("north") != b.view("north")


def test_engineer_scouting_is_private() -> None:
    rules = {"extends": "classic", "name": "scouts", "options": {"engineer_scouts": "attacker"}}
    game = junqi.Game(rules, seed=1)
    game.deploy("south", SOUTH)
    game.deploy("north", NORTH)
    report = game.play("e6-e7")  # engineer attacks the division on e7
    private = report.private
    assert list(private) == [Side.SOUTH]
    (reveal,) = private[Side.SOUTH]
    assert reveal.type == "revealed" and reveal.kind == PieceKind.DIVISION_COMMANDER
    assert reveal in report.events_for("south")
    assert reveal not in report.events_for("north")
    assert all(e.type != "revealed" for e in game.events("north"))
    assert "division_commander" not in report.to_json_for("north")
    assert "division_commander" in report.to_json_for("south")
    assert json.loads(report.to_json())["private"]["south"][0]["kind"] == "division_commander"


def test_record_round_trip() -> None:
    game = junqi.Game(seed=11)
    game.deploy_random("south")
    game.deploy_random("north")
    play_some(game, 60, seed=1)
    text = game.record()
    again = junqi.Game.from_record(text)
    assert again.same_state(game)
    assert again.record() == text
    for side in ("south", "north"):
        assert again.view(side) == game.view(side)
        assert again.events(side) == game.events(side)
    assert again.legal_action_ids() == game.legal_action_ids()
    assert junqi.Game.from_record(json.loads(text)).same_state(game)
    record = json.loads(text)
    assert record["seed"] == 11 and record["rules"]["name"] == "classic"
    # Both continue identically.
    play_some(game, 20, seed=2)
    play_some(again, 20, seed=2)
    assert again.same_state(game)


def test_finished_game_and_custom_rules_round_trip() -> None:
    rules = junqi.RuleSet({"extends": "classic", "name": "short", "options": {"no_capture_draw_plies": 5}})
    game = junqi.Game(rules, seed=4)
    game.deploy_random("north")
    game.deploy_random("south")
    play_some(game, 400, seed=3)
    assert game.is_over
    again = junqi.Game.from_record(game.record())
    assert again.result == game.result and again.same_state(game)
    assert again.rules == rules and again.rules.name == "short"


def test_player_record_holds_only_one_view(game: junqi.Game) -> None:
    game.play("c6-c7")
    record = json.loads(game.player_record("north"))
    assert record["player"] == "north"
    assert set(record["setup"]) == set(NORTH)
    kinds = [e.get("kind") for e in record["events"] if e["type"] == "revealed"]
    assert kinds == ["flag", "flag"]  # only what the rules reveal to everyone
    assert all(e.get("kind") in (None, "flag") for e in record["events"])
    assert '"kind": "commander"' not in json.dumps(record)


def test_seed_none_is_random_and_recorded() -> None:
    seeds = {junqi.Game().seed for _ in range(5)}
    assert len(seeds) > 1
    game = junqi.Game(seed=None)
    assert json.loads(game.record())["seed"] == game.seed


def test_pickle_round_trip(game: junqi.Game) -> None:
    play_some(game, 30, seed=9)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(game, protocol))
        assert isinstance(again, junqi.Game)
        assert again.same_state(game) and again.seed == game.seed
        assert again.view("south") == game.view("south")
    fresh = junqi.Game(seed=99)
    assert pickle.loads(pickle.dumps(fresh)).seed == 99
    for value in (Side.NORTH, PieceKind.BOMB, junqi.CombatOutcome.REPEL, junqi.Phase.OVER):
        assert pickle.loads(pickle.dumps(value)) == value
    rules = junqi.RuleSet({"extends": "classic", "name": "rail-3", "options": {"rail_max_steps": 3}})
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert pickle.loads(pickle.dumps(junqi.Board())) == junqi.Board("classic")


def test_copy_is_independent(game: junqi.Game) -> None:
    for twin in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        assert twin.same_state(game)
        twin.play(twin.legal_actions()[0])
        assert not twin.same_state(game)
        assert game.ply == 0 and twin.ply == 1


def test_action_mask_matches_legal_ids(game: junqi.Game) -> None:
    rng = random.Random(5)
    for _ in range(40):
        if game.is_over:
            break
        ids = game.legal_action_ids()
        mask = game.action_mask()
        assert len(mask) == game.action_space == game.rules.action_space
        assert [i for i, legal in enumerate(mask) if legal] == ids
        assert ids == sorted(ids)
        moves = game.legal_actions()
        assert sorted(m.id for m in moves if m.id is not None) == ids
        for m in moves:
            assert game.board.move_at(m.id or 0) == (m.from_, m.to)
            assert game.parse_action(m.notation) == m
            assert game.is_legal(m) and game.is_legal(m.notation) and game.is_legal(m.id or 0)
        illegal = next(i for i, legal in enumerate(mask) if not legal)
        before = game.record()
        try:
            game.play_id(illegal)
            raise AssertionError("an action outside the mask was accepted")
        except junqi.IllegalActionError:
            pass
        assert game.record() == before
        game.play_id(rng.choice(ids))


def test_reprs_are_readable(game: junqi.Game) -> None:
    report = game.play("c6-c7")
    assert repr(game).startswith('<Game "classic" move ply=1')
    assert "seed" not in repr(game), "the seed rebuilds hidden identities"
    assert "c6xc7" in repr(report) and "c6xc7" in str(report)
    assert repr(report.public[0]) == "<Event attacked: south c6xc7: both (both left the board)>"
    assert repr(game.legal_actions()[0]).startswith("Action(")
    assert repr(game.view("south")).startswith("<View of south ply=1")
    assert repr(game.view("south").pieces[0]) == 'SeenPiece(point="a1", owner=Side.SOUTH, kind=PieceKind.MINE, arm=Arm.ARMY)'
    assert repr(junqi.RuleSet()) == 'RuleSet("classic")'
    assert repr(junqi.Board()) == 'Board("classic", points=60)'
    game.resign("south")
    assert repr(game.result) == "GameResult(winners=[Side.NORTH], reason=EndReason.RESIGNATION)"


def test_svg_pictures_hide_enemy_kinds(game: junqi.Game) -> None:
    import xml.etree.ElementTree as ET

    svg = game.view("south")._repr_svg_()
    assert svg == game.view("south").to_svg()
    ET.fromstring(svg)  # well-formed
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("north's piece (unknown)") == 25
    assert svg.count('class="piece own"') == 25 and "north's flag" not in svg
    assert "south's view" in svg and "军旗" in svg
    # North sees South's pieces as backs, from its own seat.
    north = game.view("north").to_svg(legend=False, caption=False)
    assert north.count("south's piece (unknown)") == 25
    assert "railway 铁路" not in north and "ply 0" not in north  # no legend, no caption
    assert 'width="' in game.view("north").to_svg(scale=0.5)
    with pytest.raises(junqi.JunqiError, match="scale"):
        game.view("north").to_svg(scale=0)
    with pytest.raises(TypeError):
        game.view("north").to_svg(True)  # type: ignore[call-arg]


def test_board_pictures_from_each_seat() -> None:
    board = junqi.Board("siguo")
    assert board._repr_svg_() == board.to_svg("south")
    east = board.to_svg(junqi.Side.EAST, legend=False)
    assert east.startswith("<svg") and "seen from east" in east and east != board.to_svg()
    assert junqi.Board()._repr_svg_().count("大本营") >= 4
    with pytest.raises(ValueError):
        board.to_svg("up")
