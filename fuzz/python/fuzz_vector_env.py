"""atheris: ``VectorEnv.step`` with fuzzed numpy arrays (and lists): wrong dtypes
(floats with NaN and infinities, unsigned, bool, object, complex), wrong shapes and
lengths, huge, negative and illegal values. A step plays every game or is refused —
``IllegalActionError`` for an illegal action, ``ValueError`` for a wrong count or shape,
``TypeError`` for anything but integers (floats, bools, strings, complex) — with no game
changed; only integer actions play, and a step that plays returns consistent arrays.

    python fuzz/python/fuzz_vector_env.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy  # noqa: E402

import junqi  # noqa: E402
from fuzzlib import EDGE_INTS, Bytes, run  # noqa: E402

VECTOR_RULES = ("classic", "fanqi", "siguo", "sanjun-modern")
# What a refused step may raise: junqi's errors, numpy's conversion errors.
ALLOWED = (junqi.JunqiError, ValueError, TypeError, OverflowError)
DTYPES: tuple[Any, ...] = (
    numpy.int64, numpy.int32, numpy.int8, numpy.uint8, numpy.uint64, numpy.float32,
    numpy.float64, numpy.bool_, numpy.complex128, object, numpy.int16, numpy.uint32,
)
ODD_VALUES: tuple[Any, ...] = (math.nan, math.inf, -math.inf, -0.5, 1.5, "3", None, 2**64, b"1", 1j, [1], True)

_ENVS: dict[tuple[int, int, bool, int], junqi.VectorEnv] = {}


def _env(b: Bytes) -> junqi.VectorEnv:
    key = (b.byte() % len(VECTOR_RULES), 1 + b.byte() % 3, bool(b.byte() & 1), b.byte() % 3)
    env = _ENVS.get(key)
    if env is None:
        rules, n, observations, plies = key
        env = junqi.VectorEnv(VECTOR_RULES[rules], n, seed=0, observations=observations,
                              max_plies=(None, 5, 40)[plies], threads=1)
        _ENVS[key] = env
    return env


def _actions(b: Bytes, env: junqi.VectorEnv) -> Any:
    n = len(env)
    legal = env.random_actions()
    kind = b.byte() % 8
    if kind <= 2:
        out: Any = legal.copy()
    elif kind == 3:
        out = numpy.array([b.int_any(env.action_space) % 2**63 for _ in range(n)], dtype=numpy.int64)
    elif kind == 4:
        out = [b.pick(EDGE_INTS) if b.byte() & 1 else int(a) for a in legal]
    elif kind == 5:
        out = [b.pick(ODD_VALUES) if b.byte() & 1 else int(a) for a in legal]
    elif kind == 6:
        length = b.pick((0, n - 1, n + 1, 2 * n))
        out = numpy.resize(legal, max(length, 0))
    else:
        out = b.pick((legal.reshape(n, 1), legal.reshape(1, n), numpy.int64(legal[0]), legal.tolist(), tuple(legal)))
    if isinstance(out, numpy.ndarray) and b.byte() & 1:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = out.astype(b.pick(DTYPES))
            except (ValueError, TypeError, OverflowError):
                pass
    if isinstance(out, numpy.ndarray) and out.ndim == 1 and n and b.byte() & 1:
        out = out.copy()
        i = b.below(len(out)) if len(out) else 0
        if len(out) and out.dtype.kind in "iu":
            try:
                out[i] = b.int_any(env.action_space)
            except OverflowError:
                pass
        elif len(out) and out.dtype.kind == "f":
            out[i] = b.pick((math.nan, math.inf, -1.0, 1e30, 0.5))
    return out


def TestOneInput(data: bytes) -> None:
    b = Bytes(data)
    env = _env(b)
    n, space = len(env), env.action_space
    env.reset(b.u64())
    for _ in range(12):
        if b.is_empty():
            break
        if b.byte() == 0xFF:
            i = b.int_any(n)
            try:
                env.legal_action_ids(i)
                assert 0 <= i < n
            except (IndexError, OverflowError):
                assert not 0 <= i < n
            continue
        actions = _actions(b, env)
        before = [env.game(i).record() for i in range(n)]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = env.step(actions)
        except ALLOWED as e:
            if isinstance(e, junqi.JunqiError):
                assert str(e)
            assert [env.game(i).record() for i in range(n)] == before, "a refused step changed a game"
            continue
        # Only integers play (issue #27: floats, bools, strings were cast silently).
        if isinstance(actions, numpy.ndarray):
            assert actions.dtype.kind in "iuO", f"a step played {actions.dtype} actions"
        if isinstance(actions, (list, tuple, numpy.ndarray)) and not (
            isinstance(actions, numpy.ndarray) and actions.dtype.kind in "iu"
        ):
            assert all(
                isinstance(a, (int, numpy.integer)) and not isinstance(a, bool) for a in actions
            ), f"a step played non-integer actions {actions!r}"
        obs, masks, rewards, terminated, truncated, to_act = result
        assert masks.shape == (n, space) and masks.dtype == numpy.bool_
        assert rewards.shape == (n, len(env.seats)) and terminated.shape == truncated.shape == (n,)
        assert (obs is None) == (not env.observes)
        if obs is not None:
            assert obs.shape == (n, *env.observation_shape)
            assert numpy.all((obs >= 0) & (obs <= 1)), "observation outside [0, 1]"
        for i in range(n):
            assert 0 <= int(to_act[i]) < len(env.seats)
            ids = env.legal_action_ids(i)
            assert list(numpy.flatnonzero(masks[i])) == list(ids), "the mask disagrees with legal_action_ids"
    env.finished()


if __name__ == "__main__":
    run(TestOneInput)
