"""A PettingZoo AEC environment for every junqi rule set (``pip install ./py[rl]``).

::

    from junqi.pettingzoo import env

    e = env(rules="siguo", render_mode="ansi")
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            action = e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are the rule set's seats (side ids: ``"south"``, ``"north"``, …). An observation
is ``{"observation": float32 [channels, points], "action_mask": int8 [action_space]}``
(the mask is all zeros for an agent that is not to act); actions are ids of the rule
set's fixed action space. Rewards are terminal: +1 to every seat of the winning team,
-1 to the others, 0 for a draw. One of the engine's agents can play a seat:
``e.step(e.unwrapped.choose(junqi.Agent("greedy", seed=0)))``. See the "Reinforcement
learning" section of docs/python.md.
"""

from __future__ import annotations

import secrets
from typing import Any, Optional, Union

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ._junqi import Agent, Game, RuleSet, Side
from ._rl import ModelArg, Observation, RulesArg, new_game, observation_space, resolve_model, team_rewards

__all__ = ["env", "raw_env", "RulesArg", "team_rewards", "new_game"]

def env(**kwargs: Any) -> Any:
    """The wrapped environment, as PettingZoo's classic environments build it.

    ``raw_env(**kwargs)`` wrapped in ``TerminateIllegalWrapper`` (an action outside the
    mask ends the game: -1 to the agent that made it, 0 to the others),
    ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. Arguments: see
    ``raw_env``.
    """
    wrapped: Any = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    """A junqi game as a PettingZoo AEC environment (unwrapped).

    Args:
        rules: the rule set (preset name such as ``"classic"``, ``"siguo"``,
            ``"fanqi"``, rule-set JSON text or dict, or a ``RuleSet``).
        render_mode: ``None``, ``"human"`` (``render()`` prints the text view, as
            PettingZoo's classic environments print their boards), ``"ansi"``
            (``render()`` returns the text view) or ``"svg"`` (``render()`` returns the
            SVG picture of the view).
        max_plies: truncate the game after this many plies (``None``: only the rule
            set's own draw limits end it).
        render_seat: the seat whose view ``render()`` shows (``None``: the selected
            agent, ``agent_selection``).
        model: ``None`` (the default), or the opponent model (``"shipped"``,
            ``"plain"``, a model's JSON or an ``OpponentModel``) whose
            ``modelled:<kind>`` planes follow the other channels of every observation:
            each other piece's probability of every kind, weighed by how it has played
            (``RuleSet.observation_spec(modelled=True)``).

    An illegal action (outside the mask) raises ``junqi.IllegalActionError`` here and
    leaves the game unchanged; ``env()`` wraps the environment so that it ends the game
    instead, as PettingZoo's classic environments do.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "svg"],
        "name": "junqi_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: RulesArg = "classic",
        render_mode: Optional[str] = None,
        max_plies: Optional[int] = None,
        render_seat: Optional[str] = None,
        model: ModelArg = None,
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, max_plies, render_seat, model)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        if max_plies is not None and max_plies < 1:
            raise ValueError(f"max_plies must be at least 1, not {max_plies}")
        self.rules: RuleSet = rules if isinstance(rules, RuleSet) else RuleSet(rules)
        self.model = resolve_model(self.rules, model)
        self.render_mode = render_mode
        self.max_plies = max_plies
        self._sides: dict[str, Side] = {side.id: side for side in self.rules.sides}
        if render_seat is not None and render_seat not in self._sides:
            raise ValueError(
                f"render_seat {render_seat!r} is not a seat of {self.rules.name} "
                f"({', '.join(self._sides)})"
            )
        self.render_seat = render_seat
        self.possible_agents: list[str] = list(self._sides)
        self.agents: list[str] = []
        # One space object per agent, so that seeding one does not seed the others.
        self.observation_spaces = {
            agent: observation_space(self.rules, modelled=self.model is not None)
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.rules.action_space) for agent in self.possible_agents
        }
        self.game: Optional[Game] = None
        self.agent_selection: str = self.possible_agents[0]
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self._zero_mask = np.zeros(self.rules.action_space, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        """Starts a new game: every seat deployed at random from ``seed``.

        The same seed gives the same game; ``seed=None`` draws a fresh one.
        """
        self.game = new_game(self.rules, secrets.randbits(63) if seed is None else int(seed))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        to_act = self.game.to_act
        assert to_act is not None, "a freshly deployed game has a side to act"
        self.agent_selection = to_act.id

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation tensor and its action mask (zeros unless it is to act)."""
        game = self._require_game()
        side = self._sides[agent]
        observation = game.observation(side, model=self.model)
        if (
            not game.is_over
            and game.to_act == side
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        ):
            mask = np.asarray(game.action_mask(), dtype=np.int8)
        else:
            mask = self._zero_mask.copy()
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        """Plays ``action`` (an action id) for ``agent_selection``.

        A terminated or truncated agent must step with ``None`` (it is then removed).
        A seat eliminated while play goes on (siguo) is terminated at once but stays
        among the agents, never selected, until the game ends, so that it receives
        its team's reward; then every seat takes its final step.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: step() needs an action id, not None")
        game = self._require_game()
        game.play_id(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        for side in game.eliminated:
            if side.id in self.terminations:
                self.terminations[side.id] = True
        if game.is_over:
            for side, reward in team_rewards(self.rules, game).items():
                if side.id in self.rewards:
                    self.rewards[side.id] = reward
            self.terminations = {a: True for a in self.agents}
        elif self.max_plies is not None and game.ply >= self.max_plies:
            self.truncations = {a: True for a in self.agents}
        self._accumulate_rewards()
        to_act = game.to_act
        if to_act is not None and not game.is_over:
            self.agent_selection = to_act.id
        if game.is_over or (self.max_plies is not None and game.ply >= self.max_plies):
            self._deads_step_first()

    def choose(self, player: Union[Agent, str], seed: Optional[int] = None) -> int:
        """The action id one of the engine's agents chooses for ``agent_selection``,
        from that seat's information alone: an ``Agent``, or an agent's name
        (``"greedy"``, ``"search:3"``: a fresh agent of that name and ``seed`` each
        call). Step with it: ``e.step(e.unwrapped.choose(bot))``.
        """
        game = self._require_game()
        bot = player if isinstance(player, Agent) else Agent(player, seed=seed)
        choice = bot.choose(game, self._sides[self.agent_selection]).id
        assert choice is not None
        return int(choice)

    def render(self) -> Optional[str]:
        """A seat's view: printed (``"human"``, returns None), as text (``"ansi"``) or
        as an SVG picture (``"svg"``).

        The seat is ``render_seat``, else the selected agent. Returns None (with a
        warning) when the environment was made without a render mode.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        game = self._require_game()
        seat = self.render_seat or self.agent_selection
        view = game.view(self._sides[seat])
        if self.render_mode == "svg":
            return view.to_svg()
        if self.render_mode == "human":
            print(view)
            return None
        return str(view)

    def close(self) -> None:
        """Nothing to release (no window is opened)."""

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game
