"""VectorEnv: batched stepping in Rust, numpy in and out; Game's numpy mask and its
per-position cache of legal action ids."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import numpy.typing as npt
import pytest

import junqi

PRESETS = junqi.rule_sets()


def random_actions(env: junqi.VectorEnv, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    return np.array([rng.choice(env.legal_action_ids(i)) for i in range(env.n)], dtype=np.int64)


def test_reset_gives_each_seat_its_own_mask_and_observation() -> None:
    env = junqi.VectorEnv("classic", 5, seed=3)
    obs, masks, to_act = env.reset()
    assert obs is not None
    c, p = env.observation_shape
    assert obs.shape == (5, c, p) and obs.dtype == np.float32
    assert masks.shape == (5, env.action_space) and masks.dtype == np.bool_
    assert to_act.shape == (5,) and to_act.dtype == np.int8
    assert len(env) == env.n == 5 and env.seats == [junqi.Side.SOUTH, junqi.Side.NORTH]
    for i in range(5):
        game = env.game(i)
        seat = env.seats[int(to_act[i])]
        assert game.to_act == seat
        assert np.array_equal(masks[i], game.action_mask())
        assert np.array_equal(obs[i], game.observation(seat))
        assert list(env.legal_action_ids(i)) == game.legal_action_ids()
    # Random legal actions drawn in Rust, the same for the same seed.
    acts = env.random_actions()
    assert acts.dtype == np.int64 and acts.shape == (5,)
    assert all(masks[i][acts[i]] for i in range(5))
    again = junqi.VectorEnv("classic", 5, seed=3)
    again.reset()
    assert np.array_equal(again.random_actions(), acts)


@pytest.mark.parametrize("name", PRESETS)
def test_stepping_agrees_with_the_games(name: str) -> None:
    env = junqi.VectorEnv(name, 4, seed=11, max_plies=120, threads=2)
    obs, masks, to_act = env.reset()
    rng = np.random.default_rng(0)
    seats = len(env.seats)
    finished: list[junqi.FinishedGame] = []
    for step in range(260):
        obs, masks, rewards, terminated, truncated, to_act = env.step(random_actions(env, rng))
        assert obs is not None and rewards.shape == (4, seats) and rewards.dtype == np.float32
        now = {f.env: f for f in env.finished()}
        assert set(now) == {i for i in range(4) if terminated[i] or truncated[i]}
        finished.extend(now.values())
        for i, f in now.items():
            # +1 to the winning seats (players: in 翻棋 a seat may command either army).
            if f.result is not None and f.result.winners:
                expected = [1.0 if seat in f.result.winners else -1.0 for seat in env.seats]
                assert rewards[i].tolist() == expected
        for i in range(4):
            if not (terminated[i] or truncated[i]):
                assert not rewards[i].any()
            if truncated[i]:
                assert not terminated[i] and not rewards[i].any()
            if terminated[i] and rewards[i].any():
                # Winners +1, losers -1; teammates share.
                assert set(rewards[i].tolist()) == {1.0, -1.0}
                for team in env.rules.teams:
                    idx = [env.seats.index(s) for s in team]
                    assert len({float(rewards[i][j]) for j in idx}) == 1
        if step % 37 == 0:
            for i in range(4):
                game = env.game(i)
                assert np.array_equal(masks[i], game.action_mask())
                seat = env.seats[int(to_act[i])]
                assert np.array_equal(obs[i], game.observation(seat))
    assert len(finished) >= 4
    for f in finished:
        assert f.truncated == (f.result is None)
        assert f.plies == f.game().ply and (f.truncated or f.plies <= 120)
        again = junqi.Game.from_record(f.record())
        assert again.result == f.result and again.ply == f.plies
        assert repr(f).startswith(f"<FinishedGame env={f.env} episode={f.episode}")
    assert env.finished() == []


def test_the_same_seed_gives_the_same_games_whatever_the_threads() -> None:
    def run(threads: int) -> tuple[list[str], npt.NDArray[np.float32]]:
        env = junqi.VectorEnv("fanqi", 70, seed=5, threads=threads)
        obs, _, _ = env.reset()
        assert obs is not None
        rng = np.random.default_rng(1)
        total = np.zeros((70, 2), dtype=np.float32)
        for _ in range(150):
            obs, _, rewards, _, _, _ = env.step(random_actions(env, rng))
            total += rewards
        assert obs is not None
        return [f.record() for f in env.finished()], np.concatenate([obs.ravel(), total.ravel()])

    a, b = run(1), run(2)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    # Reseeding by reset(seed) starts the same games again.
    env = junqi.VectorEnv("classic", 3, seed=1)
    _, m1, _ = env.reset(seed=9)
    env.step(env_first_actions(env))
    _, m2, _ = env.reset(seed=9)
    assert np.array_equal(m1, m2)


def env_first_actions(env: junqi.VectorEnv) -> list[int]:
    return [int(env.legal_action_ids(i)[0]) for i in range(env.n)]


def test_masks_only_and_bad_calls_change_nothing() -> None:
    env = junqi.VectorEnv("siguo", 3, seed=2, observations=False)
    obs, masks, to_act = env.reset()
    assert obs is None and not env.observes
    good = env_first_actions(env)
    illegal = next(a for a in range(env.action_space) if not masks[2][a])
    with pytest.raises(junqi.IllegalActionError, match=f"action {illegal} is not legal in game 2"):
        env.step([good[0], good[1], illegal])
    with pytest.raises(junqi.IllegalActionError, match="game 0"):
        env.step([-1, good[1], good[2]])
    with pytest.raises(ValueError, match="2 actions for 3 games"):
        env.step(good[:2])
    with pytest.raises(ValueError, match="one-dimensional"):
        env.step([good])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"actions\[0\] is a str, not an integer"):
        env.step(["a2-a6", "x", "y"])  # type: ignore[list-item]
    with pytest.raises(IndexError, match="game 3 is outside 0..3"):
        env.game(3)
    assert all(env.game(i).ply == 0 for i in range(3))
    obs, masks, rewards, terminated, truncated, to_act = env.step(np.array(good, dtype=np.int32))
    assert obs is None and rewards.shape == (3, 4)
    assert all(env.game(i).ply == 1 for i in range(3))
    with pytest.raises(ValueError, match="at least one game"):
        junqi.VectorEnv("classic", 0)
    assert repr(env) == '<VectorEnv "siguo" n=3 observations=False>'


def test_game_mask_is_numpy_and_ids_are_cached_per_position() -> None:
    game = junqi.Game("classic", 4)
    assert game.legal_action_ids() == [] and not game.action_mask().any()
    game.deploy_random("south")
    game.deploy_random("north")
    ids = game.legal_action_ids()
    mask = game.action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.action_space,)
    assert np.flatnonzero(mask).tolist() == ids
    # Each call gives a new list: changing one does not change the next.
    ids.append(-5)
    assert game.legal_action_ids() == ids[:-1]
    game.play_id(ids[0])
    after = game.legal_action_ids()
    assert after == np.flatnonzero(game.action_mask()).tolist() and after != ids[:-1]
    # A game restored from another record forgets the cache.
    other = junqi.Game("classic", 8)
    other.deploy_random("south")
    other.deploy_random("north")
    other.play_id(other.legal_action_ids()[-1])
    game.__setstate__(other.record())
    assert game.legal_action_ids() == other.legal_action_ids()


def test_sharing_an_env_between_threads_does_not_deadlock() -> None:
    # One thread steps (the lock held without the GIL) while another keeps calling
    # methods that take the lock with the GIL held. A lock held while waiting for the
    # GIL would hang both; run it in a child process so a hang fails the test.
    code = """
