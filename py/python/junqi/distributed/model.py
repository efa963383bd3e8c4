"""``fit_model``: an opponent model (modelled beliefs) counted from self-play games
played over Ray; ``fit_eval``: the evaluation's weights fitted to such games."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Optional, Union

from .._junqi import EvalFit, Game, OpponentModel, RuleSet
from .play import Policy, describe_policy
from .selfplay import RulesArg, generate
from .shards import _read, finished_ranges, shard_path

__all__ = ["fit_model", "count_run", "fit_eval", "fit_eval_run"]


def _run_games(out: Union[str, "os.PathLike[str]"]) -> Iterator[Game]:
    """Every game of a run directory written by ``generate`` (its ``games`` shards'
    records), in game order."""
    out = Path(out)
    for start, stop in sorted(finished_ranges(out)):
        records = _read(shard_path(out, "games", start, stop), ["record"]).column("record").to_pylist()
        for record in records:
            yield Game.from_record(record)


def count_run(rules: RulesArg, out: Union[str, "os.PathLike[str]"], source: str = "") -> OpponentModel:
    """An opponent model counted from every game of a run directory written by
    ``generate`` (its ``games`` shards' records), in game order."""
    ruleset = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    model = OpponentModel(ruleset, source)
    for game in _run_games(out):
        model.count(game)
    return model


def fit_model(
    rules: RulesArg,
    games: int,
    out: Union[str, "os.PathLike[str]"],
    policy: Policy = "greedy",
    *,
    address: Optional[str] = None,
    batch: int = 100,
    seed: Optional[int] = None,
    max_plies: Optional[int] = 1000,
    progress: bool = True,
) -> OpponentModel:
    """Plays ``games`` self-play games of ``policy`` (default the greedy agent) with
    ``generate`` — on Ray: ``address`` as there (None: a local cluster, ``"auto"``: the
    running one, ``"local-process"``: no Ray) — into the run directory ``out``, then
    counts them into an ``OpponentModel`` (``model.to_json()`` is the file the engine
    ships, see docs/inference.md). The same arguments and ``seed`` give the same model,
    whatever the number of workers; an interrupted run resumes."""
    result = generate(
        rules, games, out, policy, address=address, batch=batch, seed=seed, max_plies=max_plies, progress=progress
    )
    source = (
        f"{games} self-play games of {describe_policy(policy)}, run seed {result.seed}, at most {max_plies} plies: "
        f"junqi.distributed.fit_model (docs/inference.md)"
    )
    return count_run(rules, out, source)


def fit_eval_run(rules: RulesArg, out: Union[str, "os.PathLike[str]"], source: str = "", every: int = 3) -> str:
    """The evaluation's weights fitted to every game of a run directory written by
    ``generate`` (its ``games`` shards' records, in game order): the JSON of a weights
    file (``EvalFit``; docs/agents.md, "The evaluation")."""
    ruleset = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    fit = EvalFit(ruleset, every)
    for game in _run_games(out):
        fit.count(game)
    return fit.fit(source)


def fit_eval(
    rules: RulesArg,
    games: int,
    out: Union[str, "os.PathLike[str]"],
    policy: Policy = "greedy:eval=derived",
    *,
    address: Optional[str] = None,
    batch: int = 100,
    seed: Optional[int] = None,
    max_plies: Optional[int] = 1000,
    every: int = 3,
    progress: bool = True,
) -> str:
    """Plays ``games`` self-play games of ``policy`` (default the greedy agent with the
    derived weights) with ``generate`` — on Ray: ``address`` as there (None: a local
    cluster, ``"auto"``: the running one, ``"local-process"``: no Ray) — into the run
    directory ``out``, then fits the evaluation's weights to their results (Texel's
    method, ``EvalFit``): the JSON of the weights file the engine ships per rule family
    (``core/data/eval/``, docs/agents.md). The same arguments and ``seed`` give the
    same file, whatever the number of workers; an interrupted run resumes."""
    result = generate(
        rules, games, out, policy, address=address, batch=batch, seed=seed, max_plies=max_plies, progress=progress
    )
    source = (
        f"{games} self-play games of {describe_policy(policy)}, run seed {result.seed}, every {every} plies, "
        f"at most {max_plies} plies: junqi.distributed.fit_eval (docs/agents.md)"
    )
    return fit_eval_run(rules, out, source, every)
