"""Self-play and evaluation past one machine, on Ray.

``pip install "./py[ray]"`` brings Ray and pyarrow (``import junqi`` needs neither; they
are imported when a run starts). See docs/distributed.md for the guide and the
measurements.

- ``generate(rules, games, out, policy="random", address=None, batch=100, seed=None,
  steps=False)`` plays ``games`` games, each seeded from (run seed, game index) alone
  (``game_seeds``), as Ray tasks of ``batch`` games, and writes Parquet shards named
  by game range — resumable, each game exactly once, the same output for any number
  of workers.
- ``evaluate(rules, agents={name: policy}, games=N)``: a round robin between named
  agents, wins/draws/losses and Elo ratings with confidence intervals.
- ``fit_model(rules, games, out, policy="greedy", address=None, seed=None)``: plays
  self-play games with ``generate`` and counts them into an ``OpponentModel`` (the
  modelled beliefs' data, docs/inference.md); ``count_run(rules, out)`` counts a run
  already written.
- ``fit_eval(rules, games, out, policy="greedy:eval=derived", address=None, seed=None)``:
  plays self-play games with ``generate`` and fits the evaluation's weights to their
  results (``junqi.EvalFit``; docs/agents.md, "The evaluation"); ``fit_eval_run(rules,
  out)`` fits a run already written.
- ``python -m junqi.distributed generate|evaluate ...``: the same from the shell.

A policy is ``"random"`` (the built-in random player), an agent's name (``"greedy"``,
``"search:3"``: the engine's agents, ``junqi.Agent``), a picklable callable
``(observation, mask) -> action id``, or an actor handle with a batched
``act(observations, masks)`` method (``junqi.distributed.play``).
"""

from __future__ import annotations

from .cluster import LOCAL_PROCESS
from .elo import EloRating, elo_ratings
from .model import count_run, fit_eval, fit_eval_run, fit_model
from .play import GameSpec, PlayedGame, Policy, Steps, play_batch
from .progress import Progress
from .seeds import GameSeeds, game_seeds
from .selfplay import GenerateResult, generate
from .shards import ForeignShardError, verify_shard
from .tournament import AgentResult, Evaluation, MatchGame, evaluate

__all__ = [
    "AgentResult",
    "EloRating",
    "Evaluation",
    "ForeignShardError",
    "GameSeeds",
    "GameSpec",
    "GenerateResult",
    "LOCAL_PROCESS",
    "MatchGame",
    "PlayedGame",
    "Policy",
    "Progress",
    "Steps",
    "elo_ratings",
    "count_run",
    "evaluate",
    "fit_eval",
    "fit_eval_run",
    "fit_model",
    "game_seeds",
    "generate",
    "play_batch",
    "verify_shard",
]
