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
ISMCTS runs. See the "Reinforcement learning" section of docs/python.md.

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

from ._junqi import Game, Phase, Report, RuleSet, Side, rule_sets
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
        parameter_specification={"setups": DEFAULT_SETUPS, "max_plies": 0},
    )

    # pyspiel keeps the creator until the process exits, past the interpreter's
    # finalization: a class (whose reference cycles keep it alive) is safe to hold
    # there, where a closure would be freed without the GIL and abort the process.
    game_class = type(
        "JunqiGame_" + name,
        (JunqiGame,),
        {"_rules": rule_set, "_game_type": game_type, "_zero_sum": zero_sum},
    )
    pyspiel.register_game(game_type, game_class)
    _registered[name] = rule_set
    return name


class _Shared:
    """What every state of one game shares (deep copies of a state keep it shared)."""

    def __init__(self, rules: RuleSet, setups: int, max_plies: int) -> None:
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
        self._shared = _Shared(rules, setups, max_plies)
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

    def new_initial_state(self) -> JunqiState:
        """The start: chance nodes deal (翻棋) or deploy every seat, then play."""
        return JunqiState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Optional[dict[str, Any]] = None
    ) -> JunqiObserver:
        """The observer: the junqi observation tensor; the view or the player record."""
        return JunqiObserver(self._shared, iig_obs_type, params)


class _Logs(list[list[str]]):
    """The seats' logs; copied (not deep-copied line by line) when a state is cloned."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Logs:
        return _Logs([log[:] for log in self])


class JunqiState(pyspiel.State):  # type: ignore[misc]
    """A junqi game in progress, as a pyspiel state. ``.game`` is the junqi ``Game``
    (None before 翻棋's deal): the referee's, with every identity."""

    def __init__(self, game: JunqiGame) -> None:
        super().__init__(game)
        self._shared: _Shared = game._shared
        self._chance: list[int] = []
        self.game: Optional[Game] = None if self._shared.dealt else Game(game.rules, seed=0)
        # Per seat, what it was told so far: its setup, then every report's events for
        # it (JSON), one line each. Its information state is this log.
        self._logs = _Logs([[f"player {side.id}"] for side in self._shared.sides])

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
        if self._in_chance():
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        game = self._require_game()
        to_act = game.to_act
        assert to_act is not None
        return self._shared.index[to_act]

    def _legal_actions(self, player: int) -> list[int]:
        ids = self._require_game().legal_action_ids()
        return ids if isinstance(ids, list) else list(np.asarray(ids).tolist())

    def _apply_action(self, action: int) -> None:
        shared = self._shared
        if self._in_chance():
            k = int(action)
            if shared.dealt:
                self.game = Game(shared.rules, seed=k)
            else:
                i = len(self._chance)
                side = shared.sides[i]
                game = self._require_game()
                self._tell(game.deploy_random(side, seed=k * len(shared.sides) + i))
                setup = json.loads(game.player_record(side))["setup"]
                self._logs[i].append("setup " + json.dumps(setup, sort_keys=True))
            self._chance.append(k)
        else:
            self._tell(self._require_game().play_id(int(action)))

    def _tell(self, report: Report) -> None:
        for side, log in zip(self._shared.sides, self._logs):
            log.append(report.to_json_for(side))

    def information_log(self, player: int) -> str:
        """``player``'s information state: its setup and every event it was told."""
        return "\n".join(self._logs[player])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._shared.dealt:
                return f"deal {action}"
            side = self._shared.sides[min(len(self._chance), len(self._shared.sides) - 1)]
            return f"{side.id} setup {action}"
        return self._shared.rules.action_at(int(action)).notation

    def is_terminal(self) -> bool:
        """The game is over, or ``max_plies`` plies were played (a draw)."""
        if self._in_chance():
            return False
        game = self._require_game()
        return game.is_over or (
            self._shared.max_plies > 0 and game.ply >= self._shared.max_plies
        )

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
        information states there start from their records in the sampled game.
        """
        shared = self._shared
        if self._in_chance() or self.is_terminal():
            if shared.dealt or self.is_terminal():
                return self._clone()
            sampled: JunqiState = self.get_game().new_initial_state()
            for i, k in enumerate(self._chance):
                if i != player_id:
                    k = min(int(probability_sampler() * shared.setups), shared.setups - 1)
                sampled.apply_action(k)
            return sampled
        sampled = self._clone()
        seed = int(probability_sampler() * 2**63)
        game = self._require_game().determinize(shared.sides[player_id], seed)
        sampled.game = game
        # The other seats' information differs in the sampled world: their logs
        # restart from their records there.
        for i, side in enumerate(shared.sides):
            if i != player_id:
                sampled._logs[i] = [f"player {side.id}", game.player_record(side)]
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


class JunqiObserver:
    """The OpenSpiel observer of a junqi game (the PyObserver interface).

    ``tensor`` is the player's observation tensor (``Game.observation``; ``dict``
    shapes it ``[channels, points]``); the string is the player's view (``str(view)``)
    or, with perfect recall (the information state), the player's log: its setup
    and, for every action so far, the events it was told (``Report.to_json_for``) —
    what ``Game.player_record`` holds, kept as the game goes.
    """

    def __init__(self, shared: _Shared, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "junqi observers give one player's information (public and its private)"
            )
        self._shared = shared
        self._perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        channels, points = shared.rules.observation_spec()["shape"]
        self.tensor = np.zeros(channels * points, np.float32)
        self.dict = {"observation": self.tensor.reshape(channels, points)}

    def set_from(self, state: JunqiState, player: int) -> None:
        """Fills ``tensor`` with ``player``'s observation of ``state``."""
        if state.game is None:
            self.tensor.fill(0.0)
        else:
            state.game.observation(self._shared.sides[player], out=self.dict["observation"])

    def string_from(self, state: JunqiState, player: int) -> str:
        """``player``'s view of ``state`` (its record with perfect recall)."""
        side = self._shared.sides[player]
        if self._perfect_recall:
            return state.information_log(player)
        if state.game is None:
            return f"{side.id}: the deal is still to come"
        return str(state.game.view(side))


for _preset in rule_sets():
    register(_preset)
