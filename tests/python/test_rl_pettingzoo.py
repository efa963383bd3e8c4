"""junqi.pettingzoo: the AEC environment passes PettingZoo's own tests and keeps the
game's rules: seats, masks, terminal team rewards, eliminations, truncation, seeding."""

from __future__ import annotations

import json
import pathlib
import re
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import junqi

pytest.importorskip("pettingzoo")

from gymnasium.spaces import Discrete  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # type: ignore[import-untyped]  # noqa: E402

from junqi.pettingzoo import env, raw_env, team_rewards  # noqa: E402

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"

# PettingZoo's checks warn about choices made on purpose: agents are named after the
# seats ("south", not "player_0") and the observation is a dict with the mask.
EXPECTED_WARNINGS = (
    "We recommend agents to be named in the format",
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
)


def custom_rules() -> str:
    """A custom rule set as JSON text: classic with a shorter draw limit."""
    data = json.loads(junqi.RuleSet("classic").to_json())
    data["name"] = "custom-classic"
    data["options"]["no_capture_draw_plies"] = 30
    return json.dumps(data)


RULES = [*junqi.rule_sets(), "custom"]


def rules_arg(name: str) -> str:
    return custom_rules() if name == "custom" else name


def run_quietly(check: Callable[[], None]) -> None:
    """Runs a PettingZoo check; fails on any warning but the expected ones."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check()
    unexpected = {
        str(w.message)
        for w in caught
        if not any(str(w.message).startswith(e) for e in EXPECTED_WARNINGS)
    }
    assert not unexpected, unexpected


@pytest.mark.parametrize("name", RULES)
def test_api_test_and_seed_test(name: str) -> None:
    rules = rules_arg(name)
    # api_test plays up to 1000 cycles: a whole game under every rule set.
    run_quietly(lambda: api_test(env(rules=rules), num_cycles=1000))
    run_quietly(lambda: seed_test(lambda: env(rules=rules), num_cycles=40))


@pytest.mark.parametrize("name", ["classic", "siguo"])
def test_render_test(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # PettingZoo's render test over every mode: "human" prints the text view.
    run_quietly(
        lambda: render_test(
            lambda render_mode: env(rules=name, render_mode=render_mode),
            custom_tests={"svg": lambda r: isinstance(r, str) and r.startswith("<svg")},
        )
    )
    printed = capsys.readouterr().out
    assert printed.count("ply ") >= 5 or len(printed.splitlines()) > 50


def test_agents_spaces_and_masks() -> None:
    e = raw_env(rules="siguo")
    assert e.possible_agents == ["south", "east", "north", "west"]
    e.reset(seed=3)
    game = e.game
    assert game is not None
    channels, points = junqi.RuleSet("siguo").observation_spec()["shape"]
    to_act = game.to_act
    assert to_act is not None and e.agent_selection == to_act.id
    for agent in e.agents:
        obs = e.observe(agent)
        assert obs["observation"].shape == (channels, points)
        assert obs["observation"].dtype == np.float32
        np.testing.assert_array_equal(obs["observation"], game.observation(agent))
        assert obs["action_mask"].dtype == np.int8
        assert e.observation_space(agent).contains(obs)
        if agent == e.agent_selection:
            assert np.array_equal(np.flatnonzero(obs["action_mask"]), game.legal_action_ids())
        else:
            assert not obs["action_mask"].any()
        space = e.action_space(agent)
        assert isinstance(space, Discrete) and space.n == game.action_space


def test_seeded_reset_reproduces_the_game() -> None:
    e = raw_env(rules="classic")
    e.reset(seed=11)
    assert e.game is not None
    first = e.game.record()
    e.reset(seed=11)
    assert e.game.record() == first
    e.reset(seed=12)
    assert e.game.record() != first
    e.reset()
    unseeded = e.game.record()
    e.reset()
    assert e.game.record() != unseeded


def play_randomly(e: Any, seed: int) -> dict[str, float]:
    """Plays a whole episode with masked random actions; returns each agent's total."""
    rng = np.random.default_rng(seed)
    totals: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    return totals


def test_full_game_rewards_follow_the_result() -> None:
    e = env(rules="classic")
    e.reset(seed=5)
    totals = play_randomly(e, 5)
    game = e.unwrapped.game
    assert game.is_over and e.agents == []
    expected = team_rewards(game.rules, game)
    assert totals == {side.id: r for side, r in expected.items()}
    if game.result.is_draw:
        assert set(totals.values()) == {0.0}
    else:
        assert game.result.winner is not None
        assert totals[game.result.winner.id] == 1.0
        assert sorted(totals.values()) == [-1.0, 1.0]


