"""Reinforcement-learning throughput, side by side with OpenSpiel (not run by the tests).

    .venv/bin/python tests/python/bench_rl.py [--seconds S] [--batch N]

Needs ``pip install ./py[rl]`` (for OpenSpiel's ``pyspiel``). Measures, in one run:

1. one ``legal_action_ids()`` call from Python on a classic ``junqi.Game`` (the same
   position, called repeatedly) against one ``legal_actions()`` call on an OpenSpiel
   ``banqi`` state (the 4×8 翻棋 of OpenSpiel's C++ games), in calls/s;
2. ``junqi.VectorEnv("classic", N)`` env steps/s (one step = one action in one game;
   actions from ``random_actions()``), with masks only and with observations, on one
   thread and on every core;
3. OpenSpiel ``banqi`` played with random legal actions from Python, in env steps/s:
   what an OpenSpiel user gets without a vectorized environment.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import time
from typing import Any, Callable

import junqi


def rate(fn: Callable[[], int], seconds: float) -> float:
    """Calls ``fn`` (which returns how many units it did) for about ``seconds``."""
    fn()  # warm up
    done = 0
    t = time.perf_counter()
    while True:
        done += fn()
        dt = time.perf_counter() - t
        if dt >= seconds:
            return done / dt


def junqi_legal_ids(seconds: float) -> float:
    game = junqi.Game("classic", 1)
    game.deploy_random("south")
    game.deploy_random("north")

    def calls() -> int:
        f = game.legal_action_ids
        for _ in range(10_000):
            f()
        return 10_000

    return rate(calls, seconds)


def banqi_legal_actions(pyspiel: Any, seconds: float) -> float:
    state = pyspiel.load_game("banqi").new_initial_state()
    rng = random.Random(1)
    # Past the chance nodes and a few flips, into play.
    for _ in range(6):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))

    def calls() -> int:
        f = state.legal_actions
        for _ in range(10_000):
            f()
        return 10_000

    return rate(calls, seconds)


def vector_env(batch: int, observations: bool, threads: int, seconds: float) -> float:
    env = junqi.VectorEnv("classic", batch, seed=1, observations=observations, threads=threads)
    env.reset()

    def steps() -> int:
        for _ in range(10):
            env.step(env.random_actions())
        env.finished()
        return 10 * batch

    return rate(steps, seconds)


def banqi_steps(pyspiel: Any, seconds: float) -> float:
    game = pyspiel.load_game("banqi")
    rng = random.Random(2)

    def steps() -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
                n += 1
        return n

    return rate(steps, seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="per measurement (default 3)")
    ap.add_argument("--batch", type=int, default=1024, help="VectorEnv games (default 1024)")
    args = ap.parse_args()
    pyspiel: Any
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        pyspiel = None
        print("(pyspiel not installed: pip install ./py[rl] for the OpenSpiel side)")
    s = args.seconds
    cores = os.cpu_count() or 1
    print(f"junqi {junqi.__version__}, {cores} cores, {s} s per measurement\n")
    ours = junqi_legal_ids(s)
    print(f"junqi  Game.legal_action_ids()        {ours:>12,.0f} calls/s   (classic)")
    if pyspiel is not None:
        theirs = banqi_legal_actions(pyspiel, s)
        print(f"OpenSpiel banqi state.legal_actions() {theirs:>12,.0f} calls/s   ({ours / theirs:.2f}x)")
    print()
    for observations in (False, True):
        for threads in sorted({1, cores}):
            r = vector_env(args.batch, observations, threads, s)
            what = "with observations" if observations else "masks only"
            print(f"junqi  VectorEnv classic n={args.batch} {what:<17} {threads} thread(s) {r:>12,.0f} env steps/s")
    if pyspiel is not None:
        r = banqi_steps(pyspiel, s)
        print(f"OpenSpiel banqi, random play from Python                  {r:>12,.0f} env steps/s")


if __name__ == "__main__":
    main()
