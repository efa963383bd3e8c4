"""junqi rule sets as OpenSpiel games (``pip install ./py[rl]``).

Importing this module registers every built-in rule set with ``pyspiel`` as a Python
game named ``python_junqi_<preset>`` (``python_junqi_classic``, ``python_junqi_siguo``,
``python_junqi_siguo_2p``, ``python_junqi_fanqi``, ``python_junqi_sanjun_modern``, …);
``register(rules)`` registers a custom rule set. ::

    import pyspiel
    import junqi.openspiel

    game = pyspiel.load_game("python_junqi_classic")
    state = game.new_initial_state()          # chance nodes first: the setups

The games are sequential, imperfect-information, with terminal rewards (+1 to every
seat of the winning team, -1 to the others, 0 for a draw). Chance draws what no player
chooses here: each seat's setup (outcome ``k`` of ``setups`` deploys the seat at random
from seed ``k``), or 翻棋's deal. Players are the rule set's seats in
``RuleSet.sides`` order. ``state.resample_from_infostate(player, sampler)`` samples a
state the player cannot tell from the real one (``Game.determinize``), so OpenSpiel's
ISMCTS runs; ``game.state_from(junqi_game)`` makes a state of any junqi ``Game`` (a
hand-made setup, a replayed record, a determinized game). See the "Reinforcement
learning" section of docs/python.md.

Game parameters: ``setups`` (int, the number of chance outcomes per seat; default
65 536) and ``max_plies`` (int, 0 = no limit but the rule set's own: the game ends
drawn after that many plies).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Optional

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

from ._junqi import Game, GameResult, Phase, RuleSet, Side, rule_sets
from ._rl import RulesArg, team_rewards

__all__ = ["DEFAULT_SETUPS", "JunqiGame", "JunqiObserver", "JunqiState", "game_name", "register"]

DEFAULT_SETUPS = 65536
"""Chance outcomes per seat (distinct random setups) unless the ``setups`` parameter says."""

_registered: dict[str, RuleSet] = {}


def game_name(rules: RulesArg) -> str:
    """The pyspiel name a rule set registers under: ``python_junqi_`` and its name."""
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    return "python_junqi_" + re.sub(r"[^a-z0-9]+", "_", rule_set.name.lower()).strip("_")


def register(rules: RulesArg, name: Optional[str] = None) -> str:
    """Registers a rule set as a pyspiel game and returns its name.

    ``name`` defaults to ``game_name(rules)``. Registering the same rule set under the
    same name again is a no-op; a different rule set under a taken name is a
    ``ValueError``. Load it with ``pyspiel.load_game(name)`` or
    ``pyspiel.load_game(name, {"setups": 1024, "max_plies": 400})``.
    """
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    name = name or game_name(rule_set)
    known = _registered.get(name)
    if known is not None:
        if known == rule_set:
            return name
        raise ValueError(
            f"a different rule set is already registered as {name!r}: pass another name="
        )
    if name in pyspiel.registered_names():
        raise ValueError(f"{name!r} is already a pyspiel game")
    teams = {tuple(sorted(side.value for side in rule_set.team_of(s))) for s in rule_set.sides}
    zero_sum = len(teams) == 2 and len({len(team) for team in teams}) == 1
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"junqi {rule_set.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM
            if zero_sum
            else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=len(rule_set.sides),
        min_num_players=len(rule_set.sides),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
        parameter_specification={"setups": DEFAULT_SETUPS, "max_plies": 0},
    )

    # pyspiel keeps the creator until the process exits, past the interpreter's
    # finalization: a class (whose reference cycles keep it alive) is safe to hold
    # there, where a closure would be freed without the GIL and abort the process.
    class_name = "JunqiGame_" + re.sub(r"\W", "_", name)
    game_class = type(
        class_name,
        (JunqiGame,),
        {
            "_rules": rule_set,
            "_game_type": game_type,
            "_zero_sum": zero_sum,
            "__module__": __name__,
            "__qualname__": class_name,
        },
    )
    # pickle finds a game's class by its module and name (a pyspiel game pickles as
    # its class and its serialized form, loaded again through the registry).
    globals()[class_name] = game_class
    pyspiel.register_game(game_type, game_class)
    _registered[name] = rule_set
    return name


class _Shared:
    """What every state of one game shares (deep copies of a state keep it shared)."""

    __slots__ = (
        "name", "rules", "sides", "index", "setups", "max_plies", "dealt", "chance_nodes",
        "zeros", "_outcomes", "_returns",
    )

    def __init__(self, rules: RuleSet, setups: int, max_plies: int, name: str) -> None:
        self.name = name
        self.rules = rules
        self.sides: list[Side] = rules.sides
        self.index = {side: i for i, side in enumerate(self.sides)}
        self.setups = setups
        self.max_plies = max_plies
        # 翻棋 deals at creation and has no deployment: its one chance node is the deal.
        self.dealt = Game(rules, seed=0).phase != Phase.DEPLOY
        self.chance_nodes = 1 if self.dealt else len(self.sides)
        self._outcomes: Optional[list[tuple[int, float]]] = None
        # The returns of each result seen, and before the end (lists the states share:
        # never changed, copied out).
        self._returns: dict[GameResult, list[float]] = {}
        self.zeros = [0.0] * len(self.sides)

    @property
    def outcomes(self) -> list[tuple[int, float]]:
        """Every chance outcome with its probability (made on first use: it is long)."""
        if self._outcomes is None:
            p = 1.0 / self.setups
            self._outcomes = [(k, p) for k in range(self.setups)]
        return self._outcomes

    def returns_of(self, game: Game) -> list[float]:
        """The returns at the end of ``game`` (0 for every seat if it is not over: cut by
        ``max_plies``), from a table of the results seen so far: not to be changed."""
        result = game.result
        if result is None:
            return self.zeros
        returns = self._returns.get(result)
        if returns is None:
            rewards = team_rewards(self.rules, game)
            returns = self._returns[result] = [rewards[side] for side in self.sides]
        return returns

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self

    def __copy__(self) -> _Shared:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # A serialized state (pyspiel pickles its attributes) carries the rule set's
        # registered name and the parameters, not the rule set or the outcome list.
        return (_shared_of, (self.name, self.setups, self.max_plies))


def _shared_of(name: str, setups: int, max_plies: int) -> _Shared:
    """The shared part of a state of a registered game (for unpickling)."""
    rules = _registered.get(name)
    if rules is None:
        raise ValueError(f"{name!r} is not a registered junqi game: register its rule set first")
    return _Shared(rules, setups, max_plies, name)


def _game_length_bound(rules: RuleSet, max_plies: int) -> int:
    """The longest a game can last, in plies (OpenSpiel's ``max_game_length``).

    A game is drawn after ``no_capture_draw_plies`` plies in a row that remove no
    piece; the counter restarts only when a piece leaves the board or a side is put
    out, which happens at most once per piece and once per side. That bounds a game
    at (pieces + sides + 1) such stretches; the bound used, (2 × pieces + 1) stretches,
    is looser, and doubles where a submarine's evasion step (``evade_step``) adds a
    ply to an attack.
    """
    quiet = int(rules.options.get("no_capture_draw_plies") or 0)
    if quiet <= 0:
        if max_plies <= 0:
            raise ValueError(
                f"{rules.name} has no draw limit: give the game a max_plies parameter"
            )
        return max_plies
    pieces = rules.army_size * len(rules.sides)
    bound = (2 * pieces + 1) * (quiet + 1)
    if rules.options.get("evade_step"):
        bound *= 2
    return min(bound, max_plies) if max_plies > 0 else bound


class JunqiGame(pyspiel.Game):  # type: ignore[misc]
    """A junqi rule set as a pyspiel game (made by ``pyspiel.load_game``).

    ``register`` makes a subclass per rule set that carries the rule set.
    """

    _rules: RuleSet
    _game_type: Any
    _zero_sum: bool

    def __init__(self, params: Optional[dict[str, Any]] = None) -> None:
        params = dict(params or {})
        rules = self._rules
        setups = int(params.get("setups", DEFAULT_SETUPS))
        max_plies = int(params.get("max_plies", 0))
        if setups < 1:
            raise ValueError(f"setups must be at least 1, not {setups}")
        if max_plies < 0:
            raise ValueError(f"max_plies must be 0 (no limit) or more, not {max_plies}")
        self._shared = _Shared(rules, setups, max_plies, self._game_type.short_name)
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.action_space,
            max_chance_outcomes=setups,
            num_players=len(rules.sides),
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if self._zero_sum else None,
            max_game_length=_game_length_bound(rules, max_plies),
        )
        super().__init__(self._game_type, info, params)

    @property
    def rules(self) -> RuleSet:
        """The rule set."""
        return self._shared.rules

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickles as its name and parameters (``str(game)``), loaded again through
        # pyspiel's registry: the rule set must be registered where it is unpickled
        # (every preset is, on import of junqi.openspiel).
        return (pyspiel.load_game, (str(self),))

    def new_initial_state(self) -> JunqiState:
        """The start: chance nodes deal (翻棋) or deploy every seat, then play."""
        return JunqiState(self)

    def state_from(self, game: Game) -> JunqiState:
        """A state of this pyspiel game at the junqi ``game``'s position.

        ``game`` may be any game of this game's rule set: one with hand-made setups,
        one replayed from a record (``Game.from_record``), a determinized game
        (``Game.determinize``). The state holds a copy; the chance nodes that ``game``
        has passed are behind it (its ``history()`` starts empty: hand-made setups are
        no chance outcomes), and those still ahead (seats not yet deployed, which must
        come after the deployed ones in ``rules.sides`` order) are chance nodes as in
        ``new_initial_state()``.
        """
        shared = self._shared
        if not isinstance(game, Game):
            raise TypeError(f"state_from takes a junqi.Game, not {type(game).__name__}")
        if game.rules != shared.rules:
            raise ValueError(
                f"the game is of rule set {game.rules.name!r}, not {shared.rules.name!r}"
            )
        if shared.dealt:
            passed = 1
        else:
            deployed = set(game.deployed)
            passed = 0
            while passed < len(shared.sides) and shared.sides[passed] in deployed:
                passed += 1
            if passed < len(deployed):
                raise ValueError(
                    "the deployed seats must come first in rules.sides order "
                    f"({', '.join(s.id for s in shared.sides)}): the others are chance nodes"
                )
        state = JunqiState(self)
        state._s = _Core(shared, game.copy(), (_HAND_MADE,) * passed).settled()
        return state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None
    ) -> JunqiObserver:
        """The observer of any observation type OpenSpiel defines (see ``JunqiObserver``)."""
        return JunqiObserver(self._shared, iig_obs_type, params)


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

_HAND_MADE = -1
"""The chance outcome recorded for a setup that no chance node chose (``state_from``)."""


class _Core:
    """Everything a state holds: its junqi game (None before 翻棋's deal, or until a
    seat is deployed), the chance outcomes so far, the player to act and the returns
    (a list shared with other states: replaced, never changed).

    One object in one attribute because pyspiel's clone of a Python state builds a new
    initial state and passes each attribute through ``copy.deepcopy``: one attribute is
    one deep copy, which copies the game and shares the rest.
    """

    __slots__ = ("shared", "game", "chance", "current", "returns")

    def __init__(
        self,
        shared: _Shared,
        game: Optional[Game],
        chance: tuple[int, ...],
        current: int = _CHANCE,
        returns: Optional[list[float]] = None,
    ) -> None:
        self.shared = shared
        self.game = game
        self.chance = chance
        self.current = current
        self.returns = shared.zeros if returns is None else returns

    def settled(self) -> _Core:
        """Works out ``current`` and ``returns`` again (after a chance outcome or a new
        game)."""
        shared = self.shared
        game = self.game
        self.returns = shared.zeros
        if len(self.chance) < shared.chance_nodes:
            self.current = _CHANCE
        else:
            assert game is not None
            to_act = game.to_act
            if to_act is None or (shared.max_plies > 0 and game.ply >= shared.max_plies):
                self.current = _TERMINAL
                self.returns = shared.returns_of(game)
            else:
                self.current = shared.index[to_act]
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        game = self.game
        return _Core(
            self.shared,
            None if game is None else game.copy(),
            self.chance,
            self.current,
            self.returns,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # A serialized state (pyspiel pickles its attributes): the game's record (a
        # Game pickles as its record), the outcomes and the registered name of the game.
        return (_Core, (self.shared, self.game, self.chance, self.current, self.returns))


class JunqiState(pyspiel.State):  # type: ignore[misc]
    """A junqi game in progress, as a pyspiel state. ``.game`` is the junqi ``Game``
    (None before 翻棋's deal): the referee's, with every identity. Read it; play
    through ``apply_action``.

    A state holds the game, the chance outcomes so far and what follows from them (the
    player to act, the returns), nothing more: what a seat was told (its information
    state) is read from the game when asked. ``legal_actions``, ``current_player``, ``is_terminal``, ``is_chance_node`` and
    ``returns`` are answered in Python without going through pyspiel's C++ (called from
    C++, pyspiel asks the same methods back); ``apply_action`` and ``clone`` are
    pyspiel's, which keep the history (see docs/python.md for what they cost).
    """

    def __init__(self, game: JunqiGame) -> None:
        super().__init__(game)
        # Every state starts at a chance node (the setups or the deal); the game is
        # made on first use, as pyspiel's clone() builds a new initial state each time
        # and then replaces its attributes.
        self._s = _Core(game._shared, None, ())

    @property
    def game(self) -> Optional[Game]:
        """The junqi ``Game`` (the referee's, every identity); None before 翻棋's deal."""
        core = self._s
        if core.game is None and not core.shared.dealt:
            core.game = Game(core.shared.rules, seed=0)
        return core.game

    def current_player(self) -> int:
        """The seat to act (its index in ``RuleSet.sides``), CHANCE or TERMINAL."""
        current: int = self._s.current
        return current

    def is_terminal(self) -> bool:
        """The game is over, or ``max_plies`` plies were played (a draw)."""
        return self._s.current == _TERMINAL

    def is_chance_node(self) -> bool:
        """A setup (or 翻棋's deal) is to be drawn."""
        return self._s.current == _CHANCE

    def legal_actions(self, player: Optional[int] = None) -> list[int]:
        """The legal actions of ``player`` (default: the player to act): chance
        outcomes at a chance node, none for a player not to act or at the end.

        The same as pyspiel's ``State.legal_actions``, answered in Python: the C++
        path asks ``current_player`` and ``is_terminal`` back through Python three
        times per call.
        """
        core = self._s
        current: int = core.current
        if player is None or player == current:
            if current >= 0:
                ids: list[int] = core.game.legal_action_ids()  # type: ignore[union-attr]
                return ids
            return list(range(core.shared.setups)) if current == _CHANCE else []
        if player < 0:
            raise ValueError(f"legal_actions of pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        # Asked by pyspiel's C++ LegalActions for the player to act.
        ids: list[int] = self._s.game.legal_action_ids()  # type: ignore[union-attr]
        return ids

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every setup (or deal) index, uniformly."""
        core = self._s
        if core.current != _CHANCE:
            raise ValueError("chance_outcomes at a node that is not a chance node")
        return core.shared.outcomes

    def _apply_action(self, action: int) -> None:
        core = self._s
        if core.current >= 0:
            game: Game = core.game  # type: ignore[assignment]  # a seat acts: there is a game
            game.play_id(action)
            shared = core.shared
            to_act = game.to_act
            if to_act is None or (shared.max_plies > 0 and game.ply >= shared.max_plies):
                core.current = _TERMINAL
                core.returns = shared.returns_of(game)
            else:
                core.current = shared.index[to_act]
        elif core.current == _CHANCE:
            self._apply_chance(int(action))
        else:
            raise ValueError(
                f"action {action} at a terminal state (the game is over or max_plies "
                "plies were played)"
            )

    def _apply_chance(self, k: int) -> None:
        core = self._s
        shared = core.shared
        if not 0 <= k < shared.setups:
            raise ValueError(f"chance outcome {k} is outside 0..{shared.setups - 1}")
        if shared.dealt:
            core.game = Game(shared.rules, seed=k)
        else:
            i = len(core.chance)
            self._require_game().deploy_random(shared.sides[i], seed=k * len(shared.sides) + i)
        core.chance = (*core.chance, k)
        core.settled()

    def information_log(self, player: int) -> str:
        """``player``'s information state: ``Game.player_record`` of its seat (its
        setup, every event it was told, the result), or only its seat before a deal."""
        side = self._s.shared.sides[player]
        game = self.game
        if game is None:
            return f"player {side.id}"
        return game.player_record(side)

    def _action_to_string(self, player: int, action: int) -> str:
        shared = self._s.shared
        if player == pyspiel.PlayerId.CHANCE:
            if shared.dealt:
                return f"deal {action}"
            side = shared.sides[min(len(self._s.chance), len(shared.sides) - 1)]
            return f"{side.id} setup {action}"
        return shared.rules.action_at(int(action)).notation

    def returns(self) -> list[float]:
        """+1 for every seat of the winning team, -1 for the others, else 0."""
        # Worked out when the game ended (a list the state may share: copied out).
        returns: list[float] = self._s.returns.copy()
        return returns

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> JunqiState:
        """A state ``player_id`` cannot tell from this one, drawn with the sampler.

        During the chance nodes the other seats' setups are drawn again. In play, the
        pieces the player has not identified are redrawn from its beliefs
        (``Game.determinize``): the sampled state keeps the history of actions, but its
        unseen setups need not be any of the chance outcomes, and the other seats'
        information states there are their records in the sampled game (their own
        setups, no events).
        """
        core = self._s
        shared = core.shared
        if core.current < 0:
            if shared.dealt or core.current == _TERMINAL or _HAND_MADE in core.chance:
                return self._clone()
            sampled: JunqiState = self.get_game().new_initial_state()
            for i, k in enumerate(core.chance):
                if i != player_id:
                    k = min(int(probability_sampler() * shared.setups), shared.setups - 1)
                sampled.apply_action(k)
            return sampled
        seed = int(probability_sampler() * 2**63)
        game = self._require_game().determinize(shared.sides[player_id], seed)
        sampled = self._clone()
        sampled._s.game = game
        sampled._s.settled()
        return sampled

    def _clone(self) -> JunqiState:
        cloned: JunqiState = self.clone()
        return cloned

    def _require_game(self) -> Game:
        game = self.game
        if game is None:
            raise RuntimeError("the deal is still to come (a chance node)")
        return game

    def __str__(self) -> str:
        """The referee's board (every identity) and the phase."""
        game = self.game
        if game is None:
            return "the deal is still to come"
        return game.render_full()


def _private_events(player_log: list[str], public_log: list[str]) -> list[str]:
    """The events of ``player_log`` that are not in ``public_log`` (a subsequence of it)."""
    private = []
    j = 0
    for event in player_log:
        if j < len(public_log) and event == public_log[j]:
            j += 1
        else:
            private.append(event)
    return private


class JunqiObserver:
    """The OpenSpiel observer of a junqi game (the PyObserver interface), for every
    observation type OpenSpiel defines (``pyspiel.IIGObservationType``).

    - Default (public and the player's private information, no recall): ``tensor`` is
      the player's observation tensor (``Game.observation``; ``dict`` shapes it
      ``[channels, points]``) and the string is the player's view (``str(view)``).
    - Perfect recall, public and private (the information state): the string is the
      player's record (``Game.player_record``); no tensor (the game type provides no
      information-state tensor).
    - Public information only: the string is the public view (``Game.public_view``:
      what every seat knows), with perfect recall the public events; no tensor.
    - Private information only: the string lists what the player knows that not every
      seat knows: the kinds of its pieces (and of other pieces it was shown) where they
      are not public, with perfect recall its setup and the events told to it alone;
      no tensor.
    - Neither public nor private information: the empty string.
    """

    def __init__(self, shared: _Shared, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError(
                "junqi observers give at most one player's private information "
                "(PrivateInfoType.ALL_PLAYERS is the referee's: str(state))"
            )
        self._shared = shared
        self._public = bool(iig_obs_type.public_info)
        self._private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor: Optional[np.ndarray[Any, Any]] = None
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        if self._public and self._private and not self._perfect_recall:
            channels, points = shared.rules.observation_spec()["shape"]
            self.tensor = np.zeros(channels * points, np.float32)
            self.dict = {"observation": self.tensor.reshape(channels, points)}

    def set_from(self, state: JunqiState, player: int) -> None:
        """Fills ``tensor`` with ``player``'s observation of ``state`` (where it has one)."""
        if self.tensor is None:
            return
        if state.game is None:
            self.tensor.fill(0.0)
        else:
            state.game.observation(self._shared.sides[player], out=self.dict["observation"])

    def string_from(self, state: JunqiState, player: int) -> str:
        """``player``'s observation of ``state`` as text (see the class)."""
        side = self._shared.sides[player]
        game = state.game
        if self._public and self._private:
            if self._perfect_recall:
                return state.information_log(player)
            if game is None:
                return f"{side.id}: the deal is still to come"
            return str(game.view(side))
        if self._public:
            if game is None:
                return "the deal is still to come"
            public = game.public_view()
            if self._perfect_recall:
                return "\n".join(event.describe() for event in public.events)
            return str(public)
        if self._private:
            if game is None:
                return f"{side.id}:"
            if self._perfect_recall:
                record = json.loads(game.player_record(side))
                player_log = [json.dumps(e, sort_keys=True) for e in record["events"]]
                public_log = [
                    json.dumps(e.to_dict(), sort_keys=True) for e in game.public_view().events
                ]
                setup = json.dumps(record["setup"], sort_keys=True)
                return "\n".join(
                    [f"{side.id} setup {setup}", *_private_events(player_log, public_log)]
                )
            public_kinds = {p.point: p.kind for p in game.public_view().pieces}
            known = [
                f"{p.point} {p.kind.id}"
                for p in game.view(side).pieces
                if p.kind is not None and public_kinds.get(p.point) is None
            ]
            return f"{side.id}: " + " ".join(known)
        return ""


for _preset in rule_sets():
    register(_preset)
