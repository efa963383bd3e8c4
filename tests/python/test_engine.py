"""junqi.engine: a policy function becomes a protocol engine (docs/protocol.md). The
conformance checks drive the engine line by line as a referee would; with the `junqi`
binary at hand (JUNQI_BIN, or target/*/junqi), a real match against a built-in engine."""

from __future__ import annotations

import glob
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import junqi
import junqi.engine
from junqi import Side

ROOT = Path(__file__).resolve().parents[2]


def policy(game: junqi.Game, seat: Side) -> junqi.Action:
    return random.Random(0).choice(game.legal_actions())


def test_handshake_options_and_answers_are_legal() -> None:
    e = junqi.engine.Engine(policy, name="t", options={"depth": 3, "fast": True, "style": "calm"})
    assert e.handle("junqi 1") == [
        "id name t", "option depth int 3", "option fast bool True", "option style string calm", "ready"
    ]
    e.handle("setoption depth 5")
    assert e.options["depth"] == 5
    game = junqi.Game("classic", 3)
    for side in game.rules.sides:
        game.deploy_random(side, 1)
    e.handle("newgame S classic")
    assert e.handle("deploy 1000") == ["setup random"]
    e.handle("position " + game.view_string(Side.SOUTH))
    (answer,) = e.handle("go 1000")
    assert answer.startswith("action ")
    game.play(game.parse_action(answer[len("action "):]))  # legal in the true game
    assert e.handle("draw 100") == ["draw decline"]
    assert e.handle("gameover N flag_captured") == [] and e.handle("mystery line") == []


def test_the_seats_history_its_clock_and_draws() -> None:
    game = junqi.Game("classic", 3)
    for i, side in enumerate(game.rules.sides):
        game.deploy_random(side, i + 1)
    e = junqi.engine.Engine(policy, accept_draw=lambda g, s: g.ply >= 1, offer_draw=lambda g, s: True)
    e.handle("newgame S classic")
    record = game.player_record(Side.SOUTH)
    import json as _json
    setup = _json.loads(record)["setup"]
    assert e.handle("setup " + _json.dumps(setup)) == []
    for event in _json.loads(record)["events"]:
        assert e.handle("event " + _json.dumps(event)) == []
    assert e.handle("clock 59000 1000") == [] and e.clock == (59000, 1000)
    assert e.handle("clock soon") == ["info error clock 'soon' is not <left ms> <increment ms>"]
    mine = e.player_record()
    assert mine["player"] == "south" and mine["rules"] == "classic" and mine["setup"] == setup
    assert mine["events"] == _json.loads(record)["events"]
    e.handle("position " + game.view_string(Side.SOUTH))
    answer = e.handle("go 1000")
    assert answer[0] == "draw offer" and answer[1].startswith("action "), answer
    game.play(game.parse_action(answer[1][len("action "):]))
    # Another team's offer: this engine accepts once a ply is played.
    e.handle("position " + game.view_string(Side.SOUTH))
    assert e.handle("draw 100") == ["draw accept"]
    # Pieces that have moved are marked in the view string (docs/position-strings.md),
    # and the engine reads it.
    for _ in range(6):
        game.play(game.legal_actions()[0])
    view = game.view_string(game.to_act)
    assert "*" in view
    e.handle(f"newgame {game.to_act.id[0].upper()} classic")
    e.handle("position " + view)
    assert e.handle("go 1000")[-1].startswith("action ")


def test_run_speaks_over_streams() -> None:
    game = junqi.Game("fanqi", 2)
    inp = io.StringIO(f"junqi 1\nnewgame S fanqi\nposition {game.view_string(Side.SOUTH)}\ngo 500\nquit\ngo 1\n")
    out = io.StringIO()
    junqi.engine.run(policy, name="p", stdin=inp, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "id name p" and "ready" in lines
    assert lines[-1].startswith("action flip "), lines


def junqi_bin() -> str | None:
    if os.environ.get("JUNQI_BIN"):
        return os.environ["JUNQI_BIN"]
    found = sorted(glob.glob(str(ROOT / "target" / "*" / "junqi")), key=os.path.getmtime)
    return found[-1] if found else None


@pytest.mark.skipif(junqi_bin() is None, reason="no junqi binary built")
def test_a_python_engine_plays_a_match_against_a_builtin_engine() -> None:
    binary = junqi_bin()
    assert binary is not None
    py = f"{sys.executable} {ROOT / 'tests' / 'python' / 'engine_random.py'}"
    out = subprocess.run(
        [binary, "match", "--engine", f"py={py}", "--engine", f"rust={binary} engine --agent random",
         "--rules", "classic", "--games", "2", "--time", "2s", "--max-plies", "40"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert out.returncode == 0, out.stderr
    assert "py vs rust: 2 games" in out.stdout
    assert not any(w in out.stderr for w in ("illegal", "garbage", "timeout", "crash", "spawn")), out.stderr
