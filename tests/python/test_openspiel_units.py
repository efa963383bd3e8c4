"""junqi.openspiel, unit by unit: what each registered game declares to pyspiel (every
GameType and GameInfo field, by rule set and parameters), the chance nodes' outcomes and
what they deploy, action strings, legal actions per player, the cut at max_plies and the
returns, every observer's string (and tensor) in its exact form, resampling from an
information state, states made from a junqi Game, and what a serialized state carries.
The values are written out by hand (issue #45: these tests kill the mutants of
py/python/junqi/openspiel.py that the integration tests of test_rl_openspiel.py let
through)."""

from __future__ import annotations

import base64
import json
import pickle
import re
import uuid
from typing import Any, Callable

import numpy as np
import pytest

import junqi

pytest.importorskip("pyspiel")

import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: E402

from junqi import openspiel as jos  # noqa: E402

CHANCE = -1
GameType = pyspiel.GameType
Obs = pyspiel.IIGObservationType
Private = pyspiel.PrivateInfoType

TERMINAL_MESSAGE = "at a terminal state (the game is over or max_plies plies were played)"


def custom(base: str, name: str, **options: Any) -> dict[str, Any]:
    """A preset's rule set under another name, with some options changed."""
    data: dict[str, Any] = json.loads(junqi.RuleSet(base).to_json())
    data["name"] = name
    data["options"].update(options)
    return data


def fresh(word: str) -> str:
    """A rule-set name not registered yet (register's work is done, not skipped as a
    repeat, however often the test runs in one process)."""
    return f"units {word} {uuid.uuid4().hex[:10]}"


def state_of(name: str, outcomes: list[int], params: dict[str, Any] | None = None) -> Any:
    state = pyspiel.load_game(name, params or {}).new_initial_state()
    for k in outcomes:
        assert state.is_chance_node()
        state.apply_action(k)
    return state


def constant(value: float) -> Callable[[], float]:
    """A probability sampler that always draws ``value``."""
    return lambda: value


def deployed_game(rules: str, seeds: dict[str, int]) -> junqi.Game:
    """The junqi game that chance outcomes make: seed 0, each seat deployed at random."""
    game = junqi.Game(rules, seed=0)
    for side, seed in seeds.items():
        game.deploy_random(side, seed=seed)
    return game


# --- what each game declares ------------------------------------------------------

# preset: (players, distinct actions, max_game_length) by hand. The bound is
# (2 × pieces + 1) × (no_capture_draw_plies + 1), doubled under evade_step: 25 pieces a
# seat in the classic army, 30 in the 三军 armies, 70 quiet plies everywhere.
PRESETS = {
    "classic": (2, 1188, 101 * 71),
    "fanqi": (2, 1248, 101 * 71),
    "sanjun-book": (2, 3812, 121 * 71 * 2),
    "sanjun-forum": (2, 3812, 121 * 71 * 2),
    "sanjun-hk": (2, 3812, 121 * 71),
    "sanjun-modern": (2, 3812, 121 * 71),
    "siguo": (4, 5648, 201 * 71),
    "siguo-2p": (2, 5648, 101 * 71),
}


def check_type(game: Any, short_name: str, long_name: str, players: int, utility: Any) -> None:
    """Every GameType field register sets, against the values the docs promise."""
    kind = game.get_type()
    assert kind.short_name == short_name
    assert kind.long_name == long_name
    assert kind.dynamics == GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == utility
    assert kind.reward_model == GameType.RewardModel.TERMINAL
    assert (kind.min_num_players, kind.max_num_players) == (players, players)
    assert kind.provides_information_state_string is True
    assert kind.provides_information_state_tensor is False
    assert kind.provides_observation_string is True
    assert kind.provides_observation_tensor is True
    assert kind.provides_factored_observation_string is True
    assert kind.parameter_specification == {"setups": 65536, "max_plies": 0}


def check_info(game: Any, players: int, actions: int, outcomes: int, length: int) -> None:
    """Every GameInfo field of a loaded game."""
    assert game.num_players() == players
    assert game.num_distinct_actions() == actions
    assert game.max_chance_outcomes() == outcomes
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    assert game.max_game_length() == length


