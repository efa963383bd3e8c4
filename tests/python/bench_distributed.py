"""Throughput of junqi.distributed (not a test): games/s in one process and on a local
Ray cluster with 1 and 2 workers, and the cost of a task against its batch size.

    .venv/bin/python tests/python/bench_distributed.py [--games 400] [--rules classic]

Prints a Markdown table (docs/distributed.md quotes one run). Needs the ray extra.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # bind 127.0.0.1
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray  # noqa: E402

from junqi.distributed import generate  # noqa: E402


def timed(rules: str, games: int, batch: int, address: str | None,
          max_plies: int | None = None, cpu: bool = False, repeat: int = 3) -> float:
    """The best of ``repeat`` runs: wall seconds (or this process's CPU seconds)."""
    best = float("inf")
    for _ in range(repeat):
        out = tempfile.mkdtemp(prefix="jqbench")
        try:
            clock = time.process_time if cpu else time.perf_counter
            start = clock()
            generate(rules, games, out, address=address, batch=batch, seed=1,
                     max_plies=max_plies, progress=False)
            best = min(best, clock() - start)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    n = args.games
    print(f"load average before: {os.getloadavg()}")
    print("| setup | games | batch | seconds | games/s |")
    print("|---|---|---|---|---|")
    timed(args.rules, 20, 10, "local-process", repeat=1)     # imports, caches
    t = timed(args.rules, n, 50, "local-process")
    print(f"| one process, no Ray | {n} | 50 | {t:.2f} | {n / t:.0f} |")
    t = timed(args.rules, n, 50, "local-process", cpu=True)
    print(f"| one process, per CPU-second | {n} | 50 | {t:.2f} CPU | {n / t:.0f} |")
    for cpus in (1, 2):
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        timed(args.rules, 2 * cpus, 1, None)           # warm the worker pool
        t = timed(args.rules, n, 50, None)
        print(f"| Ray, {cpus} worker{'s' if cpus > 1 else ''} | {n} | 50 | {t:.2f} | {n / t:.0f} |")
        if cpus == 2:
            print()
            print("Per-task cost on 2 workers (games cut to 1 ply, so the task is nearly all overhead):")
            print()
            print("| batch | tasks | seconds | ms per task (wall x workers / tasks) |")
            print("|---|---|---|---|")
            for batch, tasks in ((1, 200), (10, 100), (100, 40)):
                t = timed(args.rules, batch * tasks, batch, None, max_plies=1)
                print(f"| {batch} | {tasks} | {t:.2f} | {1000 * t * cpus / tasks:.1f} |")
            t = timed(args.rules, 400, 100, "local-process", max_plies=1)
            print(f"| (one process, per 1-ply game) | 400 games | {t:.2f} | {1000 * t / 400:.2f} per game |")
        ray.shutdown()
    driver_cost(args.rules)
    print(f"load average after: {os.getloadavg()}")


def driver_cost(rules: str, games: int = 400) -> None:
    """What the driver spends per game: unpickling a task's rows, writing the shard."""
    import pathlib
    import pickle

    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    from junqi.distributed.shards import write_atomic

    out = pathlib.Path(tempfile.mkdtemp(prefix="jqbench"))
    try:
        generate(rules, games, out, address="local-process", batch=games, seed=1,
                 progress=False)
        table = pq.read_table(out / "games")
        blob = pickle.dumps(table)
        start = time.process_time()
        for k in range(3):
            pickle.loads(blob)
            write_atomic(table, out / f"copy-{k}.parquet")
        per_game = (time.process_time() - start) / 3 / games
        size = sum(p.stat().st_size for p in (out / "games").iterdir()) / games
        print(f"\ndriver: {1000 * per_game:.2f} ms CPU per game (receive + write); "
              f"rows {table.nbytes / games / 1000:.0f} KB a game in memory, "
              f"{size / 1000:.1f} KB on disk")
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
