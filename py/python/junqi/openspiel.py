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

from ._junqi import Game, Phase, RuleSet, Side, rule_sets
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

    @property
    def outcomes(self) -> list[tuple[int, float]]:
        """Every chance outcome with its probability (made on first use: it is long)."""
        if self._outcomes is None:
            p = 1.0 / self.setups
            self._outcomes = [(k, p) for k in range(self.setups)]
        return self._outcomes

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
        state.game = game.copy()
        state._chance = _Outcomes((_HAND_MADE,) * passed)
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


class _Outcomes(tuple[int, ...]):
    """The chance outcomes so far: immutable, so a clone shares them."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Outcomes:
        return self


class JunqiState(pyspiel.State):  # type: ignore[misc]
    """A junqi game in progress, as a pyspiel state. ``.game`` is the junqi ``Game``
    (None before 翻棋's deal): the referee's, with every identity.

    A state holds the game and the chance outcomes so far, nothing more: what a seat
    was told (its information state) is read from the game when asked, so applying an
    action costs what ``Game.play_id`` costs, and a serialized state is its game's
    record and the outcomes.
    """

    def __init__(self, game: JunqiGame) -> None:
        super().__init__(game)
        self._shared: _Shared = game._shared
        self._chance = _Outcomes()
        # Made on first use: pyspiel's clone() builds a new initial state and then
        # copies the attributes over it.
        self._game: Optional[Game] = None
        self._current: Optional[int] = None

    @property
    def game(self) -> Optional[Game]:
        """The junqi ``Game`` (the referee's, every identity); None before 翻棋's deal."""
        if self._game is None and not self._shared.dealt:
            self._game = Game(self._shared.rules, seed=0)
        return self._game

    @game.setter
    def game(self, game: Optional[Game]) -> None:
        self._game = game
        self._current = None

    def legal_actions(self, player: Optional[int] = None) -> list[int]:
        """The legal actions of ``player`` (default: the player to act): chance
        outcomes at a chance node, none for a player not to act or at the end.

        The same as pyspiel's ``State.legal_actions``, answered in Python: the C++
        path asks ``current_player`` and ``is_terminal`` back through Python three
        times per call.
        """
        current = self.current_player()
        if player is not None and player != current:
            if player < 0 and player != current:
                raise ValueError(f"legal_actions of pseudo-player {player}")
            return []
        if current == _TERMINAL:
            return []
        if current == _CHANCE:
            return list(range(self._shared.setups))
        game = self._game
        assert game is not None
        ids: list[int] = game.legal_action_ids()
        return ids

    # Chance.

    def _in_chance(self) -> bool:
        return len(self._chance) < self._shared.chance_nodes

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every setup (or deal) index, uniformly."""
        assert self._in_chance()
        return self._shared.outcomes

    # The game.

    def current_player(self) -> int:
        """The seat to act (its index in ``RuleSet.sides``), CHANCE or TERMINAL."""
        # pyspiel and the algorithms ask this several times per action: it is worked
        # out once per state (an action or a new game clears it).
        current = self._current
        if current is None:
            current = self._current = self._find_current()
        return current

    def _find_current(self) -> int:
        shared = self._shared
        if len(self._chance) < shared.chance_nodes:
            return _CHANCE
        game = self.game
        assert game is not None
        to_act = game.to_act
        if to_act is None or (shared.max_plies > 0 and game.ply >= shared.max_plies):
            return _TERMINAL
        return shared.index[to_act]

    def _legal_actions(self, player: int) -> list[int]:
        game = self.game
        assert game is not None
        ids: list[int] = game.legal_action_ids()
        return ids

    def _apply_action(self, action: int) -> None:
        self._current = None
        shared = self._shared
        if self._in_chance():
            k = int(action)
            if shared.dealt:
                self.game = Game(shared.rules, seed=k)
            else:
                i = len(self._chance)
                self._require_game().deploy_random(
                    shared.sides[i], seed=k * len(shared.sides) + i
                )
            self._chance = _Outcomes((*self._chance, k))
        else:
            game = self._game
            assert game is not None
            game.play_id(action)

    def information_log(self, player: int) -> str:
        """``player``'s information state: ``Game.player_record`` of its seat (its
        setup, every event it was told, the result), or only its seat before a deal."""
        side = self._shared.sides[player]
        if self.game is None:
            return f"player {side.id}"
        return self.game.player_record(side)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._shared.dealt:
                return f"deal {action}"
            side = self._shared.sides[min(len(self._chance), len(self._shared.sides) - 1)]
            return f"{side.id} setup {action}"
        return self._shared.rules.action_at(int(action)).notation

    def is_terminal(self) -> bool:
        """The game is over, or ``max_plies`` plies were played (a draw)."""
        return self.current_player() == _TERMINAL

    def returns(self) -> list[float]:
        """+1 for every seat of the winning team, -1 for the others, else 0."""
        shared = self._shared
        if self.game is None or not self.game.is_over:
            return [0.0] * len(shared.sides)
        rewards = team_rewards(shared.rules, self.game)
        return [rewards[side] for side in shared.sides]

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
        shared = self._shared
        if self._in_chance() or self.is_terminal():
            if shared.dealt or self.is_terminal() or _HAND_MADE in self._chance:
                return self._clone()
            sampled: JunqiState = self.get_game().new_initial_state()
            for i, k in enumerate(self._chance):
                if i != player_id:
                    k = min(int(probability_sampler() * shared.setups), shared.setups - 1)
                sampled.apply_action(k)
            return sampled
        sampled = self._clone()
        seed = int(probability_sampler() * 2**63)
        sampled.game = self._require_game().determinize(shared.sides[player_id], seed)
        return sampled

    def _clone(self) -> JunqiState:
        cloned: JunqiState = self.clone()
        return cloned

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("the deal is still to come (a chance node)")
        return self.game

    def __str__(self) -> str:
        """The referee's board (every identity) and the phase."""
        if self.game is None:
            return "the deal is still to come"
        return self.game.render_full()


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
