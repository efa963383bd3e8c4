"""junqi.gymnasium: one seat against a fixed opponent passes Gymnasium's checker and
keeps the game's rules: whose turn, masks, terminal team rewards, seeding."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import junqi

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from junqi.gymnasium import JunqiEnv, env  # noqa: E402
from junqi._rl import team_rewards  # noqa: E402  (shared by the adapters)

import gymnasium  # noqa: E402

from junqi.gymnasium import env_id  # noqa: E402


def play_out(e: JunqiEnv, seed: int) -> tuple[float, int, dict[str, Any]]:
    """Plays an episode with masked random actions: (last reward, steps, last info)."""
    rng = np.random.default_rng(seed)
    obs, info = e.reset(seed=seed)
    steps = 0
    while True:
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        game = e.game
        assert game is not None and game.to_act == e.seat
        assert np.array_equal(np.flatnonzero(obs["action_mask"]), game.legal_action_ids())
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = e.step(action)
        steps += 1
        if terminated or truncated:
            assert not obs["action_mask"].any()
            return reward, steps, info
        assert reward == 0.0


@pytest.mark.parametrize("name", junqi.rule_sets())
def test_check_env(name: str) -> None:
    # Every preset is registered on import; Gymnasium's checker has nothing to warn of.
    seat = junqi.RuleSet(name).sides[-1].id
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for mode in (None, "ansi", "svg") if name == "classic" else (None,):
            made = gymnasium.make(env_id(name), seat=seat, render_mode=mode)
            assert made.spec is not None and made.spec.id == f"junqi/{name}-v0"
            check_env(made.unwrapped)
            made.close()
    assert not caught, [str(w.message) for w in caught]


def test_make_takes_the_options_as_keywords() -> None:
    made = gymnasium.make("junqi/siguo-2p-v0", seat="north", max_plies=7)
    assert isinstance(made.unwrapped, JunqiEnv)
    assert made.unwrapped.rules.name == "siguo-2p" and made.unwrapped.seat == junqi.Side.NORTH
    _, info = made.reset(seed=2)
    steps = 0
    while True:
        _, _, terminated, truncated, info = made.step(
            int(np.flatnonzero(info["action_mask"])[0])
        )
        steps += 1
        if terminated or truncated:
            break
    assert truncated and made.unwrapped.game is not None and made.unwrapped.game.ply >= 7
    with pytest.raises(gymnasium.error.Error):
        gymnasium.make("junqi/no-such-preset-v0")


def test_full_episode_reward_is_the_seats_result() -> None:
    e = env(rules="classic", seat="north")
    reward, steps, _ = play_out(e, 7)
    game = e.game
    assert game is not None and game.is_over
    assert reward == team_rewards(game.rules, game)[junqi.Side.NORTH]
    # North moved every other ply.
    assert steps in (game.ply // 2, (game.ply + 1) // 2)


def test_seed_reproduces_the_episode() -> None:
    a, b = env(rules="siguo-2p"), env(rules="siguo-2p")
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.game is not None and b.game is not None
    assert a.game.record() == b.game.record()
    for _ in range(5):
        obs, *_ = a.step(int(np.flatnonzero(a._observe()["action_mask"])[0]))
        b.step(int(np.flatnonzero(b._observe()["action_mask"])[0]))
        assert a.game.record() == b.game.record()
    b.reset(seed=6)
    assert b.game.record() != a.game.record()


def test_custom_opponent_gets_its_seats_observation_and_mask() -> None:
    calls: list[tuple[tuple[int, ...], int]] = []

    def first_legal(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        assert observation.dtype == np.float32 and mask.dtype == np.int8
        action = int(np.flatnonzero(mask)[0])
        calls.append((observation.shape, action))
        return action

    e = env(rules="classic", seat="north", opponent=first_legal)
    obs, _ = e.reset(seed=1)
    # South opens: the opponent made the first move before North's first observation.
    assert len(calls) == 1
    game = e.game
    assert game is not None and game.ply == 1
    assert calls[0][0] == tuple(junqi.RuleSet("classic").observation_spec()["shape"])
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(calls) == 2 and game.ply in (2, 3)


def test_illegal_action_ends_the_episode_and_leaves_the_game() -> None:
    e = env(rules="classic", illegal_reward=-5.0)
    obs, _ = e.reset(seed=3)
    game = e.game
    assert game is not None
    ply = game.ply
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = e.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-5.0, True, False, True)
    assert game.ply == ply
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)


def test_max_plies_truncates() -> None:
    e = env(rules="classic", max_plies=10)
    reward, _, info = play_out(e, 2)
    game = e.game
    assert game is not None and not game.is_over and game.ply >= 10
    assert reward == 0.0 and info["ply"] == game.ply


def test_siguo_seat_eliminated_early_gets_its_team_result() -> None:
    for seed in range(6):
        e = env(rules="siguo", seat="south")
        reward, _, _ = play_out(e, seed)
        game = e.game
        assert game is not None and game.is_over
        assert reward == team_rewards(game.rules, game)[junqi.Side.SOUTH]
        events = game.events("south")
        out = [i for i, ev in enumerate(events) if ev.type == "eliminated" and ev.side == junqi.Side.SOUTH]
        if out and any(ev.type in ("moved", "attacked") for ev in events[out[0] + 1 :]):
            # The game went on after South was out: the opponents played it out.
            return
    pytest.fail("no seed in range(6) eliminated south before the end")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="seat"):
        env(rules="classic", seat="east")
    with pytest.raises(ValueError, match="max_plies"):
        env(max_plies=0)
    with pytest.raises(RuntimeError, match="reset"):
        env().step(0)


def test_observations_with_the_modelled_planes() -> None:
    e = env(rules="classic", model="shipped")
    check_env(e)
    obs, _ = e.reset(seed=3)
    assert obs["observation"].shape == tuple(junqi.RuleSet("classic").observation_spec(modelled=True)["shape"])
    assert e.observation_space.contains(obs)
    game = e.game
    assert game is not None
    np.testing.assert_array_equal(obs["observation"], game.observation(e.seat, model="shipped"))
