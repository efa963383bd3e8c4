"""Playing a batch of seeded games with the players' policies (no Ray needed here).

A policy is one of:

- ``"random"``: the built-in random player, uniform over the legal actions, drawing
  from the game's own generator (``GameSeeds.policy``);
- an agent's name (``"greedy"``, ``"search:3"``, ``"search:iters=200"``, … — see
  ``junqi.Agent``): the engine's agent plays the seat from that seat's information
  alone, deploying its own setup; each seat of each game gets its own agent, seeded
  from the game's policy seed and the seat (``agent_seed``), so its choices do not
  depend on the batching;
- a picklable callable ``(observation, mask) -> action id``, given the acting seat's
  observation (``float32 [channels, points]``, ``Game.observation``) and action mask
  (``int8 [action_space]``), like the Gymnasium adapter's opponent;
- an actor: any object with a method ``act`` whose ``act.remote(observations, masks)``
  returns a Ray object reference to the actions — a Ray actor handle, typically one
  holding a model. It is called once per round of a batch with every game of the
  batch that waits for it: ``observations float32 [B, channels, points]``, ``masks
  int8 [B, action_space]``, returning ``B`` action ids.

The games of a batch are stepped in rounds (one action in every unfinished game per
round), but each game's actions depend only on that game: its seeds and its policies.
For the output to be the same whatever the batching, a callable or an actor must
answer from its arguments alone (a deterministic function of the observation and
mask). An action outside the mask raises ``IllegalActionError`` naming the game and
ply, and stops the run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, List, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from .._junqi import Agent, Game, IllegalActionError, OutOfRangeError, RuleSet, UnknownNameError
from .._rl import new_game, team_rewards
from .seeds import game_seeds

__all__ = [
    "Callback",
    "GameSpec",
    "PlayedGame",
    "Policy",
    "Steps",
    "agent_seed",
    "describe_policy",
    "is_agent_spec",
    "is_actor",
    "play_batch",
    "seat_teams",
]

Callback = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], Any]
"""A per-state policy: ``(observation, mask) -> action id``."""

Policy = Union[str, Callback, Any]
"""``"random"``, an agent's name (``"greedy"``, ``"search:3"``), a callable
``(observation, mask) -> action id``, or an actor handle with a batched ``act``
method (see the module's docstring)."""

_U64 = 1 << 64


def is_agent_spec(policy: Policy) -> bool:
    """Whether ``policy`` names one of the engine's agents other than ``"random"``
    (which stays the built-in random player of the game's generator)."""
    return isinstance(policy, str) and policy != "random" and _builds_an_agent(policy)


@functools.lru_cache(maxsize=64)
def _builds_an_agent(spec: str) -> bool:
    try:
        Agent(spec, seed=0)
    except (UnknownNameError, OutOfRangeError):
        return False
    return True


def agent_seed(policy_seed: int, seat: int) -> int:
    """The seed of the agent playing seat ``seat`` (an index into ``rules.sides``) of
    the game whose policy seed is ``policy_seed`` (``GameSeeds.policy``)."""
    return (policy_seed ^ (0x9E3779B97F4A7C15 * (seat + 1))) % _U64


def is_actor(policy: Policy) -> bool:
    """Whether ``policy`` is an actor (has ``act.remote``), e.g. a Ray actor handle."""
    act = getattr(policy, "act", None)
    return act is not None and hasattr(act, "remote")


def check_policy(name: str, policy: Policy) -> None:
    """Refuses what is not a policy, with the agent's name."""
    if isinstance(policy, str):
        if policy == "random":
            return
        try:
            Agent(policy, seed=0)
        except (UnknownNameError, OutOfRangeError) as e:
            raise ValueError(
                f"unknown built-in policy {policy!r} for {name!r} ({e}): the "
                "built-ins are 'random' and the agents ('greedy', 'search:3', ...); "
                "pass a callable (observation, mask) -> action or an actor"
            ) from None
    elif not (callable(policy) or is_actor(policy)):
        raise TypeError(
            f"policy {name!r} is {type(policy).__name__}: expected 'random', an agent's "
            "name, a callable "
            "(observation, mask) -> action, or an actor with act.remote"
        )


def describe_policy(policy: Policy) -> str:
    """A short stable description of a policy (kept in a run's manifest)."""
    if isinstance(policy, str):
        return policy
    if is_actor(policy):
        return "actor"
    target = policy
    module = getattr(target, "__module__", None) or type(target).__module__
    qualname = getattr(target, "__qualname__", None) or type(target).__qualname__
    return f"callable:{module}.{qualname}"


def seat_teams(rules: RuleSet) -> list[list[int]]:
    """The teams as lists of seat indices (into ``rules.sides``); a rule set without
    teams has one team per seat."""
    sides = rules.sides
    if rules.teams:
        return [[sides.index(s) for s in team] for team in rules.teams]
    return [[i] for i in range(len(sides))]


@dataclass(frozen=True)
class GameSpec:
    """One game to play: its index in the run, and the agent of each seat."""

    index: int
    agents: tuple[str, ...]
    """The agent (a key of the policies) playing each seat, in ``rules.sides`` order."""


@dataclass
class Steps:
    """Per-step training data of some games, column by column."""

    game: List[int] = field(default_factory=list)
    ply: List[int] = field(default_factory=list)
    seat: List[str] = field(default_factory=list)
    action: List[int] = field(default_factory=list)
    reward: List[float] = field(default_factory=list)
    outcome: List[float] = field(default_factory=list)
    observation: List[npt.NDArray[np.float32]] = field(default_factory=list)
    mask: List[npt.NDArray[np.int8]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.game)

    def extend(self, other: Steps) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(other, name))


