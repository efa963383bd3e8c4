"""atheris: structured call sequences on a ``Game``. Each step, the input chooses the
next call — deploy, deploy_random, play_id, play (notation), play_as, view,
legal_action_ids, action_mask, observation, beliefs, determinize, resign, escape,
time_out, record / from_record, player_record, to_svg, copy — with fuzzed arguments
(sides outside the game, mutated setups, huge ids, wrong types). Every call succeeds
or raises an allowed error; a refused call, and every read-only call, leaves the
game's record and every player's view unchanged. The game ends with every check.

    python fuzz/python/fuzz_game_calls.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy  # noqa: E402

import junqi  # noqa: E402
from fuzzlib import (  # noqa: E402
    EDGE_INTS, TYPED, Bytes, attempt, check_action_space, check_views, full_check,
    refused_changes_nothing, run, snapshot,
)

# The presets and a few custom rule sets (dealt siguo with time-outs, open play).
RULES: tuple[Any, ...] = (
    *junqi.rule_sets(),
    {"extends": "siguo", "name": "siguo-dealt", "options": {"max_timeouts": 1},
     "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": True}},
    {"extends": "classic", "name": "open", "options": {"open_play": True, "max_timeouts": 1}},
    {"extends": "sanjun-book", "name": "capture", "options": {"commander_capture": True}},
)
ODD_SIDES: tuple[Any, ...] = ("east", "n", "S", "", "nobody", 7, -1, 2**70, None, 1.5, b"south")
SCALES = (1.0, 0.0, -1.0, math.nan, math.inf, 1e-300, 1e300, 0.5, 4.0)


def _side(b: Bytes, game: junqi.Game) -> Any:
    c = b.byte()
    if c < 200:
        return game.rules.sides[c % len(game.rules.sides)]
    if c < 228:
        return junqi.Side.members()[c % 4]
    return ODD_SIDES[c % len(ODD_SIDES)]


def _setup(b: Bytes, game: junqi.Game, side: Any) -> Any:
    """A random setup of the rule set, mutated a little, as a dict or JSON text."""
    try:
        setup: dict[str, Any] = {p: k.id for p, k in game.rules.random_setup(side, b.u64()).items()}
    except (junqi.JunqiError, TypeError, OverflowError):
        setup = {}
    points, kinds = list(setup), [k.id for k in junqi.PieceKind.members()]
    for _ in range(b.byte() % 4):
        op = b.byte() % 6
        if op == 0 and points:
            setup[b.pick(points)] = b.pick(kinds)
        elif op == 1 and points:
            setup.pop(b.pick(points), None)
        elif op == 2 and len(points) > 1:
            p, q = b.pick(points), b.pick(points)
            setup[p], setup[q] = setup.get(q), setup.get(p)
        elif op == 3:
            setup[b.text(8)] = b.pick(kinds)
        elif op == 4 and points:
            setup[b.pick(points)] = b.pick((None, 3, [], "", "工兵", "FLAG"))
        elif op == 5:
            return b.text(48)
    return setup


def _call(game: junqi.Game, b: Bytes) -> None:
    op = b.byte() % 20
    read_only = op in (4, 5, 6, 7, 8, 9, 12, 14, 17, 18)
    before = snapshot(game)
    side = _side(b, game)
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    out: Any = None
    if op == 0:
        fn, args = game.deploy, (side, _setup(b, game, side))
    elif op == 1:
        fn, args = game.deploy_random, (side, b.pick((None, b.u64(), -1, 2**64)))
    elif op in (2, 3):
        legal = game.legal_action_ids()
        i = legal[b.below(len(legal))] if legal and b.byte() < 192 else b.int_any(game.action_space)
        fn, args = game.play_id, (i,)
    elif op == 4:
        fn, args = game.view, (side,)
    elif op == 5:
        fn, args = game.legal_action_ids, ()
    elif op == 6:
        fn, args = game.action_mask, ()
    elif op == 7:
        if b.byte() & 1:
            spec = game.rules.observation_spec()["shape"]
            shape = b.pick((tuple(spec), (spec[0] * spec[1],), (spec[0], spec[1] + 1), (1,)))
            out = numpy.zeros(shape, dtype=b.pick((numpy.float32, numpy.float64, numpy.int8)))
            if b.byte() & 1 and len(shape) == 2:
                out = out[:, ::2] if shape[1] > 1 else out.T
        fn, args = game.observation, (side, out)
    elif op == 8:
        fn, args = (lambda s, p: game.beliefs(s).candidates(p)), (side, b.pick([*game.board.points, "z9", ""]))
    elif op == 9:
        fn, args = game.determinize, (side, b.pick((b.u64(), -1, 2**64, 0)))
    elif op == 10:
        fn, args = game.resign, (side,)
    elif op == 11:
        fn, args = game.time_out, ()
    elif op == 12:
        fn, args = (lambda: junqi.Game.from_record(game.record()).same_state(game) or _fail("replay")), ()
    elif op == 13:
        moves = game.legal_actions()
        text = b.pick(moves).notation if moves and b.byte() < 160 else b.text(12)
        if b.byte() & 1 and text:
            text = text[:-1] + b.pick(("^", "x", "-", " ", "0", "é"))
        fn, args = game.play, (text,)
    elif op == 14:
        scale = b.pick(SCALES)
        fn, args = (lambda s: game.view(s).to_svg(scale=scale, legend=bool(b.byte() & 1))), (side,)
    elif op == 15:
        moves = game.legal_actions()
        fn, args = game.play_as, (side, b.pick(moves) if moves else b.text(8))
    elif op == 16:
        fn, args = game.escape, (side,)
    elif op == 17:
        fn, args = game.player_record, (side,)
    elif op == 18:
        fn, args = (lambda: game.copy().same_state(game) or _fail("copy")), ()
    else:
        fn, args = game.play_id, (b.pick(EDGE_INTS),)
    # A wrong ``out=`` buffer is refused with a plain ValueError, numpy's way for an
    # output array (documented in docs/python.md); everything else with TYPED.
    allow: tuple[type[BaseException], ...] = TYPED
    if op == 7 and out is not None:
        allow = (*TYPED, ValueError)
    ok = True
    try:
        fn(*args)
    except allow as e:
        if isinstance(e, junqi.JunqiError):
            assert str(e)
        ok = False
    if read_only or not ok:
        refused_changes_nothing(game, before, f"{getattr(fn, '__name__', 'call')}{args!r}"[:200])
    if ok and op in (0, 1, 2, 3, 13, 15) and not game.is_over and b.byte() < 32:
        check_action_space(game)


def _fail(what: str) -> bool:
    raise AssertionError(f"{what} differs from the game")


def TestOneInput(data: bytes) -> None:
    b = Bytes(data)
    rules = b.pick(RULES)
    game = junqi.Game(rules, seed=b.u64())
    for step in range(60):
        if b.is_empty():
            break
        _call(game, b)
        if step % 20 == 19:
            check_views(game, step)
    full_check(game)


if __name__ == "__main__":
    run(TestOneInput)