def test_game_names() -> None:
    assert jos.game_name("classic") == "python_junqi_classic"
    assert jos.game_name(junqi.RuleSet("sanjun-modern")) == "python_junqi_sanjun_modern"
    # Lower case; every run of other characters one "_"; none at the ends.
    quick = custom("classic", "--Quick  Classic 2!--")
    assert jos.game_name(quick) == "python_junqi_quick_classic_2"


def test_every_preset_declares_its_type_and_info() -> None:
    for preset, (players, actions, length) in PRESETS.items():
        name = jos.game_name(preset)
        game = pyspiel.load_game(name)
        check_type(game, name, f"junqi {preset}", players, GameType.Utility.ZERO_SUM)
        check_info(game, players, actions, 65536, length)
        assert game.utility_sum() == 0.0
        assert str(game) == f"{name}(max_plies=0,setups=65536)"


def test_register_declares_a_custom_rule_set() -> None:
    data = custom("classic", fresh("custom"))
    name = jos.register(data)
    assert name == jos.game_name(data) and name.startswith("python_junqi_units_custom_")
    assert name in pyspiel.registered_names()
    game = pyspiel.load_game(name)
    check_type(game, name, "junqi " + data["name"], 2, GameType.Utility.ZERO_SUM)
    check_info(game, 2, 1188, 65536, 101 * 71)
    assert game.utility_sum() == 0.0
    assert game.rules == junqi.RuleSet(data)
    # Its class lives in junqi.openspiel under its name (pickle finds it there).
    cls = type(game)
    assert cls.__name__ == cls.__qualname__ == "JunqiGame_" + name
    assert cls.__module__ == "junqi.openspiel" and getattr(jos, cls.__name__) is cls
    assert issubclass(cls, jos.JunqiGame)
    assert pickle.loads(pickle.dumps(cls)) is cls
    # The same rule set again: the same name, nothing done; another rule set under the
    # name, or a name pyspiel already has: refused.
    assert jos.register(data) == name
    assert jos.register(junqi.RuleSet(data)) == name
    with pytest.raises(ValueError, match=f"a different rule set is already registered as '{name}'"):
        jos.register(custom("classic", data["name"], no_capture_draw_plies=30))
    with pytest.raises(ValueError, match="'tic_tac_toe' is already a pyspiel game"):
        jos.register(custom("classic", fresh("taken")), name="tic_tac_toe")


def test_register_under_a_given_name() -> None:
    tag = uuid.uuid4().hex[:10]
    data = custom("classic", fresh("given"))
    name = jos.register(junqi.RuleSet(data), name=f"units-given.{tag}")
    assert name == f"units-given.{tag}"
    game = pyspiel.load_game(name, {"max_plies": 12})
    check_type(game, name, "junqi " + data["name"], 2, GameType.Utility.ZERO_SUM)
    check_info(game, 2, 1188, 65536, 12)
    # The class name keeps only word characters.
    assert type(game).__name__ == f"JunqiGame_units_given_{tag}"
    assert getattr(jos, f"JunqiGame_units_given_{tag}") is type(game)


@pytest.mark.parametrize(
    ("teams", "utility"),
    [
        ([["south", "north"], ["east", "west"]], GameType.Utility.ZERO_SUM),  # 2 v 2
        ([["south"], ["east"], ["north"], ["west"]], GameType.Utility.GENERAL_SUM),  # each alone
        ([["south", "east", "north"], ["west"]], GameType.Utility.GENERAL_SUM),  # 3 v 1
        ([["south", "north"], ["east"], ["west"]], GameType.Utility.GENERAL_SUM),  # 2 v 1 v 1
    ],
)
def test_teams_decide_the_utility(teams: list[list[str]], utility: Any) -> None:
    # Zero-sum only for two teams of the same size; the sum is then 0, else undeclared.
    data = custom("siguo", fresh("teams"))
    data["teams"] = teams
    name = jos.register(data)
    game = pyspiel.load_game(name)
    check_type(game, name, "junqi " + data["name"], 4, utility)
    check_info(game, 4, 5648, 65536, 201 * 71)
    zero_sum = utility == GameType.Utility.ZERO_SUM
    assert game.utility_sum() == (0.0 if zero_sum else None)