@dataclass
class PlayedGame:
    """A game a batch played, ready to be written as one row."""

    index: int
    game_seed: int
    agents: tuple[str, ...]
    winners: list[str]
    reason: Optional[str]
    """The end reason (``EndReason`` id), or None when cut short by ``max_plies``."""
    truncated: bool
    plies: int
    rewards: list[float]
    """Each seat's terminal reward (+1 winning team, -1 the others, 0 draw or cut)."""
    record: str
    player_records: list[str]
    """Each seat's player record (``Game.player_record``), in ``rules.sides`` order."""


class _Live:
    """A game being played, with its generator and its pending step rows."""

    __slots__ = ("spec", "game", "rng", "steps", "agents")

    def __init__(
        self,
        rules: RuleSet,
        run_seed: int,
        spec: GameSpec,
        keep_steps: bool,
        policies: Mapping[str, Policy],
    ):
        seeds = game_seeds(run_seed, spec.index)
        self.spec = spec
        # The engine's agents of this game, one per seat they play (seat index -> agent).
        self.agents: dict[int, Agent] = {}
        for seat, name in enumerate(spec.agents):
            policy = policies[name]
            if isinstance(policy, str) and is_agent_spec(policy):
                self.agents[seat] = Agent(policy, seed=agent_seed(seeds.policy, seat))
        sides = rules.sides
        self.game = new_game(
            rules, seeds.game, {sides[seat]: a for seat, a in self.agents.items()}
        )
        self.rng = np.random.Generator(np.random.PCG64(seeds.policy))
        self.steps: Optional[Steps] = Steps() if keep_steps else None