import threading, junqi
env = junqi.VectorEnv("classic", 256, seed=1, threads=2)
env.reset()
def stepping():
    for _ in range(150):
        env.step(env.random_actions())
t = threading.Thread(target=stepping)
t.start()
calls = 0
while t.is_alive():
    assert env.n == 256 and len(env.random_actions()) == 256
    env.game(calls % 256)
    env.finished()
    calls += 1
t.join()
print("ok", calls)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")


# --- hostile input (issue #27) ------------------------------------------------------


def test_a_step_plays_the_actions_it_checked_while_another_thread_rewrites_them() -> None:
    # The step used to read the caller's array after checking it, with the GIL
    # released: a thread rewriting it meanwhile made illegal moves play (records that
    # no longer replay) or panicked half-way. Now each step is all or nothing.
    import threading

    env = junqi.VectorEnv("classic", 128, seed=5, threads=2)
    env.reset()
    actions = env.random_actions()
    illegal = np.full(env.n, env.action_space - 1, dtype=np.int64)
    stop = threading.Event()

    def rewrite() -> None:
        while not stop.is_set():
            actions[:] = illegal
            actions[:] = legal_now[0]

    legal_now = [actions.copy()]
    t = threading.Thread(target=rewrite)
    # Hand the GIL over often, so that the rewriting runs whenever the step has let
    # go of it.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    t.start()
    try:
        played = refused = 0
        for _ in range(60):
            legal_now[0] = env.random_actions()
            actions[:] = legal_now[0]
            before = [env.game(i).ply for i in range(env.n)]
            try:
                env.step(actions)
                played += 1
                # Every game moved exactly once (or was restarted).
                assert all(env.game(i).ply in (before[i] + 1, 0) for i in range(env.n))
            except junqi.IllegalActionError:
                refused += 1
                assert [env.game(i).ply for i in range(env.n)] == before
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(interval)
    assert played + refused == 60
    for i in range(env.n):
        # Every game is one its record replays (no illegal move slipped in).
        game = env.game(i)
        assert junqi.Game.from_record(game.record()).same_state(game)


