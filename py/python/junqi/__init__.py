"""junqi — rules engine and hidden-information referee for the 军棋 family of games.

A quick tour::

    import junqi
    game = junqi.Game("classic", seed=1)
    game.deploy_random("south")
    game.deploy_random("north")
    report = game.play(game.legal_actions()[0])
    print(game.view("north"))          # North's information set, enemy kinds hidden

The engine itself is Rust (``junqi._junqi``); this package re-exports it. See
``docs/python.md`` for the guide.

The reinforcement-learning adapters are modules of their own, imported on demand since
their dependencies are optional (``pip install "./py[rl]"``): ``junqi.pettingzoo``
(a PettingZoo AEC environment), ``junqi.gymnasium`` (a single-agent Gymnasium
environment) and ``junqi.openspiel`` (every rule set registered as a pyspiel game).

``junqi.Agent("search:3", seed=0)`` is one of the engine's players (``"random"``,
``"greedy"``, ``"search:1"`` … ``"search:5"``, ``"pimc:1"`` … ``"pimc:5"``); ``junqi.agents`` has it with helpers
(``play``: a whole game between agents).
"""

import warnings
from typing import Any

from ._junqi import (
    Agent,
    BufferTooSmallError,
    GameOverError,
    IllegalActionError,
    JsonError,
    NotYourTurnError,
    OutOfRangeError,
    SideNotInGameError,
    UnknownNameError,
    WrongGameError,
    WrongPhaseError,
    ERROR_KINDS,
    Ability,
    Arm,
    Attack,
    Beliefs,
    OpponentModel,
    EvalFit,
    Board,
    EdgeKind,
    EndReason,
    Event,
    Game,
    GameResult,
    JunqiError,
    Level,
    Action,
    NotationError,
    CombatOutcome,
    Phase,
    PieceKind,
    PlatformError,
    PositionStringError,
    FinishedGame,
    Playout,
    RecordError,
    Report,
    Resolution,
    RevealCause,
    Role,
    RuleSet,
    RulesError,
    STRIKE_RANGE,
    SeatScore,
    SeenPiece,
    SetupError,
    Side,
    VectorEnv,
    View,
    __version__,
    level_for,
    levels,
    platform_score,
    observations,
    random_playouts,
    resolve,
    resolve_attack,
    rule_sets,
)

__all__ = [
    "Agent",
    "BufferTooSmallError",
    "GameOverError",
    "IllegalActionError",
    "JsonError",
    "NotYourTurnError",
    "OutOfRangeError",
    "SideNotInGameError",
    "UnknownNameError",
    "WrongGameError",
    "WrongPhaseError",
    "ERROR_KINDS",
    "Ability",
    "Arm",
    "Attack",
    "Beliefs",
    "OpponentModel",
    "EvalFit",
    "Board",
    "EdgeKind",
    "EndReason",
    "Event",
    "Game",
    "GameResult",
    "JunqiError",
    "Level",
    "Action",
    "NotationError",
    "CombatOutcome",
    "Phase",
    "PieceKind",
    "PlatformError",
    "PositionStringError",
    "FinishedGame",
    "Playout",
    "RecordError",
    "Report",
    "Resolution",
    "RevealCause",
    "Role",
    "RuleSet",
    "RulesError",
    "STRIKE_RANGE",
    "SeatScore",
    "SeenPiece",
    "SetupError",
    "Side",
    "VectorEnv",
    "View",
    "__version__",
    "level_for",
    "levels",
    "platform_score",
    "observations",
    "random_playouts",
    "resolve",
    "resolve_attack",
    "rule_sets",
]


_DEPRECATED = {
    "Move": ("Action", Action),
    "IllegalMoveError": ("IllegalActionError", IllegalActionError),
    "Outcome": ("CombatOutcome", CombatOutcome),
}


def __getattr__(name: str) -> Any:
    """The names of development versions, kept for one release with a warning."""
    if name in _DEPRECATED:
        new, value = _DEPRECATED[name]
        warnings.warn(f"junqi.{name} is deprecated: use junqi.{new}", DeprecationWarning, stacklevel=2)
        return value
    raise AttributeError(f"module 'junqi' has no attribute {name!r}")