def test_parameters() -> None:
    game = pyspiel.load_game("python_junqi_classic", {"setups": 7, "max_plies": 9})
    assert str(game) == "python_junqi_classic(max_plies=9,setups=7)"
    assert game.get_parameters() == {"setups": 7, "max_plies": 9}
    check_info(game, 2, 1188, 7, 9)
    # One setup is enough; none is refused, and so is a negative max_plies.
    one = pyspiel.load_game("python_junqi_classic", {"setups": 1})
    assert one.max_chance_outcomes() == 1
    assert one.new_initial_state().chance_outcomes() == [(0, 1.0)]
    with pytest.raises(ValueError, match=re.escape("setups must be at least 1, not 0")):
        pyspiel.load_game("python_junqi_classic", {"setups": 0})
    message = "max_plies must be 0 (no limit) or more, not -1"
    with pytest.raises(ValueError, match=re.escape(message)):
        pyspiel.load_game("python_junqi_classic", {"max_plies": -1})
    # The game class built directly (no pyspiel parameters) takes the defaults.
    cls = type(game)
    check_info(cls(), 2, 1188, 65536, 101 * 71)
    check_info(cls({"setups": 3}), 2, 1188, 3, 101 * 71)
    check_info(cls({"max_plies": 5}), 2, 1188, 65536, 5)


def test_game_length_bound() -> None:
    classic = "python_junqi_classic"
    # max_plies below the draw limit's bound is the bound; above it changes nothing.
    for max_plies, length in [
        (1, 1), (2, 2), (7170, 7170), (7171, 7171), (7172, 7171), (10**6, 7171)
    ]:
        assert pyspiel.load_game(classic, {"max_plies": max_plies}).max_game_length() == length
    book = pyspiel.load_game("python_junqi_sanjun_book", {"max_plies": 20000})
    assert book.max_game_length() == 17182
    # One quiet ply allowed: 101 stretches of 2 plies.
    quick = jos.register(custom("classic", fresh("quiet one"), no_capture_draw_plies=1))
    assert pyspiel.load_game(quick).max_game_length() == 101 * 2
    # No draw limit: max_plies is the only bound, and it is required.
    endless = custom("classic", fresh("endless"), no_capture_draw_plies=0)
    name = jos.register(endless)
    message = f"{endless['name']} has no draw limit: give the game a max_plies parameter"
    with pytest.raises(ValueError, match=re.escape(message)):
        pyspiel.load_game(name)
    for max_plies in (1, 2, 500, 10**6):
        assert pyspiel.load_game(name, {"max_plies": max_plies}).max_game_length() == max_plies


# --- chance nodes, actions, returns -------------------------------------------------


def test_chance_nodes_deploy_each_seat_from_its_outcome() -> None:
    state = pyspiel.load_game("python_junqi_classic", {"setups": 8}).new_initial_state()
    assert state.is_chance_node() and not state.is_terminal()
    assert state.current_player() == CHANCE
    assert state.chance_outcomes() == [(k, 0.125) for k in range(8)]
    assert state.legal_actions() == state.legal_actions(CHANCE) == list(range(8))
    assert state.legal_actions(0) == [] and state.returns() == [0.0, 0.0]
    assert state.action_to_string(CHANCE, 5) == "south setup 5"
    with pytest.raises(ValueError, match=re.escape("chance outcome 8 is outside 0..7")):
        state.apply_action(8)
    with pytest.raises(ValueError, match=re.escape("chance outcome -2 is outside 0..7")):
        state.apply_action(-2)
    state.apply_action(0)  # the first outcome is one
    assert state.action_to_string(CHANCE, 7) == "north setup 7"
    state.apply_action(7)
    assert not state.is_chance_node() and state.current_player() == 0
    # Outcome k of seat i deploys it from seed k × seats + i.
    assert state.game.same_state(deployed_game("classic", {"south": 0, "north": 15}))
    # Past the chance nodes a chance action still names the last seat's setup.
    assert state.action_to_string(CHANCE, 3) == "north setup 3"
    with pytest.raises(ValueError, match="^chance_outcomes at a node that is not a chance node$"):
        state.chance_outcomes()
    four = state_of("python_junqi_siguo", [1, 2, 3, 4], {"setups": 8})
    seeds = {"south": 4, "east": 9, "north": 14, "west": 19}
    assert four.game.same_state(deployed_game("siguo", seeds))
    assert four.current_player() == 0 and four.returns() == [0.0] * 4


