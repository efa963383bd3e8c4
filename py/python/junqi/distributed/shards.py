"""Parquet shards named by game range, written atomically; the run's manifest.

A run's directory holds ``_run.json`` (what the run is: rule set, seed, batch, …),
``games/games-AAAAAAAAA-BBBBBBBBB.parquet`` for games ``A`` to ``B`` inclusive (one row
per game) and, with steps, ``steps/steps-AAAAAAAAA-BBBBBBBBB.parquet`` (one row per
ply): ``pyarrow.parquet.read_table(out / "games")`` reads them all. A shard
is written to a hidden temporary file in the same directory and renamed into place, so
a shard that exists was complete when written; the steps shard is renamed before the
games shard, so a games shard means its batch is done.

Shards are written with Parquet's page checksums (CRC-32 of every data page). A run
that resumes does not trust a shard by its name: ``verify_shard`` reads each one back
(checksums verified) and checks its rows — one per game of its range, of this rule set
and run seed, and as many steps as the games have plies — and a shard that fails (a
truncated, empty or garbage file, a flipped bit) is played and written again. A shard
of another run seed, or of another batching, is never overwritten: the run is refused.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from .._junqi import RuleSet
from .play import PlayedGame, Steps

__all__ = [
    "MANIFEST",
    "ForeignShardError",
    "check_manifest",
    "finished_ranges",
    "games_table",
    "shard_path",
    "shard_seeds",
    "steps_table",
    "verify_shard",
    "write_atomic",
]

MANIFEST = "_run.json"
_SHARD = re.compile(r"^games-(\d{9,})-(\d{9,})\.parquet$")


def shard_path(out: Path, kind: str, start: int, stop: int) -> Path:
    """The shard of games ``start`` to ``stop - 1`` (``kind``: ``games`` or ``steps``)."""
    return out / kind / f"{kind}-{start:09d}-{stop - 1:09d}.parquet"


def finished_ranges(out: Path) -> set[tuple[int, int]]:
    """The ``(start, stop)`` game ranges whose games shard exists in ``out``."""
    found = set()
    if (out / "games").is_dir():
        for entry in os.listdir(out / "games"):
            m = _SHARD.match(entry)
            if m:
                found.add((int(m.group(1)), int(m.group(2)) + 1))
    return found


class ForeignShardError(ValueError):
    """A shard in a run's directory that belongs to another run (another run seed or
    another batching): never overwritten, never mixed in."""


def _read(path: Path, columns: Optional[list[str]] = None) -> Any:
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    return pq.read_table(path, columns=columns, page_checksum_verification=True)


def shard_seeds(out: Path) -> dict[int, Path]:
    """The run seeds found in ``out``'s readable games shards, each with one shard
    that holds it (unreadable shards are skipped: they are rewritten anyway)."""
    seeds: dict[int, Path] = {}
    for start, stop in sorted(finished_ranges(out)):
        path = shard_path(out, "games", start, stop)
        try:
            values = _read(path, ["run_seed"]).column("run_seed").to_pylist()
        except Exception:
            continue
        for v in set(values):
            seeds.setdefault(int(v), path)
    return seeds


def verify_shard(
    out: Path, start: int, stop: int, run_seed: int, rules: str, steps: bool
) -> Optional[str]:
    """Checks the shard of games ``start`` to ``stop - 1`` written by the run
    (``rules``, ``run_seed``) in ``out``: None when it is complete, else what is wrong
    with it (it is then to be written again).

    A complete games shard reads back with every page checksum right and holds one row
    per game of its range, in order, each of ``rules`` and ``run_seed``; with
    ``steps``, the steps shard's footer and ``game`` column read back (checksums
    verified; its observation and mask pages, most of the file, are not read) and it
    holds one row per ply of those games.
    Raises ``ForeignShardError`` when the shard holds games of another run seed.
    """
    path = shard_path(out, "games", start, stop)
    if not path.exists():
        return f"{path.name} is missing"
    try:
        games = _read(path)
    except Exception as e:  # pyarrow raises OSError, ArrowInvalid, …
        return f"{path.name} does not read back ({type(e).__name__}: {e})"
    want = stop - start
    if games.num_rows != want:
        return f"{path.name} holds {games.num_rows} rows, {want} games were written"
    missing = {"game", "run_seed", "rules", "plies"} - set(games.column_names)
    if missing:
        return f"{path.name} has no column {sorted(missing)[0]!r}"
    seeds = set(games.column("run_seed").to_pylist())
    if seeds != {run_seed}:
        other = sorted(s for s in seeds if s != run_seed)
        raise ForeignShardError(
            f"{path} holds games of run seed {other[0] if other else None}, not "
            f"{run_seed}: refusing to mix two runs in {out} (move it away, or resume "
            f"with that seed)"
        )
    if games.column("game").to_pylist() != list(range(start, stop)):
        return f"{path.name} does not hold games {start} to {stop - 1} in order"
    if set(games.column("rules").to_pylist()) != {rules}:
        return f"{path.name} holds games of another rule set"
    if steps:
        spath = shard_path(out, "steps", start, stop)
        if not spath.exists():
            return f"{spath.name} is missing"
        try:
            table = _read(spath, ["game"])
        except Exception as e:
            return f"{spath.name} does not read back ({type(e).__name__}: {e})"
        plies = sum(int(p) for p in games.column("plies").to_pylist())
        if table.num_rows != plies:
            return f"{spath.name} holds {table.num_rows} steps, the games have {plies} plies"
        if any(not start <= g < stop for g in set(table.column("game").to_pylist())):
            return f"{spath.name} holds steps of games outside {start} to {stop - 1}"
    return None


def check_manifest(out: Path, manifest: dict[str, Any]) -> Optional[dict[str, Any]]:
    """Writes ``manifest`` to a new run directory, or checks it against the one there.

    Returns the stored manifest (None for a new run). Raises ``ValueError`` if the
    directory holds another run: a different rule set, seed, number of games, batch,
    policy, steps or ``max_plies``.
    """
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    if manifest.get("steps"):
        (out / "steps").mkdir(exist_ok=True)
    path = out / MANIFEST
    if path.exists():
        stored: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for key, value in manifest.items():
            if stored.get(key) != value:
                raise ValueError(
                    f"{out} holds another run ({key}: {stored.get(key)!r} there, "
                    f"{value!r} now); choose another output directory"
                )
        return stored
    _write_text(path, json.dumps(manifest, indent=2, sort_keys=True))
    return None


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_atomic(table: Any, path: Path) -> None:
    """Writes a pyarrow table as Parquet at ``path``: a temporary file, then a rename."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        # Page checksums: a shard damaged on disk fails `verify_shard` on resume.
        pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def games_table(rules: RuleSet, run_seed: int, games: Sequence[PlayedGame]) -> Any:
    """One row per game (see docs/distributed.md for the columns)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    seats = [side.id for side in rules.sides]
    columns: dict[str, Any] = {
        "rules": pa.array([rules.name] * len(games), pa.string()),
        "run_seed": pa.array([run_seed] * len(games), pa.uint64()),
        "game": pa.array([g.index for g in games], pa.int64()),
        "game_seed": pa.array([g.game_seed for g in games], pa.uint64()),
        "winners": pa.array([g.winners for g in games], pa.list_(pa.string())),
        "reason": pa.array([g.reason for g in games], pa.string()),
        "truncated": pa.array([g.truncated for g in games], pa.bool_()),
        "plies": pa.array([g.plies for g in games], pa.int32()),
    }
    for k, seat in enumerate(seats):
        columns[f"agent_{seat}"] = pa.array([g.agents[k] for g in games], pa.string())
    for k, seat in enumerate(seats):
        columns[f"reward_{seat}"] = pa.array([g.rewards[k] for g in games], pa.float32())
    columns["record"] = pa.array([g.record for g in games], pa.string())
    for k, seat in enumerate(seats):
        columns[f"player_record_{seat}"] = pa.array(
            [g.player_records[k] for g in games], pa.string()
        )
    return pa.table(columns)


def steps_table(rules: RuleSet, steps: Steps) -> Any:
    """One row per ply: game, ply, seat, observation, mask, action, reward, outcome."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    channels, points = rules.observation_spec()["shape"]
    size = channels * points
    n = len(steps)
    obs = (
        np.stack(steps.observation).reshape(n * size)
        if n
        else np.zeros(0, dtype=np.float32)
    )
    masks = (
        np.stack(steps.mask).astype(np.bool_).reshape(n * rules.action_space)
        if n
        else np.zeros(0, dtype=np.bool_)
    )
    return pa.table(
        {
            "game": pa.array(steps.game, pa.int64()),
            "ply": pa.array(steps.ply, pa.int32()),
            "seat": pa.array(steps.seat, pa.string()),
            "observation": pa.FixedSizeListArray.from_arrays(
                pa.array(obs, pa.float32()), size
            ),
            "mask": pa.FixedSizeListArray.from_arrays(
                pa.array(masks, pa.bool_()), rules.action_space
            ),
            "action": pa.array(steps.action, pa.int32()),
            "reward": pa.array(steps.reward, pa.float32()),
            "outcome": pa.array(steps.outcome, pa.float32()),
        }
    )