def test_a_huge_number_of_games_is_refused_not_an_abort() -> None:
    for n in (10**9, 2**62, 65537):
        with pytest.raises(ValueError, match=f"{n} games asked of a vector environment: at most 65536"):
            junqi.VectorEnv("classic", n)
    with pytest.raises(OverflowError):
        junqi.VectorEnv("classic", 2**64)


def test_finished_games_never_read_are_bounded() -> None:
    # Every game is cut short at every step (max_plies=1): 4 finished games a step.
    env = junqi.VectorEnv("classic", 4, seed=3, observations=False, max_plies=1)
    env.reset()
    assert env.finished_capacity == 1024
    for _ in range(266):
        env.step(env.random_actions())
    assert env.finished_len == 1024 and env.finished_dropped == 40
    games = env.finished()
    assert len(games) == 1024 and env.finished_len == 0
    # The oldest were dropped: reset() started episode 1, so the first kept is slot
    # 0's episode 11.
    assert (games[0].env, games[0].episode) == (0, 11)
    assert (games[-1].env, games[-1].episode) == (3, 266)


def test_max_plies_zero_is_no_limit_as_in_c() -> None:
    env = junqi.VectorEnv("classic", 3, seed=2, observations=False, max_plies=0)
    env.reset()
    for _ in range(5):
        truncated = env.step(env.random_actions())[4]
        assert not truncated.any()
    assert env.finished_len == 0 and all(env.game(i).ply == 5 for i in range(3))


def test_actions_must_be_integers() -> None:
    env = junqi.VectorEnv("classic", 3, seed=1, observations=False)
    env.reset()
    good = env.random_actions()
    bad: list[tuple[object, str]] = [
        (good.astype(np.float64), "not a numpy array of float64"),
        (good.astype(np.bool_), "not a numpy array of bool"),
        (good.astype(np.complex128), "not a numpy array of complex128"),
        (good.astype(str), "not a numpy array of <U"),
        ([float(good[0]), int(good[1]), int(good[2])], r"actions\[0\] is a float"),
        ([int(good[0]), True, int(good[2])], r"actions\[1\] is a bool"),
        ([int(good[0]), int(good[1]), 1j], r"actions\[2\] is a complex"),
        ([np.float32(good[0]), int(good[1]), int(good[2])], r"actions\[0\] is a float32"),
        ("012", "not str"),
        (7, "not int"),
    ]
    for actions, message in bad:
        with pytest.raises(TypeError, match=message):
            env.step(actions)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="more than 3 actions for 3 games"):
        env.step(iter(range(10**12)))  # type: ignore[arg-type]
    assert all(env.game(i).ply == 0 for i in range(3))
    # Integers of any width, Python's or numpy's, and object arrays of them play.
    env.step([np.int16(good[0]), int(good[1]), np.uint64(good[2])])  # type: ignore[list-item]
    env.step(env.random_actions().astype(np.uint16))
    env.step(env.random_actions().astype(object))
    assert all(env.game(i).ply == 3 for i in range(3))


def test_observations_with_the_modelled_planes() -> None:
    env = junqi.VectorEnv("classic", 3, seed=4, model="shipped", max_plies=300)
    assert env.observation_shape == tuple(junqi.RuleSet("classic").observation_spec(modelled=True)["shape"])
    obs, masks, to_act = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(50):
        obs, masks, _, _, _, to_act = env.step(random_actions(env, rng))
    assert obs is not None
    for i in range(env.n):
        seat = env.seats[int(to_act[i])]
        np.testing.assert_allclose(obs[i], env.game(i).observation(seat, model="shipped"), atol=1e-5)
    plain = junqi.VectorEnv("classic", 3, seed=4, max_plies=300)
    plain.reset()
    rng = np.random.default_rng(1)
    for _ in range(50):
        plain_obs, *_ = plain.step(random_actions(plain, rng))
    # The same games; the plain channels are the plain environment's.
    assert plain_obs is not None
    assert np.array_equal(obs[:, : plain.observation_shape[0]], plain_obs)
    with pytest.raises(junqi.JunqiError, match="psychic"):
        junqi.VectorEnv("classic", 1, model="psychic")
