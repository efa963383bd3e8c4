"""junqi.distributed: seeded self-play on Ray into resumable Parquet shards, and the
round-robin evaluation with Elo.

A local cluster (``ray.init(num_cpus=2)``) and a two-node cluster on loopback (two
``ray start`` processes on the loopback addresses 127.0.0.2 and 127.0.0.3, guarded by a
fresh token, stopped afterwards) each play the same run as
a single process does, and must write the same rows; a worker killed mid-run costs
nothing (its task is retried, every game is written once); a deleted shard is the only
one a re-run plays again. Needs the ``ray`` extra (``pip install "./py[ray]"``).
"""

from __future__ import annotations

import io
import json
import math
import os
import pathlib
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt
import pytest

# Set before Ray is imported (it reads them then). The driver and its local cluster
# bind 127.0.0.1 only (Ray's switch for one-machine clusters); token authentication
# with a fresh token of this module's own, which the ``ray start`` processes inherit.
_SAVED_ENV = {k: os.environ.get(k) for k in (
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED", "RAY_AUTH_MODE",
    "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")}
os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_USAGE_STATS_ENABLED="0",
                  RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
os.environ.pop("RAY_ADDRESS", None)

ray: Any = pytest.importorskip(
    "ray", reason='junqi.distributed needs the ray extra: pip install "./py[ray]"'
)
pq: Any = pytest.importorskip(
    "pyarrow.parquet", reason='junqi.distributed needs the ray extra: pip install "./py[ray]"'
)

import junqi  # noqa: E402
from junqi.distributed import (  # noqa: E402
    Evaluation,
    Progress,
    elo_ratings,
    evaluate,
    game_seeds,
    generate,
)
from junqi.distributed.__main__ import main as cli  # noqa: E402

# Policies defined here travel to Ray's workers by value (the workers cannot import
# this test module).
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])



@pytest.fixture(scope="module", autouse=True)
def ray_environment() -> Iterator[None]:
    """Gives the environment back after this module."""
    yield
    for key, value in _SAVED_ENV.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "distributed.md"

# Short games: a draw after 30 plies without a capture, and at most 80 plies.
SHORT = {"extends": "classic", "name": "short", "options": {"no_capture_draw_plies": 30}}
MAX_PLIES = 80
GAMES, BATCH, SEED = 40, 10, 2026