def test_fanqi_deals_at_its_one_chance_node() -> None:
    state = pyspiel.load_game("python_junqi_fanqi", {"setups": 8}).new_initial_state()
    assert getattr(state, "game") is None and str(state) == "the deal is still to come"
    assert state.action_to_string(CHANCE, 4) == "deal 4"
    assert state.information_state_string(1) == "player north"
    state.apply_action(4)
    assert state.current_player() == 0 and state.history() == [4]
    assert state.game.same_state(junqi.Game("fanqi", seed=4))
    assert str(state) == state.game.render_full()
    assert state.action_to_string(0, state.legal_actions()[0]) == "flip a1"


def test_action_strings_and_legal_actions_by_player() -> None:
    game = pyspiel.load_game("python_junqi_classic", {"setups": 8})
    state = state_of("python_junqi_classic", [1, 2], {"setups": 8})
    assert str(state) == state.game.render_full()
    actions = state.legal_actions()
    assert actions == state.legal_actions(0) == state.game.legal_action_ids()
    assert actions[:3] == [19, 52, 85]
    assert pyspiel.State.legal_actions(state) == actions  # pyspiel's C++ path
    assert [state.action_to_string(0, a) for a in actions[:3]] == ["a2-b3", "b2-b3", "c2-b3"]
    assert state.action_to_string(1, 19) == game.rules.action_at(19).notation == "a2-b3"
    assert state.legal_actions(1) == []
    with pytest.raises(ValueError, match="legal_actions of pseudo-player -1"):
        state.legal_actions(CHANCE)
    state.apply_action(19)
    assert state.current_player() == 1 and state.legal_actions(0) == []
    assert state.legal_actions(1) == state.legal_actions() != []


@pytest.mark.parametrize("max_plies", [1, 2])
def test_max_plies_cuts_the_game_drawn(max_plies: int) -> None:
    state = state_of("python_junqi_classic", [1, 2], {"setups": 8, "max_plies": max_plies})
    for ply in range(max_plies):
        assert not state.is_terminal() and state.current_player() == ply % 2
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.game.ply == max_plies and not state.game.is_over
    assert state.returns() == [0.0, 0.0]
    assert state.legal_actions() == [] and state.legal_actions(0) == []
    action = state.game.legal_action_ids()[0]
    with pytest.raises(ValueError, match=re.escape(f"action {action} {TERMINAL_MESSAGE}")):
        state.apply_action(action)
    with pytest.raises(ValueError, match=re.escape(f"action 3 {TERMINAL_MESSAGE}")):
        state.apply_action(3)
    # A state made from the game there is cut too, as is a resample (a copy).
    again = state.get_game().state_from(state.game)
    assert again.is_terminal() and again.returns() == [0.0, 0.0]
    sampled = state.resample_from_infostate(0, constant(0.5))
    assert sampled.is_terminal() and sampled.history() == state.history()


def test_no_max_plies_plays_on() -> None:
    state = state_of("python_junqi_classic", [1, 2], {"setups": 8})
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert not state.is_terminal() and state.current_player() == 1
    assert state.get_game().state_from(state.game).current_player() == 1


def test_a_won_game_returns_plus_and_minus_one() -> None:
    state = state_of("python_junqi_classic", [11, 0], {"setups": 16})
    rng = np.random.default_rng(27)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert str(state.game.result) == "south wins: no piece left that can move (no_legal_move)"
    assert state.game.ply == 141 and len(state.history()) == 143
    assert state.returns() == [1.0, -1.0]
    assert state.returns() == [1.0, -1.0]  # asked again (the table of results seen)
    assert state.clone().returns() == [1.0, -1.0]
    assert state.get_game().state_from(state.game).returns() == [1.0, -1.0]
    sampled = state.resample_from_infostate(1, constant(0.5))
    assert sampled.history() == state.history() and sampled.returns() == [1.0, -1.0]
    # North resigns in a game made by hand: South's team wins.
    game = deployed_game("classic", {"south": 3, "north": 4})
    game.resign("north")
    ended = pyspiel.load_game("python_junqi_classic").state_from(game)
    assert ended.is_terminal() and ended.returns() == [1.0, -1.0]


