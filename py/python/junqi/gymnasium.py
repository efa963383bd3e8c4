"""A single-agent Gymnasium environment: one seat against a fixed opponent policy.

``pip install ./py[rl]`` brings Gymnasium. ::

    from junqi.gymnasium import env

    e = env(rules="classic", seat="south")      # a random opponent
    obs, info = e.reset(seed=1)
    terminated = truncated = False
    while not (terminated or truncated):
        action = e.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(action)

The observation is the PettingZoo adapter's: ``{"observation": float32 [channels,
points], "action_mask": int8 [action_space]}``; ``info["action_mask"]`` holds the mask
too. Every other seat (siguo: the partner as well) is played by the opponent policy, a
callable ``(observation, mask) -> action id`` given that seat's observation and mask,
or the name of one of the engine's agents (``env(opponent="greedy")``,
``"search:3"``: see ``junqi.Agent``), which then deploys and plays every other seat
from that seat's information alone.
See the "Reinforcement learning" section of docs/python.md.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, SupportsInt, Union

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ._junqi import Agent, Game, RuleSet, Side, rule_sets
from ._rl import ModelArg, Observation, RulesArg, new_game, observation_space, resolve_model, team_rewards

__all__ = ["env", "env_id", "JunqiEnv", "Opponent", "random_opponent"]

Opponent = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], SupportsInt]
"""An opponent policy: (observation of its seat, action mask) -> action id."""


def random_opponent(rng: np.random.Generator) -> Opponent:
    """A policy that picks a legal action uniformly at random with ``rng``."""

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    return policy


def env(
    rules: RulesArg = "classic",
    seat: str = "south",
    opponent: Union[Opponent, str, None] = None,
    render_mode: Optional[str] = None,
    max_plies: Optional[int] = None,
    illegal_reward: float = -1.0,
    model: ModelArg = None,
) -> JunqiEnv:
    """A ``JunqiEnv``: ``seat`` of ``rules`` against ``opponent`` (random by default)."""
    return JunqiEnv(
        rules=rules,
        seat=seat,
        opponent=opponent,
        render_mode=render_mode,
        max_plies=max_plies,
        illegal_reward=illegal_reward,
        model=model,
    )


class JunqiEnv(gymnasium.Env[Dict[str, Any], np.int64]):
    """One seat of a junqi game against a fixed opponent policy.

    Args:
        rules: the rule set (preset name, rule-set JSON text or dict, or a ``RuleSet``).
        seat: the side the agent plays (``"south"``, …).
        opponent: the policy of every other seat, ``(observation, mask) -> action id``;
            or an agent's name (``"greedy"``, ``"search:3"``, …): each other seat is
            then deployed and played by its own ``junqi.Agent`` of that name, seeded
            from ``reset``'s seed; ``None`` picks uniformly among the legal actions
            with a generator seeded from ``reset``'s seed.
        render_mode: ``None``, ``"ansi"`` (the seat's text view) or ``"svg"``.
        max_plies: truncate the episode once the game has this many plies.
        illegal_reward: the reward for an action outside the mask, which ends the
            episode (``terminated``, ``info["illegal_action"]`` True; the game is left
            as it was).
        model: ``None`` (the default), or the opponent model (``"shipped"``,
            ``"plain"``, a model's JSON or an ``OpponentModel``) whose
            ``modelled:<kind>`` planes follow the other channels of the observation
            (``RuleSet.observation_spec(modelled=True)``).

    Rewards are terminal: +1 when the seat's team wins, -1 when it loses, 0 for a draw.
    If the seat is eliminated while the game goes on (siguo), the opponent policy plays
    the game out and the episode ends with the team's result.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "svg"], "render_fps": 1}

    def __init__(
        self,
        rules: RulesArg = "classic",
        seat: str = "south",
        opponent: Union[Opponent, str, None] = None,
        render_mode: Optional[str] = None,
        max_plies: Optional[int] = None,
        illegal_reward: float = -1.0,
        model: ModelArg = None,
    ) -> None:
        super().__init__()
        self.rules: RuleSet = rules if isinstance(rules, RuleSet) else RuleSet(rules)
        self.model = resolve_model(self.rules, model)
        sides = {side.id: side for side in self.rules.sides}
        if seat not in sides:
            raise ValueError(
                f"seat {seat!r} is not a seat of {self.rules.name} ({', '.join(sides)})"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        if max_plies is not None and max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        self.seat: Side = sides[seat]
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.illegal_reward = float(illegal_reward)
        self._agent_spec: Optional[str] = None
        if isinstance(opponent, str):
            Agent(opponent, seed=0)  # an unknown name fails here (UnknownNameError)
            self._agent_spec, opponent = opponent, None
        self._opponent = opponent
        self._policy: Opponent = opponent or random_opponent(np.random.default_rng(0))
        # The engine's agents of the other seats (with an agent's name as opponent).
        self._agents: dict[Side, Agent] = {}
        self.observation_space = observation_space(self.rules, modelled=self.model is not None)
        self.action_space = spaces.Discrete(self.rules.action_space)
        self.game: Optional[Game] = None
        self._done = True

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game (every seat deployed at random) played up to the seat's turn.

        The game and the default opponent's choices come from ``seed``.
        """
        super().reset(seed=seed)
        for _ in range(100):
            game_seed = int(self.np_random.integers(0, 2**63 - 1))
            if self._agent_spec is not None:
                self._agents = {
                    side: Agent(self._agent_spec, seed=int(self.np_random.integers(0, 2**63 - 1)))
                    for side in self.rules.sides
                    if side != self.seat
                }
            elif self._opponent is None:
                self._policy = random_opponent(
                    np.random.default_rng(int(self.np_random.integers(0, 2**63 - 1)))
                )
            self.game = new_game(self.rules, game_seed, self._agents)
            self._play_opponents()
            # A game the opponents finish before the seat's first move (possible only
            # with a custom rule set) is no episode: deal again.
            if not self.game.is_over:
                break
        else:
            raise RuntimeError(
                f"100 games of {self.rules.name} ended before {self.seat.id} could move"
            )
        self._done = False
        observation = self._observe()
        return observation, self._info(observation)

    def step(
        self, action: SupportsInt
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Plays ``action`` for the seat, then the opponents up to the seat's next turn."""
        game = self._require_game()
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        action_id = int(action)
        if not (0 <= action_id < self.rules.action_space) or not game.is_legal(action_id):
            self._done = True
            observation = self._observe()
            info = self._info(observation)
            info["illegal_action"] = True
            return observation, self.illegal_reward, True, False, info
        game.play_id(action_id)
        self._play_opponents()
        reward = 0.0
        terminated = game.is_over
        if terminated:
            reward = team_rewards(self.rules, game)[self.seat]
        truncated = not terminated and self._truncated()
        self._done = terminated or truncated
        observation = self._observe()
        return observation, reward, terminated, truncated, self._info(observation)

    def render(self) -> Optional[str]:
        """The seat's text view (``"ansi"``) or its SVG picture (``"svg"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        view = self._require_game().view(self.seat)
        return view.to_svg() if self.render_mode == "svg" else str(view)

    def _play_opponents(self) -> None:
        """Lets the opponent policy move until the seat is to act, or the game ends.

        An eliminated seat is never to act again: then the game is played out.
        """
        game = self._require_game()
        while not game.is_over and game.to_act != self.seat and not self._truncated():
            side = game.to_act
            assert side is not None
            if side in self._agents:
                self._agents[side].act(game, side)
                continue
            mask = np.asarray(game.action_mask(), dtype=np.int8)
            game.play_id(int(self._policy(game.observation(side), mask)))

    def _truncated(self) -> bool:
        return self.max_plies is not None and self._require_game().ply >= self.max_plies

    def _observe(self) -> Observation:
        game = self._require_game()
        if not self._done and not game.is_over and game.to_act == self.seat and not self._truncated():
            mask = np.asarray(game.action_mask(), dtype=np.int8)
        else:
            mask = np.zeros(self.rules.action_space, dtype=np.int8)
        return {"observation": game.observation(self.seat, model=self.model), "action_mask": mask}

    def _info(self, observation: Observation) -> dict[str, Any]:
        return {"action_mask": observation["action_mask"], "ply": self._require_game().ply}

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def env_id(rules: RulesArg) -> str:
    """The Gymnasium id a preset is registered under: ``"junqi/<preset>-v0"``."""
    name = rules.name if isinstance(rules, RuleSet) else str(rules)
    return f"junqi/{name}-v0"


def _register_presets() -> None:
    """Registers every preset on import: ``gymnasium.make("junqi/classic-v0", seat=...,
    opponent=..., max_plies=..., render_mode=...)`` builds a ``JunqiEnv``."""
    for preset in rule_sets():
        name = env_id(preset)
        if name not in gymnasium.registry:
            gymnasium.register(
                id=name,
                entry_point=f"{__name__}:JunqiEnv",
                kwargs={"rules": preset},
                disable_env_checker=False,
            )


_register_presets()