def picky(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
    """A deterministic policy of the observation and mask alone."""
    ids = np.flatnonzero(mask)
    return int(ids[int(observation.sum() * 16) % len(ids)])


class Reporting:
    """``picky``, slowed down, that leaves its process id in ``folder`` (for the test
    that kills a worker in the middle of a task)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        mark = os.path.join(self.folder, str(os.getpid()))
        if not os.path.exists(mark):
            with open(mark, "w") as f:
                f.write("up")
        time.sleep(0.002)
        return picky(observation, mask)


def rows(out: pathlib.Path, kind: str = "games") -> list[dict[str, Any]]:
    """Every row of a run's shards of ``kind``, sorted by game (and ply)."""
    table = pq.read_table(out / kind)
    keys = [("game", "ascending")] + ([("ply", "ascending")] if kind == "steps" else [])
    return list(table.sort_by(keys).to_pylist())


def shard_names(out: pathlib.Path) -> list[str]:
    return sorted(os.listdir(out / "games"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The run played in this process, without Ray: what every cluster must write."""
    out = tmp_path_factory.mktemp("reference")
    generate(SHORT, GAMES, out, address="local-process", batch=BATCH, seed=SEED,
             steps=True, max_plies=MAX_PLIES, progress=False)
    return out


# --- without a cluster --------------------------------------------------------------


def test_game_seeds_are_sha256_of_run_seed_and_index() -> None:
    import hashlib

    digest = hashlib.sha256(
        b"junqi.distributed/1\x00" + (7).to_bytes(8, "little") + (3).to_bytes(8, "little")
    ).digest()
    seeds = game_seeds(7, 3)
    assert seeds.game == int.from_bytes(digest[:8], "little")
    assert seeds.policy == int.from_bytes(digest[8:16], "little")
    assert game_seeds(7, 3) != game_seeds(7, 4) != game_seeds(8, 3)
    # The bounds: 0 and 2^64 - 1 are seeds and indices, -1 and 2^64 are refused, each
    # with the number and what it should be.
    top = (1 << 64) - 1
    for run_seed, index in [(0, 0), (top, 0), (0, top), (top, top)]:
        g = game_seeds(run_seed, index)
        d = hashlib.sha256(b"junqi.distributed/1\x00" + run_seed.to_bytes(8, "little")
                           + index.to_bytes(8, "little")).digest()
        assert g == (int.from_bytes(d[:8], "little"), int.from_bytes(d[8:16], "little"))
    for bad in (-1, top + 1):
        with pytest.raises(ValueError, match=rf"^run seed {bad} is not an unsigned 64-bit integer$"):
            game_seeds(bad, 0)
        with pytest.raises(ValueError, match=rf"^game index {bad} is not an unsigned 64-bit integer$"):
            game_seeds(0, bad)


def test_reference_run_rows(reference: pathlib.Path) -> None:
    games = rows(reference)
    assert [g["game"] for g in games] == list(range(GAMES))
    assert shard_names(reference) == [
        f"games-{s:09d}-{s + BATCH - 1:09d}.parquet" for s in range(0, GAMES, BATCH)
    ]
    rules = junqi.RuleSet(SHORT)
    reasons = set()
    for g in games:
        assert g["rules"] == "short" and g["run_seed"] == SEED
        assert g["game_seed"] == game_seeds(SEED, g["game"]).game
        # The record replays to the game's end; the player records are the seats'.
        replay = junqi.Game.from_record(g["record"])
        assert replay.seed == g["game_seed"] and replay.ply == g["plies"]
        assert g["plies"] <= MAX_PLIES
        if g["truncated"]:
            assert replay.result is None and g["reason"] is None and g["plies"] == MAX_PLIES
        else:
            assert replay.result is not None
            assert g["reason"] == replay.result.reason.id
            assert g["winners"] == [w.id for w in replay.result.winners]
        for side in rules.sides:
            assert g[f"player_record_{side.id}"] == replay.player_record(side)
        reasons.add(g["reason"])
    assert len(reasons) > 1, "the short rule set should end games in several ways"
    steps = rows(reference, "steps")
    assert len(steps) == sum(g["plies"] for g in games)
    # A step holds the mover's observation and mask; the action is legal there.
    first = steps[0]
    replay = junqi.Game(rules, seed=games[0]["game_seed"])
    for side in rules.sides:
        replay.deploy_random(side)
    assert first["game"] == 0 and first["ply"] == 0 and first["seat"] == "south"
    assert np.array_equal(np.flatnonzero(first["mask"]), replay.legal_action_ids())
    np.testing.assert_array_equal(
        np.asarray(first["observation"], dtype=np.float32),
        replay.observation("south").reshape(-1),
    )
    assert first["action"] in replay.legal_action_ids()


def test_terminal_rewards_in_steps(tmp_path: pathlib.Path) -> None:
    generate(SHORT, 16, tmp_path, address="local-process", batch=8, seed=SEED, steps=True,
             progress=False)
    games, steps = rows(tmp_path), rows(tmp_path, "steps")
    decided = [g for g in games if g["winners"]]
    assert decided, "no game of the sample was decided"
    for g in games:
        mine = [s for s in steps if s["game"] == g["game"]]
        assert [s["ply"] for s in mine] == list(range(g["plies"]))
        # The step that ended the game carries the mover's terminal reward; every step
        # its seat's outcome (the return).
        assert [s["reward"] for s in mine[:-1]] == [0.0] * (len(mine) - 1)
        assert mine[-1]["reward"] == g[f"reward_{mine[-1]['seat']}"]
        assert all(s["outcome"] == g[f"reward_{s['seat']}"] for s in mine)
    g = decided[0]
    assert {g["reward_south"], g["reward_north"]} == {1.0, -1.0}


def test_output_does_not_depend_on_batching(reference: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # The first 20 games, in batches of 7: the same rows as the first 20 of the run.
    generate(SHORT, 20, tmp_path, address="local-process", batch=7, seed=SEED,
             steps=True, max_plies=MAX_PLIES, progress=False)
    assert rows(tmp_path) == rows(reference)[:20]
    assert rows(tmp_path, "steps") == [s for s in rows(reference, "steps") if s["game"] < 20]


def test_rerun_into_another_run_is_refused(reference: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="holds another run .seed"):
        generate(SHORT, GAMES, reference, address="local-process", batch=BATCH,
                 seed=SEED + 1, steps=True, max_plies=MAX_PLIES, progress=False)
    with pytest.raises(ValueError, match="unknown built-in policy"):
        generate(SHORT, 1, reference, "best", address="local-process")


def test_illegal_action_names_the_game(tmp_path: pathlib.Path) -> None:
    def bad(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        return int(np.flatnonzero(mask == 0)[0])

    with pytest.raises(junqi.IllegalActionError, match=r"game 0, ply 0: the policy of south"):
        generate(SHORT, 2, tmp_path, bad, address="local-process", seed=1, progress=False)
    assert os.listdir(tmp_path / "games") == []


def test_verify_shard_finds_damaged_shards(tmp_path: pathlib.Path) -> None:
    # Issue #27: a truncated, empty or garbage shard counted as done on resume.
    from junqi.distributed.shards import shard_path, verify_shard

    generate(SHORT, 10, tmp_path, address="local-process", batch=2, seed=SEED, steps=True,
             max_plies=40, progress=False)
    ranges = [(s, s + 2) for s in range(0, 10, 2)]
    assert [verify_shard(tmp_path, a, b, SEED, "short", True) for a, b in ranges] == [None] * 5
    paths = [shard_path(tmp_path, "games", a, b) for a, b in ranges]
    data = paths[0].read_bytes()
    paths[0].write_bytes(data[: len(data) // 2])            # truncated
    paths[1].write_bytes(b"")                                 # empty
    paths[2].write_bytes(b"PAR1" + os.urandom(200) + b"PAR1")  # garbage
    flipped = bytearray(paths[3].read_bytes())
    flipped[40] ^= 0xFF                                       # one byte of a data page
    paths[3].write_bytes(bytes(flipped))
    steps = shard_path(tmp_path, "steps", 8, 10)
    steps.write_bytes(steps.read_bytes()[:-100])              # the steps of the last batch
    for (a, b), why in zip(ranges, ["does not read back"] * 4 + ["steps-000000008-000000009"]):
        problem = verify_shard(tmp_path, a, b, SEED, "short", True)
        assert problem is not None and why in problem, problem
    # Wrong rows: a shard of two games renamed as another range.
    other = tmp_path / "other"
    generate(SHORT, 2, other, address="local-process", batch=2, seed=SEED, progress=False)
    good = shard_path(other, "games", 0, 2)
    assert verify_shard(other, 0, 2, SEED, "short", False) is None
    assert "another rule set" in (verify_shard(other, 0, 2, SEED, "classic", False) or "")
    with pytest.raises(junqi.distributed.ForeignShardError, match="run seed 2026, not 7"):
        verify_shard(other, 0, 2, 7, "short", False)
    os.replace(good, shard_path(other, "games", 2, 4))
    assert "does not hold games 2 to 3" in (verify_shard(other, 2, 4, SEED, "short", False) or "")


def test_resume_rewrites_damaged_shards_and_never_mixes_seeds(
    reference: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(reference, run)
    shards = sorted((run / "games").iterdir())
    shards[1].write_bytes(shards[1].read_bytes()[:100])      # truncated
    shards[3].write_bytes(b"")                               # empty
    with pytest.warns(UserWarning, match="rewriting a damaged shard"):
        result = generate(SHORT, GAMES, run, address="local-process", batch=BATCH, seed=None,
                          steps=True, max_plies=MAX_PLIES, progress=False)
    assert result.played == 2 * BATCH and result.shards_skipped == 2
    assert rows(run) == rows(reference) and rows(run, "steps") == rows(reference, "steps")
    # A lost _run.json: seed=None takes the shards' seed, not a fresh one.
    (run / "_run.json").unlink()
    result = generate(SHORT, GAMES, run, address="local-process", batch=BATCH, seed=None,
                      steps=True, max_plies=MAX_PLIES, progress=False)
    assert result.seed == SEED and result.played == 0
    assert json.loads((run / "_run.json").read_text())["seed"] == SEED
    # Another seed, or shards of two seeds, or of another batching: refused.
    (run / "_run.json").unlink()
    with pytest.raises(junqi.distributed.ForeignShardError, match="run seed 2026, not 5"):
        generate(SHORT, GAMES, run, address="local-process", batch=BATCH, seed=5,
                 steps=True, max_plies=MAX_PLIES, progress=False)
    assert not (run / "_run.json").exists()
    with pytest.raises(junqi.distributed.ForeignShardError, match="not a shard of this run"):
        generate(SHORT, GAMES, run, address="local-process", batch=8, seed=SEED,
                 steps=True, max_plies=MAX_PLIES, progress=False)
    foreign = tmp_path / "foreign"
    generate(SHORT, BATCH, foreign, address="local-process", batch=BATCH, seed=SEED + 1,
             steps=True, max_plies=MAX_PLIES, progress=False)
    shutil.copy(sorted((foreign / "games").iterdir())[0], shards[0])
    with pytest.raises(junqi.distributed.ForeignShardError, match="two run seeds"):
        generate(SHORT, GAMES, run, address="local-process", batch=BATCH, seed=None,
                 steps=True, max_plies=MAX_PLIES, progress=False)
    # With the manifest back, the foreign shard is refused, not rewritten.
    shutil.copy(reference / "_run.json", run / "_run.json")
    with pytest.raises(junqi.distributed.ForeignShardError,
                       match="run seed 2027, not 2026: refusing to mix"):
        generate(SHORT, GAMES, run, address="local-process", batch=BATCH, seed=None,
                 steps=True, max_plies=MAX_PLIES, progress=False)
    assert pq.read_table(shards[0]).column("run_seed").to_pylist()[0] == SEED + 1


def test_progress_line() -> None:
    stream = io.StringIO()
    bar = Progress(100, 20, stream=stream, every=0.0)
    bar.advance(30)
    bar.finish()
    lines = stream.getvalue().splitlines()
    assert re.fullmatch(r"junqi: 50/100 games \(50\.0%\), [\d.]+ games/s, ETA \S+", lines[0])
    assert lines[-1].startswith("junqi: 50/100 games") and "done in" in lines[-1]
    quiet = io.StringIO()
    Progress(10, enabled=False, stream=quiet).advance(10)
    assert quiet.getvalue() == ""


def test_elo() -> None:
    # 30 wins and 10 losses: the likelihood's maximum is 400 log10(3) = 190.8 Elo
    # apart; the prior (one draw each against a 0-rated reference) pulls a little in.
    a, b = elo_ratings(2, [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10)
    assert a.elo == pytest.approx(-b.elo)
    assert 175 < a.elo - b.elo < 190.8
    assert a.low < a.elo < a.high and a.high - a.low == pytest.approx(2 * 1.96 * a.stderr)
    even = elo_ratings(3, [(0, 1, 0.5), (1, 2, 1.0), (2, 1, 1.0), (0, 2, 0.5)])
    assert [r.elo for r in even] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    # Winning every game gives a finite rating; more games, a narrower interval.
    few = elo_ratings(2, [(0, 1, 1.0)] * 4)
    many = elo_ratings(2, [(0, 1, 1.0), (0, 1, 0.0)] * 50)
    assert np.isfinite(few[0].elo) and few[0].elo > 0
    assert many[0].high - many[0].low < few[0].high - few[0].low


def _log_likelihood(n: int, games: list[tuple[int, int, float]], theta: list[float]) -> float:
    """The documented model written out alone: a Bradley–Terry log-likelihood on the
    log-odds scale plus one virtual draw of each agent against a reference rated 0."""
    def log_p(x: float) -> float:  # log(1 / (1 + e^-x))
        return -math.log1p(math.exp(-x))
    total = sum(s * log_p(theta[i] - theta[j]) + (1 - s) * log_p(theta[j] - theta[i]) for i, j, s in games)
    return total + sum(0.5 * log_p(t) + 0.5 * log_p(-t) for t in theta)


def test_elo_against_the_model_written_out() -> None:
    # Four agents, unequal numbers of games and results (so the ratings' mean before
    # the shift is not 0); the maximum found by plain gradient ascent on the
    # log-likelihood above, the standard errors from its curvature by finite
    # differences: another method, the same definition (the module docstring's).
    games = ([(0, 1, 1.0)] * 7 + [(0, 1, 0.0)] * 3 + [(0, 1, 0.5)] * 2 + [(1, 2, 1.0)] * 4
             + [(2, 1, 1.0)] * 4 + [(0, 2, 1.0)] * 5 + [(0, 2, 0.5)] + [(2, 3, 1.0)])
    n = 4
    theta = [0.0] * n
    h = 1e-6
    for _ in range(4000):
        grad = [(_log_likelihood(n, games, [t + h * (k == i) for k, t in enumerate(theta)])
                 - _log_likelihood(n, games, [t - h * (k == i) for k, t in enumerate(theta)])) / (2 * h)
                for i in range(n)]
        theta = [t + 0.05 * g for t, g in zip(theta, grad)]
    assert max(abs(g) for g in grad) < 1e-7
    assert abs(sum(theta)) > 0.01  # the shift to a mean of 0 moves the ratings by > 0.4 Elo
    scale = 400 / math.log(10)
    mean = sum(theta) / n
    ratings = elo_ratings(n, games)
    assert [r.elo for r in ratings] == pytest.approx([(t - mean) * scale for t in theta], abs=1e-4)
    # Observed information: minus the Hessian of the log-likelihood at the maximum.
    e = 1e-4
    def at(d: dict[int, float]) -> float:
        return _log_likelihood(n, games, [t + d.get(k, 0.0) for k, t in enumerate(theta)])
    info = np.array([[-(at({i: e, j: e} if i != j else {i: 2 * e}) - at({i: e, j: -e} if i != j else {})
                        - at({i: -e, j: e} if i != j else {}) + at({i: -e, j: -e} if i != j else {i: -2 * e}))
                      / (4 * e * e) for j in range(n)] for i in range(n)])
    cov = np.linalg.inv(info)
    for k, r in enumerate(ratings):
        c = np.full(n, -1.0 / n)
        c[k] += 1.0
        assert r.stderr == pytest.approx(math.sqrt(c @ cov @ c) * scale, rel=1e-4)
        assert (r.low, r.high) == pytest.approx((r.elo - 1.96 * r.stderr, r.elo + 1.96 * r.stderr))
    wide = elo_ratings(n, games, z=3.0)[0]
    assert (wide.low, wide.high) == pytest.approx((wide.elo - 3 * wide.stderr, wide.elo + 3 * wide.stderr))


def test_elo_edge_cases_and_refusals() -> None:
    assert elo_ratings(0, []) == []
    # No game: every rating 0, with the prior's standard error alone.
    alone = elo_ratings(1, [])
    assert len(alone) == 1 and alone[0].elo == 0.0 and alone[0].stderr == 0.0
    none = elo_ratings(2, [])
    assert [r.elo for r in none] == [0.0, 0.0]
    # Each θ has variance 1/(1/4) = 4 from its virtual draw; θ_k − mean over two: 4/2.
    assert none[0].stderr == pytest.approx(math.sqrt(2.0) * 400 / math.log(10))
    for bad in (1.5, -0.25):
        with pytest.raises(ValueError, match=r"^a score must lie in \[0, 1\]$"):
            elo_ratings(2, [(0, 1, 1.0), (0, 1, bad)])
    with pytest.raises(ValueError, match="^an agent cannot play itself$"):
        elo_ratings(2, [(0, 1, 1.0), (1, 1, 0.5)])


def test_evaluate_siguo_teams_in_process() -> None:
    result = evaluate("siguo", {"a": "random", "b": picky}, games=2, address="local-process",
                      max_plies=12, progress=False)
    first, second = result.games
    # Game 0 gives a the first team (South and North), game 1 gives it to b.
    assert first.agents == ("a", "b", "a", "b") and second.agents == ("b", "a", "b", "a")
    assert all(row.draws == 2 for row in result.agents)   # cut short: draws


def test_the_table_from_crafted_games() -> None:
    # The table of evaluate, from games whose results are written here: wins, draws and
    # losses by agent and by pair (from the first-named agent's side), the scores, Elo
    # from the (first team's agent, second's, score) triples at the asked confidence,
    # the rows by Elo, and both printed forms.
    from statistics import NormalDist

    from junqi.distributed.tournament import MatchGame, _tabulate

    def game(i: int, agents: tuple[str, ...], winners: tuple[str, ...]) -> MatchGame:
        return MatchGame(i, agents, winners, "flag" if winners else None, 10, "")

    games = [
        game(0, ("a", "b"), ("south",)),   # a beats b
        game(1, ("b", "a"), ("south",)),   # b beats a
        game(2, ("a", "c"), ()),           # a, c draw
        game(3, ("c", "a"), ("north",)),   # a beats c
        game(4, ("b", "c"), ("north",)),   # c beats b
        game(5, ("c", "b"), ("north",)),   # b beats c
        game(6, ("a", "b"), ("north",)),   # b beats a
    ]
    ev = _tabulate(junqi.RuleSet("classic"), 9, ["a", "b", "c"], games, 0.9)
    assert (ev.rules, ev.seed, ev.confidence, ev.games) == ("classic", 9, 0.9, games)
    assert ev.pairs == {("a", "b"): (1, 0, 2), ("a", "c"): (1, 1, 0), ("b", "c"): (1, 0, 1)}
    z = NormalDist().inv_cdf(0.95)
    expected = elo_ratings(3, [(0, 1, 1.0), (1, 0, 1.0), (0, 2, 0.5), (2, 0, 0.0), (1, 2, 0.0),
                               (2, 1, 0.0), (0, 1, 0.0)], z=z)
    rows = {r.name: r for r in ev.agents}
    for k, (name, n, w, d, l, score) in enumerate([("a", 5, 2, 1, 2, 0.5), ("b", 5, 3, 0, 2, 0.6),
                                                   ("c", 4, 1, 1, 2, 0.375)]):
        r = rows[name]
        assert (r.games, r.wins, r.draws, r.losses) == (n, w, d, l), name
        assert r.score == pytest.approx(score)
        e = expected[k]
        assert (r.elo, r.elo_low, r.elo_high, r.elo_stderr) == pytest.approx((e.elo, e.low, e.high, e.stderr))
    assert [r.name for r in ev.agents] == sorted("abc", key=lambda x: -rows[x].elo)
    assert [r.name for r in ev.agents] == ["b", "a", "c"]
    b, a, c = ev.agents
    assert str(ev).splitlines() == [
        "agent  games    W    D    L  score     Elo  90% CI",
        f"b          5    3    0    2  0.600 {b.elo:+7.1f}  [{b.elo_low:+.1f}, {b.elo_high:+.1f}]",
        f"a          5    2    1    2  0.500 {a.elo:+7.1f}  [{a.elo_low:+.1f}, {a.elo_high:+.1f}]",
        f"c          4    1    1    2  0.375 {c.elo:+7.1f}  [{c.elo_low:+.1f}, {c.elo_high:+.1f}]",
        "",
        "pairs (W-D-L of the first against the second):",
        "  a vs b: 1-0-2",
        "  a vs c: 1-1-0",
        "  b vs c: 1-0-1",
    ]
    out = ev.to_dict()
    assert (out["rules"], out["seed"], out["confidence"]) == ("classic", 9, 0.9)
    assert out["pairs"][0] == {"agent": "a", "opponent": "b", "wins": 1, "draws": 0, "losses": 2}
    assert [p["agent"] + p["opponent"] for p in out["pairs"]] == ["ab", "ac", "bc"]
    assert out["agents"][0] == {"name": "b", "games": 5, "wins": 3, "draws": 0, "losses": 2, "score": 0.6,
                              "elo": b.elo, "elo_low": b.elo_low, "elo_high": b.elo_high,
                              "elo_stderr": b.elo_stderr}
    assert out["games"][3] == {"index": 3, "agents": ("c", "a"), "winners": ("north",), "reason": "flag",
                               "plies": 10, "record": ""}
    json.dumps(out)
    # A long name widens the first column; an agent without a game scores 0.
    wide = _tabulate(junqi.RuleSet("classic"), 0, ["a-long-name", "b", "idle"],
                     [game(0, ("a-long-name", "b"), ("south",))], 0.95)
    assert str(wide).splitlines()[0].startswith("agent        games")
    assert {r.name: (r.games, r.score) for r in wide.agents}["idle"] == (0, 0.0)
    # 四国: a team wins when any of its seats is among the winners.
    sg = junqi.RuleSet("siguo")
    team = _tabulate(sg, 0, ["x", "y"], [game(0, ("x", "y", "x", "y"), ("north",)),
                                          game(1, ("x", "y", "x", "y"), ("east", "west")),
                                          game(2, ("y", "x", "y", "x"), ("south", "north"))], 0.95)
    assert team.pairs == {("x", "y"): (1, 0, 2)}


def test_evaluate_in_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    # The round robin as evaluate plays it here (address="local-process"): the policy
    # runs in this process, the seats alternate game by game, the pairs read from the
    # first-named agent's side (names not in alphabetical order), each game carries
    # its end, length and record, the seed and confidence are the ones asked for, and
    # the progress goes to standard error only when asked.
    calls: list[int] = []

    def counting(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    r = evaluate("classic", {"zed": "random", "amy": counting}, games=3, seed=5, batch=2,
                 address="local-process", confidence=0.8, progress=False)
    assert calls and capsys.readouterr().err == ""
    assert [g.agents for g in r.games] == [("zed", "amy"), ("amy", "zed"), ("zed", "amy")]
    assert (r.seed, r.confidence) == (5, 0.8)
    assert list(r.pairs) == [("zed", "amy")] and sum(r.pairs[("zed", "amy")]) == 3
    for g in r.games:
        replay = junqi.Game.from_record(g.record)
        assert replay.result is not None and g.reason == replay.result.reason.id
        assert g.plies == replay.ply > 0
        assert g.winners == tuple(s.id for s in replay.result.winners)
    evaluate("classic", {"a": "random", "b": "random"}, games=1, batch=1, max_plies=4,
             address="local-process", progress=True)
    assert re.search(r"junqi: 1/1 games \(100\.0%\)", capsys.readouterr().err)


def test_evaluate_refusals_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    def run(rules: Any, agents: dict[str, Any], **options: Any) -> None:
        evaluate(rules, agents, address="local-process", progress=False, **options)

    two = {"a": "random", "b": "random"}
    with pytest.raises(ValueError, match="^evaluate needs at least two agents$"):
        run("classic", {"a": "random"})
    with pytest.raises(ValueError, match="^games must be >= 1, not 0$"):
        run("classic", two, games=0)
    with pytest.raises(ValueError, match="^batch must be >= 1, not 0$"):
        run("classic", two, games=1, batch=0)
    for c in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match=rf"^confidence must lie in \(0, 1\), not {c}$"):
            run("classic", two, games=1, confidence=c)
    with pytest.raises(TypeError, match="^policy 'b' is int: expected 'random'"):
        run("classic", {"a": "random", "b": 3}, games=1)
    # Four seats without alliances are four teams: evaluate plays two agents a game.
    free = {"extends": "siguo", "name": "siguo-free", "teams": [["south"], ["east"], ["north"], ["west"]]}
    with pytest.raises(ValueError, match="^siguo-free has 4 teams: evaluate plays two agents a game$"):
        run(free, two, games=1)
    # The documented defaults: 100 games, seed 0, progress on standard error, 95 %.
    r = evaluate("classic", two, max_plies=2, address="local-process")
    assert (len(r.games), r.seed, r.confidence) == (100, 0, 0.95)
    assert "junqi: 100/100 games" in capsys.readouterr().err


def test_cli_local_process(tmp_path: pathlib.Path, reference: pathlib.Path,
                           capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "short.json"
    rules.write_text(json.dumps(SHORT))
    out = tmp_path / "run"
    assert cli(["generate", "--rules", str(rules), "--games", str(GAMES), "--out", str(out),
                "--batch", str(BATCH), "--seed", str(SEED), "--steps",
                "--max-plies", str(MAX_PLIES), "--address", "local-process",
                "--no-progress"]) == 0
    assert "40 games (seed 2026); 40 played now in 4 shards" in capsys.readouterr().out
    assert rows(out) == rows(reference)
    assert cli(["generate", "--rules", str(rules), "--games", str(GAMES), "--out", str(out),
                "--batch", str(BATCH), "--seed", "1", "--address", "local-process"]) == 2
    assert "holds another run" in capsys.readouterr().err
    assert cli(["evaluate", "--rules", str(rules), "--agent", "r=random",
                "--agent", f"p={__name__}:picky", "--games", "2", "--max-plies", "20",
                "--address", "local-process", "--no-progress", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [a["games"] for a in table["agents"]] == [2, 2]


# --- a local cluster: ray.init(num_cpus=2) --------------------------------------------


@pytest.fixture(scope="class")
def local_cluster() -> Iterator[None]:
    """Two CPUs on this machine, every server on 127.0.0.1."""
    tmp = tempfile.mkdtemp(prefix="rq", dir="/tmp")    # short: Ray's socket paths
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=tmp,
             log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.usefixtures("local_cluster")
class TestLocalCluster:
    def test_same_rows_as_one_process(self, reference: pathlib.Path,
                                      tmp_path: pathlib.Path) -> None:
        result = generate(SHORT, GAMES, tmp_path, batch=BATCH, seed=SEED, steps=True,
                          max_plies=MAX_PLIES, progress=False)
        assert result.played == GAMES and len(result.shards_written) == GAMES // BATCH
        assert shard_names(tmp_path) == shard_names(reference)
        assert rows(tmp_path) == rows(reference)
        assert rows(tmp_path, "steps") == rows(reference, "steps")

    def test_resume_plays_only_the_missing_shard(self, reference: pathlib.Path,
                                                 tmp_path: pathlib.Path) -> None:
        shutil.copytree(reference, tmp_path, dirs_exist_ok=True)
        gone = tmp_path / "games" / "games-000000020-000000029.parquet"
        gone.unlink()
        (tmp_path / "steps" / "steps-000000020-000000029.parquet").unlink()
        before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "games").iterdir()}
        result = generate(SHORT, GAMES, tmp_path, batch=BATCH, seed=None, steps=True,
                          max_plies=MAX_PLIES, progress=False)
        assert result.seed == SEED                      # taken from the run's manifest
        assert result.played == BATCH and result.shards_skipped == 3
        assert result.shards_written == [gone]
        after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "games").iterdir()}
        assert {k: v for k, v in after.items() if k != gone.name} == before
        assert rows(tmp_path) == rows(reference)
        assert rows(tmp_path, "steps") == rows(reference, "steps")
        assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]

    def test_killed_worker_costs_no_game(self, tmp_path: pathlib.Path) -> None:
        marks = tmp_path / "pids"
        marks.mkdir()
        expected = tmp_path / "expected"
        generate(SHORT, GAMES, expected, picky, address="local-process", batch=BATCH,
                 seed=SEED, max_plies=MAX_PLIES, progress=False)
        out = tmp_path / "run"
        failure: list[BaseException] = []

        def run() -> None:
            try:
                generate(SHORT, GAMES, out, Reporting(str(marks)), batch=BATCH,
                         seed=SEED, max_plies=MAX_PLIES, progress=False, max_retries=3)
            except BaseException as e:  # noqa: BLE001 (reported below)
                failure.append(e)

        driver = threading.Thread(target=run)
        driver.start()
        deadline = time.monotonic() + 60
        while not os.listdir(marks) and time.monotonic() < deadline:
            time.sleep(0.02)
        victim = int(os.listdir(marks)[0])
        os.kill(victim, signal.SIGKILL)                  # a worker in the middle of a task
        driver.join(120)
        assert not driver.is_alive() and not failure, failure
        assert len(os.listdir(out / "games")) == GAMES // BATCH
        # Every game once, and the same games as one process plays (the policy differs
        # only in its sleeping and its marks).
        played = rows(out)
        assert [g["game"] for g in played] == list(range(GAMES))
        assert played == rows(expected)
        assert len(os.listdir(marks)) >= 2               # another worker took over

    def test_evaluate_on_the_cluster_matches_one_process(self) -> None:
        agents = {"random": "random", "picky": picky}
        here = evaluate(SHORT, agents, games=6, seed=3, address="local-process",
                        batch=4, max_plies=MAX_PLIES, progress=False)
        there = evaluate(SHORT, agents, games=6, seed=3, batch=4, max_plies=MAX_PLIES,
                         progress=False)
        assert isinstance(there, Evaluation)
        assert there.to_dict() == here.to_dict()
        for row in there.agents:
            assert row.games == 6 and row.wins + row.draws + row.losses == 6
            assert row.elo_low < row.elo < row.elo_high
        (pair, (w, d, l)), = there.pairs.items()
        assert pair == ("random", "picky") and w + d + l == 6
        by_name = {row.name: row for row in there.agents}
        assert (by_name["random"].wins, by_name["random"].losses) == (w, l)
        assert sum(row.elo for row in there.agents) == pytest.approx(0.0, abs=1e-6)
        text = str(there)
        assert text.splitlines()[0].split()[:6] == ["agent", "games", "W", "D", "L", "score"]
        assert "random vs picky" in text

    def test_policy_as_actor_example_in_the_docs(self, tmp_path: pathlib.Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
        blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
        example = [b for b in blocks if "# policy as actor" in b]
        assert len(example) == 1, "docs/distributed.md: one example marked '# policy as actor'"
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            namespace: dict[str, Any] = {"__name__": "__doc_example__"}
            exec(compile(example[0], str(DOC), "exec"), namespace)
        finally:
            os.chdir(cwd)
        table = pq.read_table(tmp_path / "actor-run" / "games")
        assert table.num_rows == 20 and set(table.column("game").to_pylist()) == set(range(20))
        # The actor's choices: a second run is the same.
        again = namespace["generate"]("classic", 20, tmp_path / "again",
                                      policy=namespace["model"], batch=10, seed=7,
                                      max_plies=60, progress=False)
        assert again.played == 20
        assert rows(tmp_path / "again") == rows(tmp_path / "actor-run")


# --- two nodes on loopback: ray start --head, then a second node ---------------------


def _ray_start(args: list[str], temp_dir: str) -> subprocess.Popen[bytes]:
    ray_bin = str(pathlib.Path(sys.executable).parent / "ray")
    # A node that joins another needs Ray's multi-node mode (the default on Linux).
    env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    return subprocess.Popen(
        [ray_bin, "start", "--block", "--num-cpus=1", "--disable-usage-stats",
         f"--temp-dir={temp_dir}", f"--dashboard-agent-listen-port={free_port()}",
         f"--metrics-export-port={free_port()}", f"--runtime-env-agent-port={free_port()}",
         *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env=env,
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stops one ``ray start --block`` and every process of its session: its process
    group (the node would drain for up to 30 s; a few are enough here)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(3)
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(process.pid, signal.SIGKILL)          # anything left in its group
    except ProcessLookupError:
        pass


@pytest.fixture(scope="class")
def two_nodes() -> Iterator[str]:
    """A head node at 127.0.0.2 and a second node at 127.0.0.3, both on loopback.

    (Ray turns 127.0.0.1 into the machine's network address for a node that joins a
    cluster, hence the other loopback addresses; in multi-node mode Ray's servers
    listen on every interface — the cluster's token keeps others out.)
    """
    if ray.is_initialized():
        ray.shutdown()
    port = free_port()
    address = f"127.0.0.2:{port}"
    tmp = tempfile.mkdtemp(prefix="rq", dir="/tmp")
    nodes = []
    try:
        nodes.append(_ray_start(
            ["--head", "--node-ip-address=127.0.0.2", f"--port={port}",
             "--include-dashboard=false"], tmp))
        nodes.append(_ray_start(
            [f"--address={address}", "--node-ip-address=127.0.0.3"], tmp))
        deadline = time.monotonic() + 90
        while True:
            try:
                ray.init(address=address, _node_ip_address="127.0.0.2",
                         log_to_driver=False, configure_logging=False)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert time.monotonic() < deadline, "the second node did not join"
            time.sleep(0.5)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for node in reversed(nodes):
            _stop(node)
        shutil.rmtree(tmp, ignore_errors=True)


class NodeMarking:
    """``picky`` that leaves the id of the node it runs on in ``folder``."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def __call__(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        node = ray.get_runtime_context().get_node_id()
        mark = os.path.join(self.folder, str(node))
        if not os.path.exists(mark):
            with open(mark, "w") as f:
                f.write("up")
        time.sleep(0.001)          # a task lasts long enough for the other node to start
        return picky(observation, mask)


class TestTwoNodes:
    def test_same_rows_as_one_process(self, two_nodes: str, tmp_path: pathlib.Path) -> None:
        alive = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
        assert alive == {"127.0.0.2", "127.0.0.3"}
        expected = tmp_path / "expected"
        generate(SHORT, GAMES, expected, picky, address="local-process", batch=BATCH,
                 seed=SEED, steps=True, max_plies=MAX_PLIES, progress=False)
        marks = tmp_path / "nodes"
        marks.mkdir()
        out = tmp_path / "run"
        result = generate(SHORT, GAMES, out, NodeMarking(str(marks)), address=two_nodes,
                          batch=BATCH, seed=SEED, steps=True, max_plies=MAX_PLIES,
                          progress=False)
        assert result.played == GAMES
        assert len(os.listdir(marks)) == 2, "both nodes played"
        assert rows(out) == rows(expected)
        assert rows(out, "steps") == rows(expected, "steps")


def test_fit_model_counts_the_run_it_plays(tmp_path: pathlib.Path) -> None:
    # Six greedy games in this process (no Ray): the model is the run's games counted
    # one by one, the same whatever the batching, and it reads back from its JSON.
    from junqi.distributed import count_run, fit_model

    model = fit_model("classic", 6, tmp_path / "a", address="local-process", batch=4, seed=SEED,
                      max_plies=120, progress=False)
    assert model.games == 6 and model.rules_name == "classic"
    by_hand = junqi.OpponentModel("classic")
    for g in rows(tmp_path / "a"):
        assert by_hand.count(junqi.Game.from_record(g["record"]))
    assert json.loads(by_hand.to_json())["kinds"] == json.loads(model.to_json())["kinds"]
    other = fit_model("classic", 6, tmp_path / "b", address="local-process", batch=3, seed=SEED,
                      max_plies=120, progress=False)
    assert json.loads(other.to_json())["origins"] == json.loads(model.to_json())["origins"]
    assert count_run("classic", tmp_path / "b").games == 6
    beliefs = junqi.Game.from_record(rows(tmp_path / "a")[0]["record"]).beliefs("south")
    assert beliefs.probabilities(model).shape == beliefs.mask().shape


def test_fit_eval_fits_the_run_it_plays(tmp_path: pathlib.Path) -> None:
    # Six greedy games in this process (no Ray): the weights are those of the run's
    # games fitted one by one in order, the same whatever the batching, and an agent's
    # evaluation reads that kind of file (every army kind named).
    from junqi.distributed import fit_eval, fit_eval_run

    text = fit_eval("classic", 6, tmp_path / "a", address="local-process", batch=4, seed=SEED,
                    max_plies=120, progress=False)
    fitted = json.loads(text)
    assert fitted["rules"] == "classic" and fitted["games"] == 6 and fitted["positions"] > 0
    assert "junqi.distributed.fit_eval" in fitted["source"]
    assert sorted(fitted["weights"]["material"]) == sorted(str(k) for k in junqi.RuleSet("classic").army)
    by_hand = junqi.EvalFit("classic")
    for g in rows(tmp_path / "a"):
        assert by_hand.count(junqi.Game.from_record(g["record"]))
    assert by_hand.games == 6 and by_hand.positions == fitted["positions"]
    assert json.loads(by_hand.fit())["weights"] == fitted["weights"]
    other = fit_eval("classic", 6, tmp_path / "b", address="local-process", batch=3, seed=SEED,
                     max_plies=120, progress=False)
    assert json.loads(other)["weights"] == fitted["weights"]
    assert json.loads(fit_eval_run("classic", tmp_path / "b"))["weights"] == fitted["weights"]
    # Refusals: another rule set's game is not counted; too few games, a zero stride.
    assert not by_hand.count(junqi.Game("siguo", seed=1))
    few = junqi.EvalFit("classic")
    with pytest.raises(junqi.OutOfRangeError, match="at least 5 games"):
        few.fit()
    with pytest.raises(junqi.OutOfRangeError, match="every"):
        junqi.EvalFit("classic", every=0)
    assert repr(few) == "EvalFit(games=0, positions=0)"
