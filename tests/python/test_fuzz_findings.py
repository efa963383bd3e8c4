"""Regression tests for what the atheris harnesses (fuzz/python) found; the inputs
themselves are in the harnesses' corpora (fuzz/python/corpus/*/finding-*)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import junqi
import junqi.engine

ROOT = Path(__file__).resolve().parents[2]

SIGUO_DEALT: dict[str, Any] = {
    "extends": "siguo", "name": "siguo-dealt", "options": {"max_timeouts": 1},
    "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": True},
}


def unknown_to_beliefs(game: junqi.Game) -> list[tuple[str, str]]:
    """(player, point) where the player's view names a kind its beliefs do not pin down."""
    out = []
    for player in game.rules.sides:
        beliefs = game.beliefs(player)
        for piece in game.view(player).pieces:
            if piece.kind is not None and beliefs.candidates(piece.point) != [piece.kind]:
                out.append((player.id, piece.point))
    return out


def test_beliefs_keep_face_up_pieces_when_another_dealt_army_is_eliminated() -> None:
    """Four players, dealt face down: when a player is out, only the face-up pieces of
    the army it commands leave the board. Every other player's beliefs used to drop
    every face-up piece not of its own army (the two-player 翻棋 shortcut "the army it
    commanded is the one not ours"), so beliefs had no candidate for pieces the views
    show face up (found by fuzz_game_calls)."""
    game = junqi.Game(SIGUO_DEALT, seed=0)
    game.resign("south")  # before any flip: no army yet, nothing leaves
    for _ in range(3):
        game.play_id(game.legal_action_ids()[0])
    flipped = [p for p in game.view("north").pieces if p.kind is not None]
    assert flipped and game.to_act == junqi.Side.EAST
    game.resign("east")  # commands the army labelled south
    assert not game.is_over
    assert unknown_to_beliefs(game) == []
    for player in game.rules.sides:
        beliefs = game.beliefs(player)
        assert beliefs.is_consistent()
        for piece in flipped:
            if piece.owner != junqi.Side.SOUTH:  # the army the east player commanded
                assert beliefs.candidates(piece.point) == [piece.kind], (player, piece)
        sampled = game.determinize(player, 1)
        assert sampled.view(player).pieces == game.view(player).pieces


def first_move(game: junqi.Game, seat: junqi.Side) -> junqi.Action:
    return game.legal_actions()[0]


def test_the_python_engine_answers_a_bad_referee_line_with_one_error_line() -> None:
    """junqi.engine raised out of ``handle`` (ending the engine) on an option value of
    the wrong type, an unknown seat or rule set, an event that is not JSON, a view that
    does not read; it called the policy when the seat was not to act or had no legal
    move; and its errors could quote a newline (found by fuzz_engine; the inputs are
    fuzz/python/corpus/engine/hostile-*)."""
    e = junqi.engine.Engine(first_move, options={"depth": 3})
    bad = [
        "setoption depth deep", "newgame X classic", "newgame S chess", "newgame W classic",
        'newgame S json {"extends": "classic", "name": "x", "a\\nready": 1}', "event {not json",
        "event " + "[" * 100_000, "go 100",
    ]
    e.handle("newgame S classic")
    assert e.handle("position classic a1=SZZ move S 0 0") == []  # read at `go`
    for line in bad:
        before = (e.seat, e.rules.name if e.rules else None, e.view, dict(e.options), len(e.events))
        answers = e.handle(line)
        assert len(answers) == 1 and answers[0].startswith("info error "), (line, answers)
        assert "\n" not in answers[0] and "\r" not in answers[0], answers
        assert (e.seat, e.rules.name if e.rules else None, e.view, dict(e.options), len(e.events)) == before
    game = junqi.Game("classic", 1)
    for side in game.rules.sides:
        game.deploy_random(side, 1)
    e.handle("newgame N classic")
    e.handle("position " + game.view_string(junqi.Side.NORTH))  # south is to act
    assert e.handle("go 100") == ["info error go when north is not to act"]
    e.handle("newgame S classic")
    assert e.handle("go 100") == ["info error go before position"]
    e.handle("position classic - deploy S 0 0 deployed=- view=S")  # south deploys, not moves
    assert e.handle("go 100") == ["info error go when south has no legal move"]


def test_the_python_engine_reads_any_bytes_and_skips_long_lines() -> None:
    """The engine's stdin was read strictly as text: a byte that is not UTF-8 ended it
    with UnicodeDecodeError; a line of any length was read whole."""
    script = ROOT / "tests" / "python" / "engine_random.py"
    data = b"setoption x \xff\xfe\nposition " + b"x" * (junqi.engine.MAX_LINE + 10) + b"\r\njunqi 1\nquit\n"
    out = subprocess.run([sys.executable, str(script)], input=data, capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.decode().splitlines()
    assert lines[0] == f"info error a line over {junqi.engine.MAX_LINE} bytes: ignored"
    assert lines[1] == "id name python random" and lines[-1] == "ready"