def test_clones_copy_the_game() -> None:
    fanqi = pyspiel.load_game("python_junqi_fanqi", {"setups": 8}).new_initial_state()
    copy = fanqi.clone()
    assert getattr(copy, "game") is None and copy.is_chance_node() and copy.returns() == [0.0, 0.0]
    copy.apply_action(5)
    assert fanqi.game is None and copy.game.same_state(junqi.Game("fanqi", seed=5))
    state = state_of("python_junqi_classic", [1, 2], {"setups": 8})
    state.apply_action(19)
    clone = state.clone()
    assert clone.game is not state.game and clone.game.same_state(state.game)
    assert clone.current_player() == 1 and clone.history() == [1, 2, 19]
    assert clone.returns() == [0.0, 0.0]
    clone.apply_action(clone.legal_actions()[0])
    assert state.game.ply == 1 and clone.game.ply == 2


# --- states from games, serialization ------------------------------------------------


def test_state_from_refusals() -> None:
    game = pyspiel.load_game("python_junqi_classic")
    with pytest.raises(TypeError, match="state_from takes a junqi.Game, not str"):
        game.state_from("classic")
    with pytest.raises(ValueError, match="the game is of rule set 'siguo', not 'classic'"):
        game.state_from(junqi.Game("siguo", seed=1))
    late = deployed_game("classic", {"north": 3})
    message = (
        "the deployed seats must come first in rules.sides order (south, north): "
        "the others are chance nodes"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        game.state_from(late)
    four = deployed_game("siguo", {"south": 1, "north": 2})
    siguo = pyspiel.load_game("python_junqi_siguo")
    with pytest.raises(ValueError, match=re.escape("(south, east, north, west)")):
        siguo.state_from(four)


def test_state_from_leaves_the_seats_to_deploy_to_chance() -> None:
    game = pyspiel.load_game("python_junqi_classic", {"setups": 8})
    # Nothing deployed: both setups are chance nodes still, from South's.
    state = game.state_from(junqi.Game("classic", seed=0))
    assert state.is_chance_node() and state.history() == []
    assert state.action_to_string(CHANCE, 5) == "south setup 5"
    state.apply_action(5)
    state.apply_action(7)
    assert state.current_player() == 0
    assert state.game.same_state(deployed_game("classic", {"south": 10, "north": 15}))
    # South and East deployed by hand in siguo: North's and West's outcomes follow.
    siguo = pyspiel.load_game("python_junqi_siguo", {"setups": 8})
    half = siguo.state_from(deployed_game("siguo", {"south": 100, "east": 101}))
    assert half.is_chance_node() and half.history() == []
    assert half.action_to_string(CHANCE, 5) == "north setup 5"
    # Its hand-made setups are no chance outcomes: a resample is a copy.
    same = half.resample_from_infostate(2, constant(0.5))
    assert same.is_chance_node() and same.game.same_state(half.game)
    half.apply_action(5)
    half.apply_action(6)
    seeds = {"south": 100, "east": 101, "north": 5 * 4 + 2, "west": 6 * 4 + 3}
    assert half.current_player() == 0 and half.game.same_state(deployed_game("siguo", seeds))
    # 翻棋: the deal is behind it.
    fanqi = pyspiel.load_game("python_junqi_fanqi").state_from(junqi.Game("fanqi", seed=4))
    assert fanqi.current_player() == 0 and fanqi.history() == []
    assert fanqi.game.same_state(junqi.Game("fanqi", seed=4))


def test_serialized_states_keep_their_parameters() -> None:
    data = custom("classic", fresh("serialized"))
    name = jos.register(data)
    game = pyspiel.load_game(name, {"setups": 7, "max_plies": 3})
    state = game.new_initial_state()
    state.apply_action(3)
    for again in (game.deserialize_state(state.serialize()), pickle.loads(pickle.dumps(state))):
        assert again.history() == [3] and again.is_chance_node()
        assert again.chance_outcomes() == [(k, 1 / 7) for k in range(7)]
        again.apply_action(6)
        assert again.game.same_state(deployed_game("classic", {"south": 6, "north": 13}))
        for _ in range(3):
            assert not again.is_terminal()
            again.apply_action(again.legal_actions()[0])
        assert again.is_terminal() and again.returns() == [0.0, 0.0]
    # A deserialized state serializes again, under the same game.
    once = game.deserialize_state(state.serialize())
    twice = game.deserialize_state(once.serialize())
    assert twice.history() == [3] and twice.chance_outcomes() == [(k, 1 / 7) for k in range(7)]
    # A state of a game that is not registered here (under that name) is refused.
    text = state.serialize()
    head, encoded = text.split("__dict__=")
    other = name[:-1] + ("x" if name[-1] != "x" else "y")  # as long: the pickle stays whole
    forged = base64.b64encode(base64.b64decode(encoded).replace(name.encode(), other.encode()))
    message = f"'{other}' is not a registered junqi game: register its rule set first"
    with pytest.raises(ValueError, match=re.escape(message)):
        game.deserialize_state(head + "__dict__=" + forged.decode())


# --- resampling -----------------------------------------------------------------------


def test_resample_during_the_chance_nodes_redraws_the_other_seats() -> None:
    state = state_of("python_junqi_siguo", [3, 4, 5], {"setups": 8})
    # The sampler's draw u picks outcome ⌊u × setups⌋ (the last one for u = 1).
    for player, u, history in [
        (2, 0.5, [4, 4, 5]),
        (0, 0.5, [3, 4, 4]),
        (1, 0.0, [0, 4, 0]),
        (0, 1.0, [3, 7, 7]),
        (0, 0.99, [3, 7, 7]),
        (0, 0.3, [3, 2, 2]),
    ]:
        sampled = state.resample_from_infostate(player, constant(u))
        assert sampled.history() == history and sampled.is_chance_node()
        assert sampled.information_state_string(player) == state.information_state_string(player)
    # 翻棋 before the deal: nothing to redraw.
    fanqi = pyspiel.load_game("python_junqi_fanqi").new_initial_state()
    again = fanqi.resample_from_infostate(0, constant(0.5))
    assert again.is_chance_node() and again.history() == [] and again.game is None


def test_resample_in_play_determinizes_with_the_samplers_seed() -> None:
    state = state_of("python_junqi_classic", [1, 2], {"setups": 8})
    state.apply_action(19)
    state.apply_action(state.legal_actions()[0])
    for player, side in enumerate(("south", "north")):
        # A draw u seeds Game.determinize with ⌊u × 2^63⌋.
        sampled = state.resample_from_infostate(player, constant(0.25))
        assert sampled.game.same_state(state.game.determinize(side, 2**61))
        assert not sampled.game.same_state(state.game)
        assert sampled.history() == state.history() and sampled.current_player() == 0
        assert sampled.information_state_string(player) == state.information_state_string(player)
        assert state.game.ply == 2  # the state itself is unchanged
    # South, to act, keeps its moves (North does not know South's pieces: mines and
    # the flag may be redrawn where South's movable pieces stand).
    assert state.resample_from_infostate(0, constant(0.25)).legal_actions() == state.legal_actions()
    other = state.resample_from_infostate(0, constant(0.75))
    assert other.game.same_state(state.game.determinize("south", 3 * 2**61))


# --- observers ------------------------------------------------------------------------

SCOUTS = "units scouts"  # classic where an engineer's attack shows its owner the defender
SOUTH_SETUP = (
    '{"a1": "commander", "a2": "company_commander", "a3": "platoon_leader", '
    '"a4": "battalion_commander", "a5": "engineer", "a6": "brigade_commander", "b1": "flag", '
    '"b2": "bomb", "b4": "platoon_leader", "b6": "brigade_commander", "c1": "mine", '
    '"c2": "company_commander", "c3": "bomb", "c5": "company_commander", "c6": "engineer", '
    '"d1": "mine", "d2": "division_commander", "d4": "platoon_leader", "d6": "army_commander", '
    '"e1": "regiment_commander", "e2": "mine", "e3": "battalion_commander", "e4": "engineer", '
    '"e5": "division_commander", "e6": "regiment_commander"}'
)
NORTH_SETUP = (
    '{"a10": "commander", "a11": "brigade_commander", "a12": "mine", "a7": "company_commander", '
    '"a8": "bomb", "a9": "company_commander", "b11": "regiment_commander", "b12": "engineer", '
    '"b7": "army_commander", "b9": "platoon_leader", "c10": "company_commander", "c11": "mine", '
    '"c12": "brigade_commander", "c7": "engineer", "c8": "bomb", "d11": "division_commander", '
    '"d12": "flag", "d7": "platoon_leader", "d9": "battalion_commander", '
    '"e10": "regiment_commander", "e11": "mine", "e12": "division_commander", '
    '"e7": "battalion_commander", "e8": "engineer", "e9": "platoon_leader"}'
)
SOUTH_KINDS = (
    "south: a1 commander b1 flag c1 mine d1 mine e1 regiment_commander a2 company_commander "
    "b2 bomb c2 company_commander d2 division_commander e2 mine a3 platoon_leader c3 bomb "
    "e3 battalion_commander a4 battalion_commander b4 platoon_leader d4 platoon_leader "
    "e4 engineer a5 engineer c5 company_commander e5 division_commander a6 brigade_commander "
    "b6 brigade_commander d6 army_commander e6 regiment_commander"
)
NORTH_KINDS = (
    "north: a7 company_commander b7 army_commander d7 platoon_leader e7 battalion_commander "
    "a8 bomb c8 bomb e8 engineer a9 company_commander b9 platoon_leader d9 battalion_commander "
    "e9 platoon_leader a10 commander c10 company_commander e10 regiment_commander "
    "a11 brigade_commander b11 regiment_commander c11 mine d11 division_commander e11 mine "
    "a12 mine b12 engineer c12 brigade_commander d12 flag e12 division_commander"
)


def observers(game: Any) -> dict[str, Any]:
    """An observer of each kind: public and/or private information, with or without
    perfect recall."""
    kinds = {
        "view": (True, Private.SINGLE_PLAYER, False),
        "record": (True, Private.SINGLE_PLAYER, True),
        "public": (True, Private.NONE, False),
        "public recall": (True, Private.NONE, True),
        "private": (False, Private.SINGLE_PLAYER, False),
        "private recall": (False, Private.SINGLE_PLAYER, True),
        "nothing": (False, Private.NONE, False),
        "nothing recall": (False, Private.NONE, True),
    }
    return {
        k: game.make_py_observer(Obs(public_info=pub, private_info=priv, perfect_recall=recall))
        for k, (pub, priv, recall) in kinds.items()
    }


def test_observation_strings_of_each_kind() -> None:
    name = jos.register(custom("classic", SCOUTS, engineer_scouts="attacker"))
    game = pyspiel.load_game(name, {"setups": 16})
    state = state_of(name, [5, 0], {"setups": 16})
    state.apply_action(516)  # South's engineer c6 attacks c7: both leave, South is shown it
    assert state.action_to_string(0, 516) == "c6-c7"
    seen = observers(game)
    referee = state.game
    for player, side in enumerate(("south", "north")):
        assert seen["view"].string_from(state, player) == str(referee.view(side))
        assert seen["record"].string_from(state, player) == referee.player_record(side)
        assert seen["record"].string_from(state, player) == state.information_state_string(player)
        assert seen["public"].string_from(state, player) == str(referee.public_view())
        assert seen["public recall"].string_from(state, player) == (
            "south deployed\nnorth deployed\nsouth c6xc7: both (both left the board)"
        )
        assert seen["nothing"].string_from(state, player) == ""
        assert seen["nothing recall"].string_from(state, player) == ""
    assert seen["view"].string_from(state, 0) != seen["view"].string_from(state, 1)
    # The private part: the kinds only the seat knows; with recall its setup and the
    # event told to it alone (the defender it was shown, the last event).
    assert seen["private"].string_from(state, 0) == SOUTH_KINDS
    assert seen["private"].string_from(state, 1) == NORTH_KINDS
    shown = (
        '{"cause": "engineer_scout", "kind": "engineer", "owner": "north", "point": "c7", '
        '"type": "revealed"}'
    )
    assert seen["private recall"].string_from(state, 0) == f"south setup {SOUTH_SETUP}\n{shown}"
    assert seen["private recall"].string_from(state, 1) == f"north setup {NORTH_SETUP}"
    # pyspiel's own strings are the default observer's and the record.
    assert state.observation_string(0) == str(referee.view("south"))
    assert state.information_state_string(1) == referee.player_record("north")
    # Play on: the public events go on matching, the private one stays.
    state.apply_action(605)  # North a7-a6
    state.apply_action(state.legal_actions()[0])
    private = seen["private recall"].string_from(state, 0).split("\n")
    assert private == [f"south setup {SOUTH_SETUP}", shown]


def test_observation_strings_before_and_after_the_deal() -> None:
    game = pyspiel.load_game("python_junqi_fanqi", {"setups": 8})
    state = game.new_initial_state()
    seen = observers(game)
    expected = {
        "view": ["south: the deal is still to come", "north: the deal is still to come"],
        "record": ["player south", "player north"],
        "public": ["the deal is still to come"] * 2,
        "public recall": ["the deal is still to come"] * 2,
        "private": ["south:", "north:"],
        "private recall": ["south:", "north:"],
        "nothing": ["", ""],
        "nothing recall": ["", ""],
    }
    for kind, strings in expected.items():
        assert [seen[kind].string_from(state, p) for p in (0, 1)] == strings, kind
    state.apply_action(3)
    state.apply_action(state.legal_actions()[0])  # south flips a1: North's, shown to all
    public_events = (
        "south flipped a1: north's company_commander\n"
        "the south player commands the army labelled north\n"
        "the north player commands the army labelled south"
    )
    expected = {
        "public recall": [public_events] * 2,
        # Nothing face up is known to one seat only; no setup was chosen.
        "private": ["south: ", "north: "],
        "private recall": ["south setup null", "north setup null"],
        "nothing": ["", ""],
    }
    for kind, strings in expected.items():
        assert [seen[kind].string_from(state, p) for p in (0, 1)] == strings, kind
    assert seen["view"].string_from(state, 1) == str(state.game.view("north"))
    assert seen["public"].string_from(state, 0) == str(state.game.public_view())


def test_observation_tensors() -> None:
    game = pyspiel.load_game("python_junqi_fanqi", {"setups": 8})
    default = game.make_py_observer()
    assert default.tensor is not None and default.tensor.dtype == np.float32
    assert default.tensor.shape == (49 * 60,)
    assert list(default.dict) == ["observation"]
    assert default.dict["observation"].shape == (49, 60)
    assert np.shares_memory(default.dict["observation"], default.tensor)
    state = game.new_initial_state()
    state.apply_action(3)
    for player, side in enumerate(("south", "north")):
        default.set_from(state, player)
        np.testing.assert_array_equal(default.tensor, state.game.observation(side).ravel())
        assert default.tensor.any()
    # Before the deal: zeros.
    default.set_from(game.new_initial_state(), 0)
    assert not default.tensor.any()
    # Only the default observation has a tensor; the others leave set_from a no-op.
    for kind, observer in observers(game).items():
        assert (observer.tensor is None) == (kind != "view"), kind
        if kind != "view":
            assert observer.dict == {}
            observer.set_from(state, 0)
    # The default observer (no observation type) is the player's view.
    assert default.string_from(state, 1) == str(state.game.view("north"))


def test_observer_refusals() -> None:
    game = pyspiel.load_game("python_junqi_classic")
    message = "observation parameters are not supported: {'x': 1}"
    with pytest.raises(ValueError, match=re.escape(message)):
        game.make_py_observer(None, {"x": 1})
    message = (
        "junqi observers give at most one player's private information "
        "(PrivateInfoType.ALL_PLAYERS is the referee's: str(state))"
    )
    everything = Obs(perfect_recall=False, public_info=True, private_info=Private.ALL_PLAYERS)
    with pytest.raises(ValueError, match=re.escape(message)):
        game.make_py_observer(everything)
