"""The cost of junqi's OpenSpiel states beside the same work on ``junqi.Game``, in one
run (not run by the tests).

    .venv/bin/python tests/python/bench_openspiel.py [--rollouts N] [--rules classic]

Needs ``pip install ./py[rl]``. A rollout is what OpenSpiel's ISMCTS with a random-
rollout evaluator does at a leaf: clone the state, then until the game ends ask for the
legal actions, apply a random one; then read the returns. The same rollout is played
on ``junqi.Game`` (``copy``, ``legal_action_ids``, ``play_id``, ``result``) from the
same deployed positions with the same random choices, so both sides do the same
moves. Prints milliseconds per rollout, plies per second and the ratio, then each
operation alone (``clone``, ``legal_actions``, ``apply_action`` on a clone, ``returns``)
beside its ``junqi.Game`` counterpart, in microseconds per call.
"""

from __future__ import annotations

import argparse
import random
import time
import timeit

import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

import junqi
import junqi.openspiel as jos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    game = pyspiel.load_game(jos.game_name(args.rules))
    starts = []
    for i in range(args.rollouts):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(i * 7 + len(state.history()))
        starts.append(state)

    def spiel(seed: int) -> int:
        rng = random.Random(seed)
        state = starts[seed].clone()
        plies = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        state.returns()
        return plies

    def native(seed: int) -> int:
        rng = random.Random(seed)
        g = starts[seed].game.copy()
        plies = 0
        while not g.is_over:
            g.play_id(rng.choice(g.legal_action_ids()))
            plies += 1
        g.result
        return plies

    rows = []
    for name, fn in (("junqi.Game", native), ("pyspiel state", spiel)):
        t = time.perf_counter()
        plies = sum(fn(i) for i in range(args.rollouts))
        dt = time.perf_counter() - t
        rows.append((name, dt / args.rollouts * 1e3, plies / dt, plies))
    base = rows[0][1]
    print(f"{args.rules}: {args.rollouts} random rollouts from deployed positions")
    for name, ms, rate, plies in rows:
        print(f"  {name:14s} {ms:8.2f} ms/rollout {rate / 1e3:8.1f} k plies/s  ({plies} plies)  x{ms / base:.2f}")
    assert rows[0][3] == rows[1][3], "both sides played the same moves"

    state = starts[0].clone()
    rng = random.Random(1)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    g = state.game
    action = state.legal_actions()[0]
    ops = [
        ("clone", state.clone, g.copy),
        ("legal_actions", state.legal_actions, g.legal_action_ids),
        ("clone + apply_action", lambda: state.clone().apply_action(action),
         lambda: g.copy().play_id(action)),
        ("returns", state.returns, lambda: g.result),
    ]
    print("one operation (40 plies in), us per call:")
    for name, spiel_op, native_op in ops:
        n = 20000
        a = timeit.timeit(native_op, number=n) / n * 1e6
        b = timeit.timeit(spiel_op, number=n) / n * 1e6
        print(f"  {name:22s} junqi.Game {a:7.2f}   pyspiel {b:7.2f}   x{b / a:.2f}")


if __name__ == "__main__":
    main()