def play_batch(
    rules: RuleSet,
    run_seed: int,
    specs: Sequence[GameSpec],
    policies: Mapping[str, Policy],
    max_plies: Optional[int] = None,
    steps: bool = False,
) -> tuple[list[PlayedGame], Optional[Steps]]:
    """Plays the games ``specs`` to the end (or to ``max_plies``), each from its seeds.

    Returns one ``PlayedGame`` per spec (in the order of ``specs``) and, with
    ``steps``, every step of every game (in game order, then ply order).
    """
    sides = rules.sides
    seat_of = {side: i for i, side in enumerate(sides)}
    seat_ids = [side.id for side in sides]
    live = [_Live(rules, run_seed, spec, steps, policies) for spec in specs]
    all_random = all(policies[a] == "random" for spec in specs for a in spec.agents)

    def cut(g: Game) -> bool:
        return max_plies is not None and g.ply >= max_plies

    if all_random and not steps:
        # The common case, without the rounds: each game alone, to its end.
        for item in live:
            g, rng = item.game, item.rng
            while not g.is_over and not cut(g):
                ids = g.legal_action_ids()
                g.play_id(ids[int(rng.integers(len(ids)))])
    else:
        pending = list(live)
        while pending:
            waiting: dict[str, list[_Live]] = {}
            for item in pending:
                to_act = item.game.to_act
                assert to_act is not None
                waiting.setdefault(item.spec.agents[seat_of[to_act]], []).append(item)
            for agent, items in waiting.items():
                _act(rules, policies[agent], items, seat_of, seat_ids)
            pending = [x for x in pending if not x.game.is_over and not cut(x.game)]

    played: list[PlayedGame] = []
    all_steps = Steps() if steps else None
    for item in live:
        g = item.game
        result = g.result
        rewards = team_rewards(rules, g)
        seat_rewards = [rewards[side] for side in sides]
        played.append(
            PlayedGame(
                index=item.spec.index,
                game_seed=g.seed,
                agents=item.spec.agents,
                winners=[w.id for w in result.winners] if result is not None else [],
                reason=result.reason.id if result is not None else None,
                truncated=result is None,
                plies=g.ply,
                rewards=seat_rewards,
                record=g.record(),
                player_records=[g.player_record(side) for side in sides],
            )
        )
        if item.steps is not None and all_steps is not None:
            s = item.steps
            by_id = dict(zip(seat_ids, seat_rewards))
            s.outcome = [by_id[seat] for seat in s.seat]
            if result is not None and s.seat:
                # Terminal rewards: the step that ended the game carries the mover's.
                s.reward[-1] = by_id[s.seat[-1]]
            all_steps.extend(s)
    return played, all_steps


def _act(
    rules: RuleSet,
    policy: Policy,
    items: list[_Live],
    seat_of: Mapping[Any, int],
    seat_ids: list[str],
) -> None:
    """One action in each of ``items`` (games waiting for the same agent)."""
    policy_: Any = policy
    need_obs = not isinstance(policy, str) or items[0].steps is not None
    observations: list[npt.NDArray[np.float32]] = []
    masks: list[npt.NDArray[np.int8]] = []
    sides: list[Any] = []
    for item in items:
        side = item.game.to_act
        assert side is not None
        sides.append(side)
        if need_obs:
            observations.append(item.game.observation(side))
            masks.append(np.asarray(item.game.action_mask(), dtype=np.int8))
    if policy == "random":
        actions = []
        for item in items:
            ids = item.game.legal_action_ids()
            actions.append(ids[int(item.rng.integers(len(ids)))])
    elif isinstance(policy, str):
        # An engine agent: each game's own agent of that seat, from its information.
        actions = []
        for item, side in zip(items, sides):
            choice = item.agents[seat_of[side]].choose(item.game, side).id
            assert choice is not None
            actions.append(choice)
    elif is_actor(policy):
        import ray

        answer = ray.get(policy_.act.remote(np.stack(observations), np.stack(masks)))
        actions = [int(a) for a in np.asarray(answer).reshape(-1)]
        if len(actions) != len(items):
            raise ValueError(
                f"the actor answered {len(actions)} actions for {len(items)} games"
            )
    else:
        actions = [int(policy_(o, m)) for o, m in zip(observations, masks)]
    for k, item in enumerate(items):
        g = item.game
        if item.steps is not None:
            s = item.steps
            s.game.append(item.spec.index)
            s.ply.append(g.ply)
            s.seat.append(seat_ids[seat_of[sides[k]]])
            s.action.append(actions[k])
            s.reward.append(0.0)
            s.observation.append(observations[k])
            s.mask.append(masks[k])
        if not g.is_legal(actions[k]):
            raise IllegalActionError(
                f"game {item.spec.index}, ply {g.ply}: the policy of "
                f"{seat_ids[seat_of[sides[k]]]} chose action {actions[k]}, which is not "
                "legal there"
            )
        g.play_id(actions[k])
