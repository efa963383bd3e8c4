"""``generate``: plays a run of seeded games over Ray and writes them as Parquet shards."""

from __future__ import annotations

import os
import secrets
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from .._junqi import RuleSet
from .cluster import run_tasks
from .play import GameSpec, Policy, check_policy, describe_policy, play_batch
from .progress import Progress
from .shards import (
    MANIFEST,
    ForeignShardError,
    check_manifest,
    finished_ranges,
    games_table,
    shard_path,
    shard_seeds,
    steps_table,
    verify_shard,
    write_atomic,
)

__all__ = ["GenerateResult", "generate", "play_shard"]

RulesArg = Union[str, Mapping[str, Any], RuleSet]

AGENT = "policy"
"""The agent name every seat has in a generated run (``agent_<seat>`` columns)."""


@dataclass(frozen=True)
class GenerateResult:
    """What ``generate`` did."""

    out: Path
    seed: int
    games: int
    played: int
    """Games played by this call (the others were in shards already there)."""
    shards_written: list[Path]
    shards_skipped: int


def play_shard(
    rules: RuleSet,
    run_seed: int,
    policies: Mapping[str, Policy],
    max_plies: Optional[int],
    steps: bool,
    start: int,
    stop: int,
) -> tuple[Any, Any]:
    """Plays games ``start`` to ``stop - 1`` and returns their games table and steps
    table (None without steps): one Ray task."""
    seats = len(rules.sides)
    specs = [GameSpec(i, (AGENT,) * seats) for i in range(start, stop)]
    played, step_rows = play_batch(rules, run_seed, specs, policies, max_plies, steps)
    games = games_table(rules, run_seed, played)
    return games, (steps_table(rules, step_rows) if step_rows is not None else None)


def generate(
    rules: RulesArg,
    games: int,
    out: Union[str, "os.PathLike[str]"],
    policy: Policy = "random",
    *,
    address: Optional[str] = None,
    batch: int = 100,
    seed: Optional[int] = None,
    steps: bool = False,
    max_plies: Optional[int] = None,
    progress: bool = True,
    max_retries: int = 3,
) -> GenerateResult:
    """Plays ``games`` games of ``rules`` with ``policy`` in every seat and writes them
    to the directory ``out`` as Parquet shards of ``batch`` games each.

    Game ``i`` is seeded from (``seed``, ``i``) alone (``junqi.distributed.game_seeds``),
    so the output is the same for any number of workers. Each batch is a Ray task
    (``max_retries`` reruns a task whose worker died); ``address`` chooses the cluster
    (None: a local one; ``"auto"``: the running one; ``"local-process"``: no Ray).
    Running the same call again skips the shards already written, so an interrupted
    run resumes: each is read back and checked first (``verify_shard``: page
    checksums, one row per game of its range, this run's seed and rule set, the
    steps), and a damaged one is played and written again (with a warning).
    ``seed=None`` takes the seed of the run already in ``out`` (its ``_run.json``, or
    if that is lost its shards'), or a fresh one from the operating system for a new
    run. A directory holding shards of another run seed or batching is refused
    (``ForeignShardError``, a ``ValueError``): two runs are never mixed. ``steps``
    also writes the per-step shards; ``max_plies`` cuts games short (a draw,
    ``truncated``).
    """
    if games < 0:
        raise ValueError(f"games must be >= 0, not {games}")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, not {batch}")
    if max_plies is not None and max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, not {max_plies}")
    check_policy(AGENT, policy)
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    out_dir = Path(out)
    manifest: dict[str, Any] = {
        "format": "junqi-selfplay/1",
        "rules": rule_set.name,
        "rules_json": rule_set.to_json(),
        "seed": seed,
        "games": games,
        "batch": batch,
        "steps": steps,
        "max_plies": max_plies,
        "policy": describe_policy(policy),
    }
    stored_path = out_dir / MANIFEST
    if stored_path.exists():
        if seed is None:
            import json

            seed = int(json.loads(stored_path.read_text(encoding="utf-8"))["seed"])
    else:
        # No manifest (a new run, or a lost _run.json): the shards there, if any, tell
        # the run's seed; a manifest is written only for shards of that one seed.
        found = shard_seeds(out_dir)
        if len(found) > 1:
            a, b = sorted(found)[:2]
            raise ForeignShardError(
                f"{out_dir} holds games of two run seeds ({a} in {found[a].name}, "
                f"{b} in {found[b].name}) and no {MANIFEST}: refusing to add to it"
            )
        if seed is None:
            seed = next(iter(found)) if found else secrets.randbits(63)
        elif found and seed not in found:
            other = next(iter(found))
            raise ForeignShardError(
                f"{found[other]} holds games of run seed {other}, not {seed}: refusing "
                f"to mix two runs in {out_dir} (resume with seed={other}, or choose "
                f"another output directory)"
            )
    manifest["seed"] = seed
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed must be an unsigned 64-bit integer, not {seed}")

    ranges = [(start, min(start + batch, games)) for start in range(0, games, batch)]
    done = finished_ranges(out_dir)
    stray = sorted(done - set(ranges))
    if stray and not stored_path.exists():
        # (With a manifest, check_manifest names the difference: batch, games.)
        raise ForeignShardError(
            f"{shard_path(out_dir, 'games', *stray[0])} is not a shard of this run "
            f"({games} games in batches of {batch}): refusing to mix two runs in {out_dir}"
        )
    check_manifest(out_dir, manifest)
    if stray:
        raise ForeignShardError(
            f"{shard_path(out_dir, 'games', *stray[0])} is not a shard of this run "
            f"({games} games in batches of {batch}): refusing to mix two runs in {out_dir}"
        )

    todo = []
    skipped = skipped_shards = 0
    for start, stop in ranges:
        if (start, stop) in done:
            problem = verify_shard(out_dir, start, stop, seed, rule_set.name, steps)
            if problem is None:
                skipped += stop - start
                skipped_shards += 1
                continue
            warnings.warn(f"rewriting a damaged shard: {problem}", stacklevel=2)
        todo.append((start, stop))
    bar = Progress(games, skipped, enabled=progress)
    written: list[Path] = []
    played = 0
    shared = (rule_set, seed, {AGENT: policy}, max_plies, steps)
    for k, (games_tab, steps_tab) in run_tasks(
        play_shard, shared, todo, address=address, max_retries=max_retries
    ):
        start, stop = todo[k]
        if steps_tab is not None:
            write_atomic(steps_tab, shard_path(out_dir, "steps", start, stop))
        path = shard_path(out_dir, "games", start, stop)
        write_atomic(games_tab, path)
        written.append(path)
        played += stop - start
        bar.advance(stop - start)
    bar.finish()
    return GenerateResult(out_dir, seed, games, played, sorted(written), skipped_shards)
