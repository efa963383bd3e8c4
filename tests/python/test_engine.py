"""junqi.engine: a policy function becomes a protocol engine (docs/protocol.md). The
conformance checks drive the engine line by line as a referee would; then a real match
against a built-in engine, run by the `junqi` binary of the build under test: JUNQI_BIN
(tests/python/run.sh sets it to the citest build), else the one `cargo build --workspace
--profile citest` makes here."""

from __future__ import annotations

import io
import json
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
    to_act = game.to_act
    assert to_act is not None
    view = game.view_string(to_act)
    assert "*" in view
    e.handle(f"newgame {to_act.id[0].upper()} classic")
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


@pytest.fixture(scope="module")
def junqi_bin() -> str:
    """The `junqi` binary of the build under test, never one found lying in target/:
    JUNQI_BIN when set (tests/python/run.sh sets it to target/citest/junqi, which
    `cargo test --workspace --profile citest` in scripts/test has just built), else the
    executable `cargo build --workspace --profile citest --bin junqi` reports building."""
    given = os.environ.get("JUNQI_BIN")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            pytest.fail(f"JUNQI_BIN={given!r} is not an executable file")
        return given
    # --workspace: the features scripts/test's build has, so its binary is reused.
    command = ["cargo", "build", "--workspace", "--profile", "citest", "--bin", "junqi",
               "--message-format=json-render-diagnostics"]
    shown = " ".join(command[:7])
    try:
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.fail(f"JUNQI_BIN is not set and {shown} could not run: {e}")
    if out.returncode != 0:
        pytest.fail(f"JUNQI_BIN is not set and {shown} failed:\n{out.stderr[-3000:]}")
    for line in out.stdout.splitlines():
        message = json.loads(line)
        target = message.get("target", {})
        if (message.get("reason") == "compiler-artifact" and target.get("name") == "junqi"
                and "bin" in target.get("kind", []) and message.get("executable")):
            return str(message["executable"])
    pytest.fail(f"{shown} reported no junqi executable")


def test_a_python_engine_plays_a_match_against_a_builtin_engine(junqi_bin: str) -> None:
    binary = junqi_bin
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
