"""junqi.openspiel: every rule set is a pyspiel game that passes OpenSpiel's random
simulation test, hides what it must, resamples information sets, and lets OpenSpiel's
ISMCTS play a whole game."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import junqi

pytest.importorskip("pyspiel")

import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]  # noqa: E402
from open_spiel.integration_tests import api_test  # type: ignore[import-untyped]  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]  # noqa: E402
from open_spiel.python.observation import make_observation  # type: ignore[import-untyped]  # noqa: E402

from junqi import openspiel as jos  # noqa: E402
from junqi._rl import team_rewards  # noqa: E402  (shared by the adapters)

PRESET_NAMES = {
    "classic": "python_junqi_classic",
    "siguo": "python_junqi_siguo",
    "siguo-2p": "python_junqi_siguo_2p",
    "fanqi": "python_junqi_fanqi",
    "sanjun-modern": "python_junqi_sanjun_modern",
    "sanjun-hk": "python_junqi_sanjun_hk",
    "sanjun-book": "python_junqi_sanjun_book",
    "sanjun-forum": "python_junqi_sanjun_forum",
}


def test_adapters_need_only_their_own_framework() -> None:
    # junqi.openspiel without gymnasium and pettingzoo; junqi.gymnasium without pettingzoo.
    code = (
        "import sys\n"
        "sys.modules['pettingzoo'] = None\n"
        "sys.modules['gymnasium'] = None\n"
        "import junqi.openspiel\n"
        "del sys.modules['gymnasium']\n"
        "import junqi.gymnasium\n"
        "junqi.gymnasium.env().reset(seed=1)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_every_preset_is_registered() -> None:
    assert sorted(PRESET_NAMES) == sorted(junqi.rule_sets())
    registered = set(pyspiel.registered_names())
    for preset, name in PRESET_NAMES.items():
        assert jos.game_name(preset) == name and name in registered


@pytest.mark.parametrize("preset", sorted(PRESET_NAMES))
def test_random_sim_test(preset: str) -> None:
    # classic whole games; the others cut at 120 plies to keep the suite fast.
    params = {} if preset == "classic" else {"max_plies": 120}
    game = pyspiel.load_game(PRESET_NAMES[preset], params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_states_serialize_through_their_history() -> None:
    game = pyspiel.load_game("python_junqi_fanqi", {"max_plies": 40})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = deployed("python_junqi_siguo", [1, 2, 3, 4])
    state.apply_action(state.legal_actions()[0])
    again = pyspiel.load_game("python_junqi_siguo").deserialize_state(state.serialize())
    assert again.game.same_state(state.game)
    for player in range(4):
        assert again.information_state_string(player) == state.information_state_string(player)


def test_game_description() -> None:
    rules = junqi.RuleSet("siguo")
    game = pyspiel.load_game("python_junqi_siguo", {"setups": 500})
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    # Two teams of two: every result sums to zero.
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 4
    assert game.num_distinct_actions() == rules.action_space
    assert game.max_chance_outcomes() == 500
    assert tuple(game.observation_tensor_shape()) == rules.observation_spec()["shape"]
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    # The draw limit bounds a game: 70 quiet plies at most between two captures.
    assert game.max_game_length() == (2 * 4 * 25 + 1) * 71
    assert pyspiel.load_game("python_junqi_classic", {"max_plies": 50}).max_game_length() == 50


def deployed(name: str, outcomes: list[int], params: dict[str, Any] | None = None) -> Any:
    state = pyspiel.load_game(name, params or {}).new_initial_state()
    for k in outcomes:
        assert state.is_chance_node()
        state.apply_action(k)
    return state


def test_chance_deploys_each_seat_and_hides_it_from_the_others() -> None:
    a = deployed("python_junqi_classic", [5, 7])
    b = deployed("python_junqi_classic", [5, 9])
    assert not a.is_chance_node() and a.current_player() == 0
    # Same own setup: South cannot tell the games apart, North can.
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    np.testing.assert_array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.legal_actions() == b.legal_actions()
    # The tensor is the junqi observation; the string is the view.
    np.testing.assert_array_equal(
        np.asarray(a.observation_tensor(1)), a.game.observation("north").ravel()
    )
    assert a.observation_string(1) == str(a.game.view("north"))
    # The same outcomes give the same game.
    assert a.game.same_state(deployed("python_junqi_classic", [5, 7]).game)


class TestOpenSpielApiClassic(api_test.EnforceAPIOnPartialTreeBase):  # type: ignore[misc]
    """OpenSpiel's own API checks (its integration tests) on 400 states sampled from
    the game: legal actions empty for the seats not to act and at the end, every
    observation and information state the game type declares there and refusing a
    wrong player (and the tensor it does not declare left alone), private and public
    observations, history lengths."""

    game_name = "python_junqi_classic"
    game = pyspiel.load_game("python_junqi_classic", {"setups": 16, "max_plies": 40})


class TestOpenSpielApiFanqi(api_test.EnforceAPIOnPartialTreeBase):  # type: ignore[misc]
    """The same checks on 翻棋 (one chance node: the deal, no game before it)."""

    game_name = "python_junqi_fanqi"
    game = pyspiel.load_game("python_junqi_fanqi", {"setups": 16, "max_plies": 40})


def test_no_information_state_tensor_is_declared_or_given() -> None:
    # The game type says there is none, and pyspiel's Python-game path agrees: size 0,
    # an empty tensor for every seat (the observer of the information state has no
    # tensor), where the observation tensor has its declared size.
    for name in PRESET_NAMES.values():
        game = pyspiel.load_game(name, {"setups": 8, "max_plies": 4})
        kind = game.get_type()
        assert not kind.provides_information_state_tensor
        assert kind.provides_information_state_string and kind.provides_observation_tensor
        assert game.information_state_tensor_size() == 0
        assert game.information_state_tensor_shape() == []
        state = game.new_initial_state()
        while not state.is_terminal():
            for player in range(game.num_players()):
                assert state.information_state_tensor(player) == []
                assert len(state.observation_tensor(player)) == game.observation_tensor_size()
            state.apply_action(state.legal_actions()[0])


@pytest.mark.parametrize("name", ["python_junqi_classic", "python_junqi_fanqi"])
def test_python_answers_agree_with_pyspiels_own(name: str) -> None:
    # legal_actions, is_chance_node, is_terminal and current_player are answered in
    # Python; pyspiel's C++ versions (what C++ callers get) must say the same.
    game = pyspiel.load_game(name, {"setups": 8, "max_plies": 60})
    state = game.new_initial_state()
    rng = np.random.default_rng(7)
    base = pyspiel.State
    while True:
        current = state.current_player()
        assert state.is_chance_node() == base.is_chance_node(state) == (current == -1)
        assert state.is_terminal() == base.is_terminal(state)
        assert state.legal_actions() == base.legal_actions(state)
        assert state.legal_actions(current) == base.legal_actions(state, current)
        if current >= 0:
            for player in range(game.num_players()):
                assert state.legal_actions(player) == base.legal_actions(state, player)
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert base.legal_actions(state) == [] and state.returns() == [0.0, 0.0]


def test_refused_actions_leave_the_state_as_it_was() -> None:
    game = pyspiel.load_game("python_junqi_classic", {"setups": 8, "max_plies": 2})
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="outside 0..7"):
        state.apply_action(8)
    assert state.history() == [] and state.is_chance_node()
    state.apply_action(3)
    state.apply_action(4)
    with pytest.raises(ValueError, match="not a chance node"):
        state.chance_outcomes()
    before = state.game.render_full()
    with pytest.raises(junqi.IllegalActionError):
        state.apply_action(next(a for a in range(game.num_distinct_actions())
                                if a not in state.legal_actions()))
    assert state.game.render_full() == before and state.history() == [3, 4]
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[0])
    # Cut at max_plies: terminal, though the game itself could go on.
    assert state.is_terminal() and not state.game.is_over
    with pytest.raises(ValueError, match="terminal state"):
        state.apply_action(state.game.legal_action_ids()[0])
    assert state.game.ply == 2 and len(state.history()) == 4


def test_a_clone_is_independent() -> None:
    state = deployed("python_junqi_classic", [1, 2])
    state.apply_action(state.legal_actions()[0])
    clone = state.clone()
    assert clone.game is not state.game and clone.game.same_state(state.game)
    assert clone.history() == state.history() and clone.current_player() == 1
    state.apply_action(state.legal_actions()[0])
    assert clone.game.ply == 1 and clone.current_player() == 1 and len(clone.history()) == 3
    clone.apply_action(clone.legal_actions()[-1])
    assert state.game.ply == clone.game.ply == 2
    assert not state.game.same_state(clone.game)


def test_python_observers() -> None:
    game = pyspiel.load_game("python_junqi_sanjun_modern")
    state = deployed("python_junqi_sanjun_modern", [8, 9])
    state.apply_action(state.legal_actions()[0])
    view = make_observation(game)
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    for player, side in enumerate(("south", "north")):
        view.set_from(state, player)
        np.testing.assert_array_equal(view.tensor, state.game.observation(side).ravel())
        assert view.dict["observation"].shape == state.game.rules.observation_spec()["shape"]
        assert view.string_from(state, player) == state.observation_string(player)
        assert recall.string_from(state, player) == state.information_state_string(player)
    # Each information state holds its seat's own setup, and only that one.
    setups = [json.loads(recall.string_from(state, p))["setup"] for p in (0, 1)]
    assert setups[0] and setups[1] and setups[0] != setups[1]
    assert json.dumps(setups[0]) not in state.information_state_string(1)
    # No information-state tensor: the game type does not provide one.
    assert not game.get_type().provides_information_state_tensor
    assert recall.tensor is None and recall.dict == {}
    with pytest.raises(ValueError, match="at most one player"):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False,
                public_info=True,
                private_info=pyspiel.PrivateInfoType.ALL_PLAYERS,
            ),
        )


def test_public_and_private_observations_split_the_view() -> None:
    game = pyspiel.load_game("python_junqi_classic")
    kind = game.get_type()
    assert kind.provides_factored_observation_string
    state = deployed("python_junqi_classic", [3, 4])
    rng = np.random.default_rng(2)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    iig = pyspiel.IIGObservationType
    public = make_observation(
        game, iig(public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    private = make_observation(
        game,
        iig(public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER),
    )
    public_recall = make_observation(
        game, iig(public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE)
    )
    private_recall = make_observation(
        game,
        iig(public_info=False, perfect_recall=True, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER),
    )
    for observer in (public, private, public_recall, private_recall):
        assert observer.tensor is None
    # The public part is the same for every seat and is the public view.
    assert public.string_from(state, 0) == public.string_from(state, 1)
    assert public.string_from(state, 0) == str(state.game.public_view())
    assert public_recall.string_from(state, 0) == public_recall.string_from(state, 1)
    # The private part is the seat's own: its pieces' kinds, which the public view lacks.
    south = private.string_from(state, 0)
    north = private.string_from(state, 1)
    assert south.startswith("south: ") and north.startswith("north: ") and south != north
    view = state.game.view("south")
    own = [p for p in view.pieces if p.owner == junqi.Side.SOUTH]
    assert all(f"{p.point} {p.kind.id}" in south for p in own if p.kind is not None)
    assert json.loads(private_recall.string_from(state, 0).split(" setup ", 1)[1].splitlines()[0])
    # A public view knows no kind that only one seat was shown.
    for piece in state.game.public_view().pieces:
        if piece.kind is not None:
            for side in ("south", "north"):
                seen = state.game.view(side).piece_at(piece.point)
                assert seen is not None and seen.kind == piece.kind


@pytest.mark.parametrize("preset", sorted(PRESET_NAMES))
def test_generate_playthrough(preset: str) -> None:
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(
        f"{PRESET_NAMES[preset]}(max_plies=6,setups=64)", action_sequence=None, seed=3
    )
    assert "PublicObservationString()" in text
    assert "PrivateObservationString(0)" in text
    assert "InformationStateString(0)" in text
    assert "Returns() = " in text


def test_games_and_states_pickle() -> None:
    import pickle

    from open_spiel.python.tests import games_sim_test  # type: ignore[import-untyped]

    # OpenSpiel's own simulation test for Python games: pickling of the game, its type
    # and states, pyspiel serialization, clones.
    checker = games_sim_test.GamesSimTest()
    for name in ("python_junqi_classic(max_plies=40)", "python_junqi_fanqi(max_plies=20)"):
        checker.sim_game(pyspiel.load_game(name))
    data = json.loads(junqi.RuleSet("classic").to_json())
    data["name"] = "pickled custom"
    custom = pyspiel.load_game(jos.register(data), {"max_plies": 20})
    again = pickle.loads(pickle.dumps(custom))
    assert str(again) == str(custom) and again.rules == custom.rules
    state = deployed(jos.game_name(data), [1, 2], {"max_plies": 20})
    state.apply_action(state.legal_actions()[0])
    copy = pickle.loads(pickle.dumps(state))
    assert copy.game.same_state(state.game) and copy.history() == state.history()


def test_serialized_states_carry_the_game_not_the_outcome_table() -> None:
    game = pyspiel.load_game("python_junqi_classic")
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    while len(state.history()) < 2 + 100:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()  # builds the 65 536-entry list
            state.apply_action(int(rng.integers(0, len(outcomes))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = state.serialize()
    assert len(text) < 20_000, len(text)
    again = game.deserialize_state(text)
    assert again.game.same_state(state.game)
    assert again.information_state_string(1) == state.information_state_string(1)


def test_state_from_a_game_and_ismcts_resampling() -> None:
    game = pyspiel.load_game("python_junqi_classic", {"max_plies": 80})
    # A game with a hand-made setup for North (taken from another game's record).
    other = junqi.Game("classic", seed=11)
    other.deploy_random("north", seed=4)
    north_setup = json.loads(other.player_record("north"))["setup"]
    referee = junqi.Game("classic", seed=2)
    referee.deploy_random("south", seed=8)
    referee.deploy("north", north_setup)
    state = game.state_from(referee)
    assert not state.is_chance_node() and state.current_player() == 0
    assert state.game.same_state(referee) and state.game is not referee
    assert state.information_state_string(1) == referee.player_record("north")
    # A seat not yet deployed is still a chance node; a deployed later seat is refused.
    half = junqi.Game("classic", seed=2)
    half.deploy_random("south", seed=8)
    assert game.state_from(half).is_chance_node()
    wrong = junqi.Game("classic", seed=2)
    wrong.deploy_random("north", seed=8)
    with pytest.raises(ValueError, match="come first"):
        game.state_from(wrong)
    with pytest.raises(ValueError, match="rule set"):
        game.state_from(junqi.Game("siguo", seed=1))
    # OpenSpiel's ISMCTS resamples from it (the setups behind it are no chance outcomes).
    bot = ismcts.ISMCTSBot(
        game, _NoValue(), uct_c=2.0, max_simulations=8, random_state=np.random.RandomState(3)
    )
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        state.apply_action(state.legal_actions()[0])
    # A record replays into a state, and a determinized game too.
    replayed = junqi.Game.from_record(referee.record())
    assert game.state_from(replayed).game.same_state(referee)
    sampled = game.state_from(referee.determinize("south", 5))
    assert sampled.information_state_string(0) == referee.player_record("south")


def test_fanqi_deal_is_one_chance_node() -> None:
    state = pyspiel.load_game("python_junqi_fanqi").new_initial_state()
    assert state.is_chance_node() and getattr(state, "game") is None
    assert state.information_state_string(0) == "player south"
    state.apply_action(123)
    assert state.current_player() == 0
    assert state.game.same_state(junqi.Game("fanqi", seed=123))
    # Everything is face down: both seats see the same board (whose turn it is aside:
    # those channels are relative to the seat).
    channels = junqi.RuleSet("fanqi").observation_spec()["channels"]
    board = [i for i, c in enumerate(channels) if not c.startswith("to_act")]
    south = np.asarray(state.observation_tensor(0)).reshape(len(channels), -1)
    north = np.asarray(state.observation_tensor(1)).reshape(len(channels), -1)
    np.testing.assert_array_equal(south[board], north[board])
    assert not np.array_equal(south, north)


def test_resample_from_infostate_keeps_what_the_player_knows() -> None:
    state = deployed("python_junqi_classic", [1, 2])
    rng = np.random.default_rng(0)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = False
    for _ in range(5):
        sampled = state.resample_from_infostate(player, sampler)
        assert sampled.information_state_string(player) == state.information_state_string(player)
        assert sampled.observation_string(player) == state.observation_string(player)
        assert sampled.legal_actions() == state.legal_actions()
        assert sampled.history() == state.history()
        differs |= sampled.game.render_full() != state.game.render_full()
        # The sample plays on by itself.
        sampled.apply_action(sampled.legal_actions()[0])
    assert differs, "five samples all guessed every hidden piece"
    # During the chance nodes the player keeps its own setup, the others are redrawn.
    early = deployed("python_junqi_siguo", [3, 4, 5, 6])
    redrawn = early.resample_from_infostate(2, sampler)
    assert redrawn.history()[2] == 5
    assert redrawn.information_state_string(2) == early.information_state_string(2)


def test_siguo_whole_game_team_returns() -> None:
    state = pyspiel.load_game("python_junqi_siguo").new_initial_state()
    rng = np.random.default_rng(1)  # a game won, not drawn
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(0, 65536)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    rewards = team_rewards(state.game.rules, state.game)
    assert state.returns() == [rewards[side] for side in state.game.rules.sides]
    assert sum(state.returns()) == 0.0
    south, east, north, west = state.returns()
    assert south == north and east == west and south == -east
    # The same returns from a clone, a pickled copy and a state made from the game; the
    # list is the caller's.
    import pickle

    returns = list(state.returns())
    assert state.clone().returns() == returns
    assert pickle.loads(pickle.dumps(state)).returns() == returns
    assert state.get_game().state_from(state.game).returns() == returns
    state.returns()[0] = 9.0
    assert state.returns() == returns


def test_custom_rule_set_registers() -> None:
    data = json.loads(junqi.RuleSet("classic").to_json())
    data["name"] = "Quick Classic"
    data["options"]["no_capture_draw_plies"] = 20
    name = jos.register(json.dumps(data))
    assert name == "python_junqi_quick_classic"
    assert jos.register(data) == name  # the same rule set again: a no-op
    data["options"]["no_capture_draw_plies"] = 30
    with pytest.raises(ValueError, match="already registered"):
        jos.register(data)
    game = pyspiel.load_game(name)
    assert game.max_game_length() == (2 * 2 * 25 + 1) * 21
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_rule_set_without_draw_limit_needs_max_plies() -> None:
    data = json.loads(junqi.RuleSet("classic").to_json())
    data["name"] = "endless"
    data["options"]["no_capture_draw_plies"] = 0
    name = jos.register(data)
    with pytest.raises(ValueError, match="no draw limit"):
        pyspiel.load_game(name)
    game = pyspiel.load_game(name, {"max_plies": 30})
    assert game.max_game_length() == 30
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.integers(0, 65536)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    # Cut at max_plies: a draw.
    assert state.game.ply == 30 and state.returns() == [0.0, 0.0]


class _NoValue(mcts.Evaluator):  # type: ignore[misc]
    """Uniform priors and a neutral value: the search itself is what is tested."""

    def evaluate(self, state: Any) -> Any:
        return np.zeros(state.num_players())

    def prior(self, state: Any) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def test_ismcts_plays_a_whole_classic_game(monkeypatch: pytest.MonkeyPatch) -> None:
    resamples = 0
    original = jos.JunqiState.resample_from_infostate

    def counting(self: jos.JunqiState, player: int, sampler: Any) -> jos.JunqiState:
        nonlocal resamples
        resamples += 1
        return original(self, player, sampler)

    monkeypatch.setattr(jos.JunqiState, "resample_from_infostate", counting)
    game = pyspiel.load_game("python_junqi_classic")
    bot = ismcts.ISMCTSBot(
        game, _NoValue(), uct_c=2.0, max_simulations=6, random_state=np.random.RandomState(1)
    )
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    bot_moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            bot_moves += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.game.is_over, "the game ended by the rules, not by a cut"
    assert bot_moves > 10 and resamples >= bot_moves
    assert sorted(state.returns()) in ([0.0, 0.0], [-1.0, 1.0])