def test_siguo_eliminated_seat_is_terminated_and_shares_its_team_result() -> None:
    rules = junqi.RuleSet("siguo")
    for seed in range(8):
        e = raw_env(rules=rules)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals: dict[str, float] = {}
        eliminated_early: set[str] = set()
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _ = e.last()
            totals[agent] = totals.get(agent, 0.0) + reward
            game = e.game
            assert game is not None
            if not game.is_over:
                # Mid-game: the agent to act is alive; an eliminated seat is
                # terminated, stays among the agents, and is never selected.
                assert agent not in eliminated_early
                for side in game.eliminated:
                    assert e.terminations[side.id] and side.id in e.agents
                    eliminated_early.add(side.id)
            action = None
            if not (terminated or truncated):
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            e.step(action)
        game = e.game
        assert game is not None and game.is_over and e.agents == []
        expected = {side.id: r for side, r in team_rewards(rules, game).items()}
        assert totals == expected
        for team in rules.teams:
            assert len({totals[side.id] for side in team}) == 1, "partners share"
        result = game.result
        assert result is not None
        if eliminated_early and not result.is_draw:
            return
    pytest.fail("no seed in range(8) eliminated a seat before a decisive end")


def test_max_plies_truncates_without_reward() -> None:
    e = env(rules="classic", max_plies=6)
    e.reset(seed=1)
    totals = play_randomly(e, 1)
    game = e.unwrapped.game
    assert game.ply == 6 and not game.is_over
    assert totals == {"south": 0.0, "north": 0.0}


def test_raw_env_refuses_an_illegal_action_and_env_ends_the_game() -> None:
    raw = raw_env(rules="classic")
    raw.reset(seed=2)
    assert raw.game is not None
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(junqi.IllegalActionError):
        raw.step(illegal)
    assert raw.game.ply == 0
    wrapped = env(rules="classic")
    wrapped.reset(seed=2)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped._cumulative_rewards[agent] == -1


def test_render_text_and_svg() -> None:
    e = env(rules="classic", render_mode="ansi")
    e.reset(seed=4)
    game = e.unwrapped.game
    assert e.render() == str(game.view(e.agent_selection))
    fixed = env(rules="classic", render_mode="svg", render_seat="north")
    fixed.reset(seed=4)
    picture = fixed.render()
    assert picture == fixed.unwrapped.game.view("north").to_svg()
    assert picture.lstrip().startswith("<svg") or picture.lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_seat"):
        raw_env(render_seat="east")


def test_fanqi_seats_exist_before_the_first_flip_assigns_armies() -> None:
    e = raw_env(rules="fanqi")
    e.reset(seed=9)
    game = e.game
    assert game is not None
    assert e.agents == ["south", "north"]
    assert game.view("south").army is None and game.view("north").army is None
    flipper = e.agent_selection
    obs = e.observe(flipper)
    action = int(np.flatnonzero(obs["action_mask"])[0])
    assert junqi.RuleSet("fanqi").action_at(action).is_flip
    e.step(action)
    assert game.view(flipper).army is not None
    for agent in e.agents:
        assert e.observation_space(agent).contains(e.observe(agent))


def doc_block(marker: str) -> str:
    """The python block of docs/python.md that contains ``marker``."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    matching = [b for b in blocks if marker in b]
    assert len(matching) == 1, f"docs/python.md has {len(matching)} blocks with {marker!r}"
    return str(matching[0])


def test_training_loop_sketch_in_the_docs_runs() -> None:
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    exec(compile(doc_block("# training-loop sketch"), str(DOC), "exec"), namespace)
    transitions = namespace["transitions"]
    returns = namespace["returns"]
    e = namespace["e"]
    game = e.unwrapped.game
    assert game.is_over
    # One transition per ply, each with an action its mask allowed.
    assert len(transitions) == game.ply
    for agent, observation, mask, action, reward in transitions:
        assert observation.shape == game.rules.observation_spec()["shape"]
        assert mask[action] == 1 and reward == 0.0
    assert returns == {s.id: r for s, r in team_rewards(game.rules, game).items()}


def test_observations_with_the_modelled_planes() -> None:
    e = raw_env(rules="classic", model="shipped")
    e.reset(seed=4)
    game = e.game
    assert game is not None
    for _ in range(30):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    channels, points = junqi.RuleSet("classic").observation_spec(modelled=True)["shape"]
    for agent in e.agents:
        obs = e.observe(agent)
        assert obs["observation"].shape == (channels, points)
        assert e.observation_space(agent).contains(obs)
        np.testing.assert_array_equal(obs["observation"], game.observation(agent, model="shipped"))
    with pytest.raises(TypeError):
        raw_env(rules="classic", model=5)  # type: ignore[arg-type]
