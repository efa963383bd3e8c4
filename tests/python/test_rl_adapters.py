"""The RL adapters' surface, pinned to values written out by hand (issue #45, mutation
testing): metadata, the spaces' exact bounds and dtypes, the registered Gymnasium ids,
refusals with their exact type and text, rewards and truncation at the ply cap, what
``render`` gives, how ``reset``'s seed makes the game, and the Python side of the
agents (``junqi.agents``) and of the package (its deprecated names)."""

from __future__ import annotations

import json
import os
import pickle
import re
import warnings
from typing import Any, Iterator, Optional

import numpy as np
import numpy.typing as npt
import pytest

import junqi

pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

import junqi.gymnasium as jgym  # noqa: E402
from junqi._rl import new_game, observation_space, team_rewards  # noqa: E402
from junqi.agents import LEVELS, level, play  # noqa: E402
from junqi.gymnasium import JunqiEnv, env_id  # noqa: E402
from junqi.pettingzoo import raw_env  # noqa: E402

# Written out by hand: classic's observation is 49 channels over 60 points (61 with the
# 12 modelled:<kind> planes) and its action space has 1188 ids; siguo's are 51 x 129
# and 5648.
CLASSIC_SHAPE = (49, 60)
CLASSIC_MODELLED_SHAPE = (61, 60)
CLASSIC_ACTIONS = 1188
SIGUO_SHAPE = (51, 129)
SIGUO_ACTIONS = 5648
PRESETS = [
    "classic", "siguo", "siguo-2p", "fanqi",
    "sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum",
]
# Gymnasium's warning (logger.warn: "WARN: " and the text, coloured yellow).
NO_RENDER_MODE = "WARN: You are calling render method without specifying any render mode."


