"""The engine's players: ``Agent`` and a loop that plays a game between agents.

::

    import junqi
    from junqi.agents import Agent, play

    game = junqi.Game("classic", seed=1)
    play(game, {"south": Agent("greedy", seed=1), "north": Agent("search:iters=50", seed=2)})
    print(game.result)

An agent is made from its name (``"random"``, ``"greedy"``, ``"search"`` = ``"search:3"``,
``"search:1"`` … ``"search:5"``, ``"search:iters=N"``, ``"search:ms=N"``: the tree search;
``"pimc"`` with the same budgets: the search it replaced), with an optional ``",threads=N"``, ``",beliefs=plain"`` (the searches
draw armies from the plain beliefs instead of by the opponent model) and ``",eval=derived"``
(the evaluation's weights worked out from the rules instead of the fitted ones the engine
ships; ``"greedy:eval=derived"`` too) and a seed; it sees only the information of the side it plays
(``Agent.choose(game, side)`` gives it that side's information state, never the game).

The same names are policies elsewhere: ``junqi.distributed.generate/evaluate``
(``policy="greedy"``, ``agents={"s": "search:3", "r": "random"}``), the Gymnasium
environment (``junqi.gymnasium.env(opponent="greedy")``) and, in a PettingZoo loop,
``env.unwrapped.choose(agent)`` gives an agent's action id for the selected seat.
See docs/python.md and docs/agents.md.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from ._junqi import Agent, Game, OutOfRangeError, Side

__all__ = ["Agent", "LEVELS", "level", "play"]

LEVELS: dict[int, str] = {n: f"search:{n}" for n in range(1, 6)}
"""The named search levels, 1 (fastest) to 5 (strongest), by number."""


def level(n: int, seed: Optional[int] = None) -> Agent:
    """The search agent of level ``n`` (1 to 5), ``Agent(f"search:{n}", seed)``."""
    if n not in LEVELS:
        raise OutOfRangeError(f"level {n} is not one of 1 to 5")
    return Agent(LEVELS[n], seed=seed)


def play(
    game: Game,
    agents: Union[Mapping[Side, Agent], Mapping[str, Agent]],
    max_plies: Optional[int] = None,
) -> Game:
    """Plays ``game`` to its end (or until it has ``max_plies`` plies) with one agent per
    seat (``{side: agent}``, sides as ``Side`` or ids); seats that have already
    deployed keep their setups, the others deploy the agent's. Returns ``game``.

    Raises ``ValueError`` when a seat of the rule set has no agent.
    """
    by_side: dict[Any, Agent] = dict(agents)
    seats: dict[Side, Agent] = {}
    for side in game.rules.sides:
        agent = by_side.get(side, by_side.get(side.id))
        if agent is None:
            raise ValueError(f"no agent plays {side.id} (agents for {sorted(map(str, agents))})")
        seats[side] = agent
    def capped() -> bool:
        return game.is_over or (max_plies is not None and game.ply >= max_plies)

    while not capped():
        acted = False
        for side, agent in seats.items():
            # The cap holds within a round too: max_plies=5 stops at ply 5, not at the
            # end of the round it falls in.
            if capped():
                break
            if agent.act(game, side) is not None:
                acted = True
        if not acted:
            break
    return game
