"""atheris: the engine side of the line protocol in Python (``junqi.engine``), reading
whatever a referee sends: ``junqi``, ``setoption`` (int, bool and string options),
``newgame`` (a seat and a preset or ``json`` and a rule set), ``setup`` (the seat's own
deployment) and ``event`` JSON, ``position`` view strings (with moved marks), ``clock``,
``deploy``, ``go``, ``draw``, ``gameover``, ``quit``, unknown lines, bytes that are not
UTF-8 and lines over the limit.

Each line goes to ``Engine.handle`` and must get the answer asked for or one
``info error ...`` line (which changes nothing the engine knows), never an exception;
every answer is one line without control characters and at most ``MAX_LINE`` bytes; a
``setup`` reads as JSON and an ``action`` is a legal move of the seat in the position it
was sent. Then the whole input goes through ``junqi.engine.run`` as bytes (with the
line limit lowered, so that long lines are reached), which must read it all.

The first byte chooses the engine's options, deployment and draw decisions (it accepts
offers, and offers a draw with each action, on some bytes) and the lowered line limit;
the rest is the referee's lines.

    python fuzz/python/fuzz_engine.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any, Mapping

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
import junqi.engine  # noqa: E402
from fuzzlib import run  # noqa: E402

OPTIONS = {"depth": 3, "fast": True, "style": "calm"}


def policy(game: junqi.Game, seat: junqi.Side) -> junqi.Action | str:
    moves = game.legal_actions()
    assert game.to_act == seat and moves, "the policy was asked to move for a seat that cannot"
    return moves[len(moves) // 2]


def deploy(rules: junqi.RuleSet, seat: junqi.Side) -> Mapping[str, str]:
    return {p: k.id for p, k in rules.random_setup(seat, 5).items()}


def clean(line: str) -> bool:
    """One protocol line: no character a reader could take for a line break, no control
    character, at most MAX_LINE bytes."""
    return len(line.encode()) <= junqi.engine.MAX_LINE and not any(
        c < " " or "\x7f" <= c <= "\x9f" or c in "\u2028\u2029" for c in line)


def state(e: junqi.engine.Engine) -> tuple[Any, ...]:
    return (e.seat, e.rules.name if e.rules else None, e.view, dict(e.options), len(e.events), e.setup, e.clock)


def check(e: junqi.engine.Engine, line: str, answers: list[str]) -> None:
    before_view, before_seat = e.view, e.seat
    for a in answers:
        assert isinstance(a, str) and clean(a), f"answer {a!r} to {line!r}"
    cmd, _, rest = line.rstrip("\r\n").partition(" ")
    errors = [a for a in answers if a.startswith("info error ")]
    replies = [a for a in answers if not a.startswith("info error ")]
    if cmd == "junqi":
        assert replies[0].startswith("id name ") and replies[-1] == "ready", answers
        assert all(r.startswith(("id ", "option ")) for r in replies[:-1]), answers
    elif cmd == "deploy":
        assert len(answers) == 1, answers
        if answers[0] != "setup random" and not errors:
            assert answers[0].startswith("setup ") and isinstance(json.loads(answers[0][6:]), dict), answers
    elif cmd == "go":
        if answers[:1] == ["draw offer"] and len(answers) == 2:
            answers = answers[1:]  # a draw offered with the action
        assert len(answers) == 1, answers
        if not errors:
            assert answers[0].startswith("action "), answers
            assert before_view is not None and before_seat is not None
            game = junqi.Game.from_position_string(before_view, 0)
            assert game.to_act == before_seat
            assert game.is_legal(answers[0][len("action "):]), (answers, before_view)
    elif cmd == "draw":
        assert answers in (["draw decline"], ["draw accept"]) or (len(errors) == 1 and not replies), answers
    else:
        assert not replies and len(errors) <= 1, (line, answers)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    choice, raw = data[0], data[1:]
    engine = junqi.engine.Engine(
        policy, name="fuzzed", author="me" if choice & 1 else "",
        deploy=deploy if choice & 2 else None, options=OPTIONS if choice & 4 else None,
        accept_draw=(lambda g, s: g.ply % 2 == 0) if choice & 1 else None,
        offer_draw=(lambda g, s: True) if choice & 2 else None,
    )
    for line in raw.decode("utf-8", "replace").split("\n"):
        before = state(engine)
        answers = engine.handle(line)
        check(engine, line, answers)
        if any(a.startswith("info error ") for a in answers):
            assert state(engine) == before, f"a refused line changed the engine: {line!r}"
        if line.strip() == "quit":
            break
    # The whole input as the referee's bytes, with a lowered line limit.
    limit = junqi.engine.MAX_LINE
    junqi.engine.MAX_LINE = 16 + (choice >> 3) * 8
    try:
        out = io.StringIO()
        stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace", newline="\n")
        junqi.engine.run(policy, name="fuzzed", options=OPTIONS, stdin=stdin, stdout=out)
    finally:
        junqi.engine.MAX_LINE = limit
    for a in out.getvalue().split("\n")[:-1]:
        assert clean(a), f"run answered {a!r}"


if __name__ == "__main__":
    run(TestOneInput)