def plain(message: str) -> str:
    """``message`` without its ANSI colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", message)


def check_space(space: Any, shape: tuple[int, int], actions: int) -> None:
    """``space`` is the documented Dict of two Boxes: observation float32 in [0, 1] of
    ``shape``, action_mask int8 in {0, 1} of ``[actions]``."""
    assert isinstance(space, spaces.Dict)
    assert sorted(space.spaces) == ["action_mask", "observation"]
    obs = space["observation"]
    assert isinstance(obs, spaces.Box)
    assert obs.shape == shape and obs.dtype == np.float32
    assert obs.low.shape == shape and (obs.low == 0.0).all()
    assert obs.high.shape == shape and (obs.high == 1.0).all()
    mask = space["action_mask"]
    assert isinstance(mask, spaces.Box)
    assert mask.shape == (actions,) and mask.dtype == np.int8
    assert (mask.low == 0).all() and (mask.high == 1).all()


def first_legal(mask: npt.NDArray[np.int8]) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size > 0
    return int(legal[0])


@pytest.fixture
def no_warnings() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


# --- junqi._rl: the shared helpers ------------------------------------------------


def test_observation_space_bounds_shapes_and_dtypes() -> None:
    classic = junqi.RuleSet("classic")
    check_space(observation_space(classic), CLASSIC_SHAPE, CLASSIC_ACTIONS)
    check_space(observation_space(classic, modelled=True), CLASSIC_MODELLED_SHAPE, CLASSIC_ACTIONS)
    check_space(observation_space(junqi.RuleSet("siguo")), SIGUO_SHAPE, SIGUO_ACTIONS)
    # Both adapters use it, with the modelled planes only when given a model.
    check_space(raw_env().observation_space("north"), CLASSIC_SHAPE, CLASSIC_ACTIONS)
    check_space(raw_env(model="plain").observation_space("south"), CLASSIC_MODELLED_SHAPE, CLASSIC_ACTIONS)
    check_space(JunqiEnv().observation_space, CLASSIC_SHAPE, CLASSIC_ACTIONS)
    check_space(JunqiEnv(model="plain").observation_space, CLASSIC_MODELLED_SHAPE, CLASSIC_ACTIONS)
    check_space(raw_env(rules="siguo").observation_space("west"), SIGUO_SHAPE, SIGUO_ACTIONS)


def test_team_rewards_are_zero_until_the_end_then_plus_and_minus_one() -> None:
    rules = junqi.RuleSet("classic")
    south, north = rules.sides
    game = junqi.Game.random_start(rules, 3)
    assert team_rewards(rules, game) == {south: 0.0, north: 0.0}
    game.resign(north)
    assert team_rewards(rules, game) == {south: 1.0, north: -1.0}


def test_an_opponent_model_object_is_kept_as_it_is() -> None:
    model = junqi.OpponentModel.plain()
    assert raw_env(model=model).model is model
    assert JunqiEnv(model=model).model is model
    assert raw_env().model is None and JunqiEnv().model is None


def test_a_model_name_is_read_for_the_environments_rule_set() -> None:
    # "shipped" is the model fitted to the environment's rule set (siguo's serves
    # siguo-2p too), not classic's.
    for rules, fitted in (("sanjun-modern", "sanjun-modern"), ("siguo-2p", "siguo")):
        for model in (raw_env(rules=rules, model="shipped").model,
                      JunqiEnv(rules=rules, model="shipped").model):
            assert model is not None and model.rules_name == fitted


def test_new_game_deploys_the_agents_seats_and_the_seeded_start_elsewhere() -> None:
    rules = junqi.RuleSet("classic")
    south, north = rules.sides
    made = new_game(rules, 21, {north: junqi.Agent("random", seed=4)})
    # South: the setup of the seeded start; North: the agent's own deployment.
    expected = junqi.Game(rules, seed=21)
    expected.deploy_random(south)
    junqi.Agent("random", seed=4).deploy(expected, north)
    assert made.record() == expected.record()
    assert made.view(south).to_svg() == junqi.Game.random_start(rules, 21).view(south).to_svg()
    # No agents (empty or None): the seeded start itself.
    nobody: list[Optional[dict[junqi.Side, junqi.Agent]]] = [{}, None]
    for none in nobody:
        assert new_game(rules, 21, none).record() == junqi.Game.random_start(rules, 21).record()
    # 翻棋 has no deployment: the deal comes from the seed, whatever the agents.
    fanqi = junqi.RuleSet("fanqi")
    dealt = new_game(fanqi, 8, {fanqi.sides[1]: junqi.Agent("random", seed=1)})
    assert dealt.record() == junqi.Game.random_start(fanqi, 8).record()


# --- junqi.pettingzoo ----------------------------------------------------------------


def test_raw_env_metadata() -> None:
    assert raw_env.metadata == {
        "render_modes": ["human", "ansi", "svg"],
        "name": "junqi_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }


def test_raw_env_before_reset() -> None:
    e = raw_env(rules="siguo")
    assert e.rules.name == "siguo"
    assert e.possible_agents == ["south", "east", "north", "west"]
    assert e.agents == [] and e.game is None
    assert e.agent_selection == "south"
    assert e.rewards == {} and e._cumulative_rewards == {}
    assert e.terminations == {} and e.truncations == {} and e.infos == {}
    assert e.render_mode is None and e.max_plies is None and e.render_seat is None
    # One space object per agent (seeding one does not seed another), all equal.
    observation_spaces = [e.observation_space(a) for a in e.possible_agents]
    assert len({id(s) for s in observation_spaces}) == 4
    for agent in e.possible_agents:
        space = e.action_space(agent)
        assert isinstance(space, spaces.Discrete) and space.n == SIGUO_ACTIONS
    # A RuleSet is used as it is.
    rules = junqi.RuleSet("fanqi")
    assert raw_env(rules=rules).rules is rules
    # Nothing works before reset(), with the same refusal everywhere.
    for call in (lambda: e.observe("south"), raw_env(render_mode="ansi").render,
                 lambda: e.choose("random")):
        with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
            call()


def test_raw_env_refusals_have_their_type_and_text() -> None:
    with pytest.raises(ValueError) as bad_mode:
        raw_env(render_mode="rgb_array")
    assert str(bad_mode.value) == "render_mode 'rgb_array' is not one of ['human', 'ansi', 'svg']"
    for plies in (0, -3):
        with pytest.raises(ValueError) as bad_plies:
            raw_env(max_plies=plies)
        assert str(bad_plies.value) == f"max_plies must be at least 1, not {plies}"
    with pytest.raises(ValueError) as bad_seat:
        raw_env(render_seat="east")
    assert str(bad_seat.value) == "render_seat 'east' is not a seat of classic (south, north)"
    # The limits themselves are accepted.
    assert raw_env(max_plies=1).max_plies == 1
    assert raw_env(rules="siguo", render_seat="east").render_seat == "east"
    for mode in ("human", "ansi", "svg"):
        assert raw_env(render_mode=mode).render_mode == mode
    # The agent to act must give an action.
    e = raw_env()
    e.reset(seed=1)
    with pytest.raises(ValueError) as no_action:
        e.step(None)
    assert str(no_action.value) == "south is to act: step() needs an action id, not None"


def test_raw_env_pickles_with_its_arguments() -> None:
    e = raw_env(rules="siguo", render_mode="ansi", max_plies=7, render_seat="east", model="plain")
    copy = pickle.loads(pickle.dumps(e))
    assert copy.rules.name == "siguo"
    assert (copy.render_mode, copy.max_plies, copy.render_seat) == ("ansi", 7, "east")
    assert copy.model is not None
    check_space(copy.observation_space("west"), (63, 129), SIGUO_ACTIONS)


def test_reset_clears_the_episode_and_selects_the_seat_to_act() -> None:
    e = raw_env(max_plies=2)
    e.reset(seed=6)
    e.step(first_legal(e.observe("south")["action_mask"]))
    e.step(first_legal(e.observe("north")["action_mask"]))
    assert all(e.truncations.values())
    e.step(None)  # a truncated agent leaves
    e.reset(seed=6)
    assert e.agents == ["south", "north"] and e.agents is not e.possible_agents
    assert e.rewards == {"south": 0.0, "north": 0.0}
    assert e._cumulative_rewards == {"south": 0.0, "north": 0.0}
    assert e.terminations == {"south": False, "north": False}
    assert e.truncations == {"south": False, "north": False}
    assert e.infos == {"south": {}, "north": {}}
    assert e.agent_selection == "south"
    game = e.game
    assert game is not None and game.ply == 0
    assert game.record() == junqi.Game.random_start(junqi.RuleSet("classic"), 6).record()


def test_masks_and_truncation_at_the_ply_cap() -> None:
    e = raw_env(max_plies=3)
    e.reset(seed=2)
    for ply in range(3):
        agent = e.agent_selection
        other = "north" if agent == "south" else "south"
        assert not any(e.truncations.values())
        mask = e.observe(agent)["action_mask"]
        game = e.game
        assert game is not None
        assert mask.dtype == np.int8 and mask.shape == (CLASSIC_ACTIONS,)
        assert np.array_equal(np.flatnonzero(mask), game.legal_action_ids())
        assert set(np.unique(mask)) == {0, 1}
        idle = e.observe(other)["action_mask"]
        assert idle.dtype == np.int8 and not idle.any()
        e.step(first_legal(mask))
        # No reward on the way.
        assert e.rewards == {"south": 0.0, "north": 0.0}
        assert e._cumulative_rewards == {"south": 0.0, "north": 0.0}
    # Truncated exactly at the cap, with no reward and no legal action for anyone.
    game = e.game
    assert game is not None and game.ply == 3 and not game.is_over
    assert e.truncations == {"south": True, "north": True}
    assert e.terminations == {"south": False, "north": False}
    for agent in ("south", "north"):
        assert not e.observe(agent)["action_mask"].any()
    # North is to act at ply 3, but finished agents take their last step first, in
    # seat order (PettingZoo's _deads_step_first); with an action id that step fails.
    assert e.agent_selection == "south"
    with pytest.raises(ValueError, match="when an agent is dead, the only valid action is None"):
        e.step(0)
    final_steps = []
    for agent in e.agent_iter():
        assert e.last()[1:4] == (0.0, False, True)
        final_steps.append(agent)
        e.step(None)
    assert final_steps == ["south", "north"] and e.agents == []
    # The seat to act of the cut game, gone from the environment, has no legal action.
    to_act = game.to_act
    assert to_act is not None and len(game.legal_action_ids()) > 0
    assert not e.observe(to_act.id)["action_mask"].any()
    assert game.ply == 3


def test_terminal_rewards_reach_every_agent() -> None:
    # Seed 5 with these masked random actions: North wins at ply 98.
    e = raw_env()
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    game = e.game
    assert game is not None
    while not game.is_over:
        assert e.rewards == {"south": 0.0, "north": 0.0}
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    result = game.result
    assert result is not None and result.winner is not None and result.winner.id == "north"
    assert e.rewards == {"south": -1.0, "north": 1.0}
    assert e.terminations == {"south": True, "north": True}
    assert e.truncations == {"south": False, "north": False}
    totals = {}
    for agent in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        assert terminated and not truncated
        assert not e.observe(agent)["action_mask"].any()
        totals[agent] = reward
        e.step(None)
    assert totals == {"south": -1.0, "north": 1.0}


def test_choose_plays_the_named_agent_with_its_seed() -> None:
    e = raw_env()
    e.reset(seed=3)
    game = e.game
    assert game is not None
    for _ in range(6):
        side = game.to_act
        assert side is not None and side.id == e.agent_selection
        expected = junqi.Agent("random", seed=17).choose(game, side).id
        assert e.choose("random", seed=17) == expected
        assert e.choose(junqi.Agent("random", seed=17)) == expected
        e.step(expected)


def test_raw_env_render(capsys: pytest.CaptureFixture[str]) -> None:
    # Without a render mode: None and Gymnasium's warning.
    quiet = raw_env()
    quiet.reset(seed=4)
    with pytest.warns(UserWarning) as caught:
        assert quiet.render() is None
    assert [plain(str(w.message)) for w in caught] == [NO_RENDER_MODE]
    # "ansi": the selected agent's text view, following the selection.
    text = raw_env(render_mode="ansi")
    text.reset(seed=4)
    game = text.game
    assert game is not None
    assert text.render() == str(game.view("south"))
    text.step(first_legal(text.observe("south")["action_mask"]))
    assert text.render() == str(game.view("north")) != str(game.view("south"))
    # render_seat fixes the seat.
    fixed = raw_env(render_mode="ansi", render_seat="north")
    fixed.reset(seed=4)
    assert fixed.game is not None and fixed.render() == str(fixed.game.view("north"))
    # "svg": the picture; "human": printed, returns None.
    picture = raw_env(render_mode="svg")
    picture.reset(seed=4)
    assert picture.game is not None and picture.render() == picture.game.view("south").to_svg()
    human = raw_env(render_mode="human")
    human.reset(seed=4)
    capsys.readouterr()
    assert human.render() is None
    assert human.game is not None
    assert capsys.readouterr().out == str(human.game.view("south")) + "\n"


# --- junqi.gymnasium -----------------------------------------------------------------


def test_junqi_env_metadata_spaces_and_defaults() -> None:
    assert JunqiEnv.metadata == {"render_modes": ["ansi", "svg"], "render_fps": 1}
    e = JunqiEnv()
    assert e.rules.name == "classic" and e.seat.id == "south"
    assert e.render_mode is None and e.max_plies is None and e.game is None
    assert e.illegal_reward == -1.0
    assert isinstance(e.action_space, spaces.Discrete) and e.action_space.n == CLASSIC_ACTIONS
    siguo = JunqiEnv(rules="siguo", seat="west", illegal_reward=-3)
    assert siguo.seat.id == "west" and isinstance(siguo.illegal_reward, float)
    assert isinstance(siguo.action_space, spaces.Discrete) and siguo.action_space.n == SIGUO_ACTIONS
    rules = junqi.RuleSet("fanqi")
    assert JunqiEnv(rules=rules).rules is rules
    # env() passes every argument on.
    made = jgym.env(rules="siguo-2p", seat="north", render_mode="svg", max_plies=9,
                    illegal_reward=-5.0, model="plain")
    assert (made.rules.name, made.seat.id, made.render_mode, made.max_plies,
            made.illegal_reward) == ("siguo-2p", "north", "svg", 9, -5.0)
    assert made.model is not None
    assert JunqiEnv(max_plies=1).max_plies == 1


def test_junqi_env_refusals_have_their_type_and_text() -> None:
    with pytest.raises(ValueError) as bad_seat:
        JunqiEnv(seat="east")
    assert str(bad_seat.value) == "seat 'east' is not a seat of classic (south, north)"
    with pytest.raises(ValueError) as bad_mode:
        JunqiEnv(render_mode="human")
    assert str(bad_mode.value) == "render_mode 'human' is not one of ['ansi', 'svg']"
    for plies in (0, -1):
        with pytest.raises(ValueError) as bad_plies:
            JunqiEnv(max_plies=plies)
        assert str(bad_plies.value) == f"max_plies must be at least 1, not {plies}"
    with pytest.raises(junqi.UnknownNameError):
        JunqiEnv(opponent="grandmaster")
    e = JunqiEnv()
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
        e.step(0)
    e.render_mode = "ansi"
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
        e.render()


def test_reset_deals_the_seeded_game_and_the_default_opponent_its_generator() -> None:
    # The game's seed and the default opponent's generator are the first two draws in
    # [0, 2**63 - 1) of reset's seeded generator (NumPy's default_rng).
    rules = junqi.RuleSet("classic")
    e = JunqiEnv(seat="north")
    obs, info = e.reset(seed=5)
    draws = np.random.default_rng(5)
    game_seed = int(draws.integers(0, 2**63 - 1))
    policy = np.random.default_rng(int(draws.integers(0, 2**63 - 1)))

    def opponent_moves(game: junqi.Game) -> None:
        mask = np.asarray(game.action_mask(), dtype=np.int8)
        game.play_id(int(policy.choice(np.flatnonzero(mask))))

    expected = junqi.Game.random_start(rules, game_seed)
    opponent_moves(expected)  # South, the opponent, moves first
    assert e.game is not None and e.game.record() == expected.record()
    np.testing.assert_array_equal(obs["observation"], expected.observation("north"))
    assert np.array_equal(np.flatnonzero(obs["action_mask"]), expected.legal_action_ids())
    assert info["ply"] == 1
    action = first_legal(obs["action_mask"])
    obs, _, _, _, info = e.step(action)
    expected.play_id(action)
    opponent_moves(expected)
    assert e.game.record() == expected.record() and info["ply"] == 3


def test_reset_seeds_the_agents_of_an_agent_opponent() -> None:
    # With an agent's name, the game's seed, then one agent's seed per other seat.
    rules = junqi.RuleSet("siguo")
    e = JunqiEnv(rules=rules, seat="south", opponent="random")
    e.reset(seed=9)
    draws = np.random.default_rng(9)
    game_seed = int(draws.integers(0, 2**63 - 1))
    agents = {side: junqi.Agent("random", seed=int(draws.integers(0, 2**63 - 1)))
              for side in rules.sides[1:]}
    expected = junqi.Game(rules, seed=game_seed)
    expected.deploy_random(rules.sides[0])
    for side, agent in agents.items():
        agent.deploy(expected, side)
    assert e.game is not None and e.game.record() == expected.record()
    # Then each seat moves with its own agent.
    e.step(first_legal(np.asarray(expected.action_mask(), dtype=np.int8)))
    expected.play_id(first_legal(np.asarray(expected.action_mask(), dtype=np.int8)))
    while expected.to_act != rules.sides[0]:
        mover = expected.to_act
        assert mover is not None
        agents[mover].act(expected, mover)
    assert e.game.record() == expected.record()


def test_steps_rewards_and_illegal_actions() -> None:
    e = JunqiEnv(illegal_reward=-2.5)
    obs, info = e.reset(seed=1)
    assert sorted(info) == ["action_mask", "ply"] and info["ply"] == 0
    assert info["action_mask"] is obs["action_mask"]
    obs, reward, terminated, truncated, info = e.step(first_legal(obs["action_mask"]))
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert type(reward) is float
    assert sorted(info) == ["action_mask", "ply"] and info["ply"] == 2
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
    assert info["action_mask"] is obs["action_mask"]
    # An id outside the action space, either side, is illegal: it ends the episode.
    for outside in (-1, CLASSIC_ACTIONS):
        e.reset(seed=1)
        obs, reward, terminated, truncated, info = e.step(outside)
        assert (reward, terminated, truncated) == (-2.5, True, False)
        assert info["illegal_action"] is True and info["ply"] == 0
        assert sorted(info) == ["action_mask", "illegal_action", "ply"]
        assert obs["action_mask"].dtype == np.int8 and not obs["action_mask"].any()
        assert e.game is not None and e.game.ply == 0
        with pytest.raises(RuntimeError) as over:
            e.step(0)
        assert str(over.value) == "the episode is over: call reset()"


def test_action_zero_is_an_action_like_any_other() -> None:
    # Seed 0 of 翻棋 with these masked random actions: action 0 (a1-b1) is legal at
    # South's 25th move, and is played, not refused.
    e = JunqiEnv(rules="fanqi")
    obs, info = e.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(24):
        obs, _, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not (terminated or truncated)
    assert obs["action_mask"][0] == 1
    ply = info["ply"]
    obs, reward, terminated, truncated, info = e.step(0)
    assert "illegal_action" not in info and info["ply"] > ply
    assert e.game is not None and e.game.ply > ply


def test_reset_gives_up_after_100_games_the_opponents_end() -> None:
    # A rule set whose draw limit ends the game at South's first move: North never
    # moves. reset deals 100 games (one opponent move each), then refuses.
    data = json.loads(junqi.RuleSet("classic").to_json())
    data["name"] = "one-ply"
    data["options"]["no_capture_draw_plies"] = 1
    calls: list[int] = []

    def opponent(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        calls.append(1)
        return first_legal(mask)

    e = JunqiEnv(rules=json.dumps(data), seat="north", opponent=opponent)
    with pytest.raises(RuntimeError) as refused:
        e.reset(seed=0)
    assert str(refused.value) == "100 games of one-ply ended before north could move"
    assert len(calls) == 100


def test_truncation_at_the_ply_cap() -> None:
    e = JunqiEnv(max_plies=3)
    obs, _ = e.reset(seed=1)
    obs, reward, terminated, truncated, info = e.step(first_legal(obs["action_mask"]))
    assert (reward, terminated, truncated, info["ply"]) == (0.0, False, False, 2)
    obs, reward, terminated, truncated, info = e.step(first_legal(obs["action_mask"]))
    # Cut at the seat's own move: the opponent does not move past the cap.
    assert (reward, terminated, truncated, info["ply"]) == (0.0, False, True, 3)
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="the episode is over"):
        e.step(0)
    # A cap the opponent reaches: the seat (North) is cut before it moves.
    north = JunqiEnv(seat="north", max_plies=1)
    obs, info = north.reset(seed=1)
    assert info["ply"] == 1 and not obs["action_mask"].any()


def test_a_decisive_episode_ends_with_the_seats_result() -> None:
    # South plays the masked random actions of seed 5's generator against the default
    # opponent; the episode ends when the game does, with South's team reward.
    e = JunqiEnv()
    obs, _ = e.reset(seed=3)
    rng = np.random.default_rng(5)
    terminated = truncated = False
    reward = 0.0
    while not (terminated or truncated):
        assert reward == 0.0
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = e.game
    assert game is not None and game.is_over and terminated and not truncated
    assert reward == team_rewards(game.rules, game)[e.seat] and reward in (1.0, -1.0)
    assert not obs["action_mask"].any() and "illegal_action" not in info


def test_junqi_env_render(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = JunqiEnv()
    quiet.reset(seed=2)
    with pytest.warns(UserWarning) as caught:
        assert quiet.render() is None
    assert [plain(str(w.message)) for w in caught] == [NO_RENDER_MODE]
    # The seat's own view, though South is to act: North's text, then picture.
    text = JunqiEnv(seat="north", render_mode="ansi")
    text.reset(seed=2)
    assert text.game is not None
    assert text.render() == str(text.game.view("north")) != str(text.game.view("south"))
    picture = JunqiEnv(seat="north", render_mode="svg")
    picture.reset(seed=2)
    assert picture.game is not None and picture.render() == picture.game.view("north").to_svg()
    assert capsys.readouterr().out == ""


def test_registered_ids_and_their_defaults(no_warnings: list[warnings.WarningMessage]) -> None:
    ids = [env_id(name) for name in PRESETS]
    assert ids[:3] == ["junqi/classic-v0", "junqi/siguo-v0", "junqi/siguo-2p-v0"]
    assert env_id(junqi.RuleSet("sanjun-hk")) == "junqi/sanjun-hk-v0"
    assert sorted(k for k in gymnasium.registry if k.startswith("junqi/")) == sorted(ids)
    saved = {i: gymnasium.registry[i] for i in ids}
    # Registering again keeps the specs (no "overriding" warning).
    jgym._register_presets()
    assert all(gymnasium.registry[i] is saved[i] for i in ids)
    try:
        for i in ids:
            del gymnasium.registry[i]
        jgym._register_presets()
        for name, i in zip(PRESETS, ids):
            spec = gymnasium.registry[i]
            assert spec.entry_point == "junqi.gymnasium:JunqiEnv"
            assert spec.kwargs == {"rules": name}
            assert spec.disable_env_checker is False
            assert spec.max_episode_steps is None
    finally:
        gymnasium.registry.update(saved)
    made = gymnasium.make("junqi/siguo-v0", seat="east")
    assert isinstance(made.unwrapped, JunqiEnv)
    assert made.unwrapped.rules.name == "siguo" and made.unwrapped.seat.id == "east"
    made.close()
    assert not no_warnings, [str(w.message) for w in no_warnings]


# --- junqi.agents --------------------------------------------------------------------


def test_levels_and_level() -> None:
    assert LEVELS == {1: "search:1", 2: "search:2", 3: "search:3", 4: "search:4", 5: "search:5"}
    for n in (1, 5):
        assert level(n).name == f"search:{n}"
    for n in (0, 6):
        with pytest.raises(junqi.OutOfRangeError) as refused:
            level(n)
        assert str(refused.value) == f"level {n} is not one of 1 to 5"
    # The seed is the agent's: the same deployment as Agent("search:2", seed=4).
    rules = junqi.RuleSet("classic")
    deployed = []
    for agent in (level(2, seed=4), junqi.Agent("search:2", seed=4), junqi.Agent("search:2", seed=5)):
        game = junqi.Game(rules, seed=1)
        agent.deploy(game, rules.sides[0])
        deployed.append(game.record())
    assert deployed[0] == deployed[1] != deployed[2]


def test_play_refuses_a_missing_seat_and_stops_at_the_cap() -> None:
    game = junqi.Game("classic", seed=1)
    with pytest.raises(ValueError) as missing:
        play(game, {"south": junqi.Agent("random", seed=1)})
    assert str(missing.value) == "no agent plays north (agents for ['south'])"
    assert game.ply == 0 and not game.deployed
    # Sides as Side objects or ids, mixed; the cap holds within a round (5 is odd).
    south, north = game.rules.sides
    agents: dict[Any, junqi.Agent] = {south: junqi.Agent("random", seed=1), "north": junqi.Agent("random", seed=2)}
    assert play(game, agents, max_plies=5) is game
    assert game.ply == 5 and not game.is_over
    # Played by those agents: the same game as their own moves.
    expected = junqi.Game("classic", seed=1)
    by_side = {south: junqi.Agent("random", seed=1), north: junqi.Agent("random", seed=2)}
    while expected.ply < 5:
        for side, agent in by_side.items():
            if expected.ply < 5:
                agent.act(expected, side)
    assert game.record() == expected.record()
    # Without a cap: to the end.
    assert play(junqi.Game("classic", seed=2), by_side).is_over


# --- junqi: the deprecated names -----------------------------------------------------


def test_deprecated_names_warn_and_unknown_names_fail() -> None:
    for old, new in (("Move", "Action"), ("IllegalMoveError", "IllegalActionError"),
                     ("Outcome", "CombatOutcome")):
        with pytest.warns(DeprecationWarning) as caught:
            value = getattr(junqi, old)
        assert value is getattr(junqi, new)
        assert [str(w.message) for w in caught] == [f"junqi.{old} is deprecated: use junqi.{new}"]
        # Reported at the caller (stacklevel=2), not inside junqi. Under mutmut its
        # trampoline adds frames (it sets MUTANT_UNDER_TEST), so there only "not inside
        # junqi" is asked; elsewhere the caller's own line.
        assert not caught[0].filename.endswith(os.path.join("junqi", "__init__.py"))
        if "MUTANT_UNDER_TEST" not in os.environ:
            assert caught[0].filename == __file__
    with pytest.raises(AttributeError) as missing:
        junqi.Nothing  # noqa: B018
    assert str(missing.value) == "module 'junqi' has no attribute 'Nothing'"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", junqi.__version__)
