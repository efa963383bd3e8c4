"""What the RL adapters share: the rule-set argument, a random deployed game, the
terminal rewards and the observation space (``junqi.pettingzoo``, ``junqi.gymnasium``
and ``junqi.openspiel`` each need only their own framework on top of this)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Union

import numpy as np
import numpy.typing as npt

from ._junqi import Agent, Game, OpponentModel, RuleSet, Side

if TYPE_CHECKING:
    from gymnasium import spaces

__all__ = [
    "ModelArg",
    "Observation",
    "RulesArg",
    "new_game",
    "observation_space",
    "resolve_model",
    "team_rewards",
]

RulesArg = Union[str, Mapping[str, Any], RuleSet]
"""A rule set: a preset name, rule-set JSON text or dict, or a ``RuleSet``."""

Observation = Dict[str, npt.NDArray[Any]]

ModelArg = Union[str, OpponentModel, None]
"""The opponent model of the observations' ``modelled:<kind>`` planes: ``"shipped"``,
``"plain"``, a model's JSON, an ``OpponentModel``, or ``None`` for no such planes."""


def resolve_model(rules: RuleSet, model: ModelArg) -> Optional[OpponentModel]:
    """``model`` read once for ``rules`` (so that each observation does not parse it
    again): ``None`` stays ``None``; a name or JSON becomes an ``OpponentModel``
    (``OpponentModel.load``: ``ModelError`` if it names none, ``TypeError`` if it is
    not a string)."""
    if model is None or isinstance(model, OpponentModel):
        return model
    return OpponentModel.load(model, rules)


def new_game(
    rules: RuleSet, seed: int, deployers: Optional[Mapping[Side, Agent]] = None
) -> Game:
    """A game of ``rules`` ready for its first move: the seeded start of ``seed``
    (``Game.random_start``), except that the seats of ``deployers`` deploy their
    agents' own setups.

    Every other seat deploys its setup of the seeded start (``Game.deploy_random``
    without a seed), so the same seed (and agents) give the same game, and without
    agents the same game as ``Game.random_start(rules, seed)`` and a ``VectorEnv``
    game of that seed. 翻棋 has no deployment: its deal comes from the seed.
    """
    if not deployers:
        return Game.random_start(rules, seed)
    game = Game(rules, seed=seed)
    deployed = set(game.deployed)
    for side in rules.sides:
        if side in deployed:
            continue
        if deployers is not None and side in deployers:
            deployers[side].deploy(game, side)
        else:
            game.deploy_random(side)
    return game


def team_rewards(rules: RuleSet, game: Game) -> dict[Side, float]:
    """The terminal reward of every seat of a finished game (0 to all while it goes on):
    the core's one reward rule, ``GameResult.reward`` — +1 to every seat of the winning
    team (siguo's partners share, an eliminated seat included), -1 to every other seat,
    0 to everyone for a draw.
    """
    result = game.result
    return {side: 0.0 if result is None else result.reward(side) for side in rules.sides}


def observation_space(rules: RuleSet, modelled: bool = False) -> spaces.Dict:
    """The observation space of every seat: the observation tensor (with the
    ``modelled:<kind>`` planes if ``modelled``) and the action mask (a Gymnasium
    ``Dict`` of two ``Box``es; needs Gymnasium)."""
    from gymnasium import spaces

    channels, points = rules.observation_spec(modelled=modelled)["shape"]
    return spaces.Dict(
        {
            "observation": spaces.Box(
                low=0.0, high=1.0, shape=(channels, points), dtype=np.float32
            ),
            "action_mask": spaces.Box(
                low=0, high=1, shape=(rules.action_space,), dtype=np.int8
            ),
        }
    )
