"""Throughput of the Python API (not run by the tests).

    .venv/bin/python tests/python/bench.py

Measures games/second of ``junqi.random_playouts`` (whole games in Rust, GIL
released) and the per-call cost, from Python, of one ``legal_action_ids()`` +
``play_id()`` pair on a refereed ``Game``, and of a view as a dict with and without
its event log (``view.to_dict()`` against ``view.to_dict(events=False)``).
"""

from __future__ import annotations

import random
import threading
import time

import junqi


def bench_playouts(rules: str = "classic", n: int = 2000) -> float:
    junqi.random_playouts(rules, n=20, seed=0)  # warm up
    t = time.perf_counter()
    results = junqi.random_playouts(rules, n=n, seed=1)
    dt = time.perf_counter() - t
    plies = sum(r.plies for r in results)
    print(f"random_playouts({rules!r}): {n} games in {dt:.3f} s = {n / dt:,.0f} games/s "
          f"({plies / n:.0f} plies/game, {plies / dt / 1e6:.2f} M plies/s)")
    return n / dt


def bench_threads(n: int = 2000, threads: int = 2) -> None:
    t = time.perf_counter()
    ts = [threading.Thread(target=junqi.random_playouts, kwargs={"n": n // threads, "seed": s})
          for s in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    dt = time.perf_counter() - t
    print(f"random_playouts in {threads} threads: {n / dt:,.0f} games/s")


def bench_calls(pairs: int = 100_000) -> float:
    rng = random.Random(1)
    done = 0
    elapsed = 0.0
    seed = 0
    while done < pairs:
        game = junqi.Game(seed=seed)
        game.deploy_random("south")
        game.deploy_random("north")
        seed += 1
        t = time.perf_counter()
        n = 0
        while not game.is_over:
            ids = game.legal_action_ids()
            game.play_id(ids[rng.randrange(len(ids))])
            n += 1
        elapsed += time.perf_counter() - t
        done += n
    us = elapsed / done * 1e6
    print(f"legal_action_ids + play_id from Python: {done} pairs, {us:.2f} µs per pair "
          f"(includes the loop's is_over check and random choice)")
    return us


def bench_view(plies: int = 300, reps: int = 2000) -> None:
    """A player's view as a dict after ``plies`` plies: with the event log and without."""
    rng = random.Random(2)
    game = junqi.Game(seed=3)
    game.deploy_random("south")
    game.deploy_random("north")
    while not game.is_over and game.ply < plies:
        ids = game.legal_action_ids()
        game.play_id(ids[rng.randrange(len(ids))])
    for events in (True, False):
        t = time.perf_counter()
        for _ in range(reps):
            game.view("north").to_dict(events=events)
        us = (time.perf_counter() - t) / reps * 1e6
        n = len(game.events("north"))
        print(f"view('north').to_dict(events={events}) at ply {game.ply} ({n} events): {us:.0f} µs")


if __name__ == "__main__":
    for name in junqi.rule_sets():
        bench_playouts(name, 2000 if name == "classic" else 500)
    bench_threads()
    bench_calls()
    bench_view()
