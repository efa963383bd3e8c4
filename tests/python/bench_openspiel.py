"""The cost of junqi's OpenSpiel states beside the same work on ``junqi.Game``, in one
run (not run by the tests).

    .venv/bin/python tests/python/bench_openspiel.py [--rollouts 200] [--rounds 7]
        [--rules classic]

Needs ``pip install ./py[rl]``. In each of ``--rounds`` rounds every pair (the pyspiel
state, then ``junqi.Game``, or the other way round: the order alternates) is timed back
to back, so both sides see the same machine; each time printed is the median over the
rounds, each ratio the median of the rounds' ratios (their range in brackets). Times are
the CPU time of this thread (``time.thread_time``), so other processes on a busy machine
count less than in wall-clock time.

- rollout: what OpenSpiel's ISMCTS with a random-rollout evaluator does at a leaf:
  clone the state, then until the game ends ask for the legal actions and apply a
  random one; then read the returns. The same rollout on ``junqi.Game`` (``copy``,
  ``legal_action_ids``, ``play_id``, ``result``) from the same deployed positions with
  the same random choices plays the same moves (checked).
- ``clone``, ``legal_actions``, ``returns``: one call on a state 40 plies into a game
  (and ``returns`` at the end of one), beside ``Game.copy``, ``Game.legal_action_ids``
  and ``Game.result``, each timed as a statement in ``timeit``'s loop.
- ``apply_action``: every move of whole recorded games replayed on clones made
  beforehand, per move, beside ``Game.play_id``.
- pieces: where the state's own time goes in ``clone`` (its new initial state, the deep
  copy of its attributes) and in ``apply_action`` (its ``_apply_action`` alone, whose
  ``play_id`` is the ``junqi.Game`` column).

The last column is pyspiel's own cost: the same call on a Python game whose state
holds nothing and whose methods do nothing. ``clone``, ``apply_action`` and (unless the
state answers it in Python) ``legal_actions`` go through pyspiel's C++, which calls the
state back in Python; ``returns`` is the state's Python method (the empty one returns a
new ``[0.0, 0.0]``).
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import time
import timeit
from typing import Any, Callable

import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

import junqi
import junqi.openspiel as jos

clock = time.thread_time


def timed(statement: str, number: int = 20000, **names: Any) -> Callable[[], float]:
    """A function timing ``statement`` (with ``names`` in scope): seconds per run."""
    timer = timeit.Timer(statement, timer=clock, globals=names)
    return lambda: timer.timeit(number) / number


_EMPTY_TYPE = pyspiel.GameType(
    short_name="python_bench_empty_state",
    long_name="a Python game whose state holds nothing",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={},
)


class EmptyGame(pyspiel.Game):  # type: ignore[misc]
    """pyspiel's floor: the least a Python game can do."""

    def __init__(self, params: Any = None) -> None:
        info = pyspiel.GameInfo(
            num_distinct_actions=2,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=1_000_000,
        )
        super().__init__(_EMPTY_TYPE, info, params or {})

    def new_initial_state(self) -> EmptyState:
        return EmptyState(self)


class EmptyState(pyspiel.State):  # type: ignore[misc]
    def current_player(self) -> int:
        return 0

    def _legal_actions(self, player: int) -> list[int]:
        return [0, 1]

    def _apply_action(self, action: int) -> None:
        pass

    def is_terminal(self) -> bool:
        return False

    def returns(self) -> list[float]:
        return [0.0, 0.0]

    def __str__(self) -> str:
        return ""


pyspiel.register_game(_EMPTY_TYPE, EmptyGame)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    game = pyspiel.load_game(jos.game_name(args.rules))
    starts = []
    for i in range(args.rollouts):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(i * 7 + len(state.history()))
        starts.append(state)

    def spiel_rollout(seed: int) -> int:
        rng = random.Random(seed)
        state = starts[seed].clone()
        plies = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        state.returns()
        return plies

    def native_rollout(seed: int) -> int:
        rng = random.Random(seed)
        g = starts[seed].game.copy()
        plies = 0
        while not g.is_over:
            g.play_id(rng.choice(g.legal_action_ids()))
            plies += 1
        g.result
        return plies

    plies = sum(spiel_rollout(i) for i in range(args.rollouts))
    assert plies == sum(native_rollout(i) for i in range(args.rollouts)), "the same moves"

    # Whole games to replay move by move (the rollouts' own moves).
    games = []
    for seed in range(min(args.rollouts, 20)):
        rng = random.Random(seed)
        state = starts[seed].clone()
        actions = []
        while not state.is_terminal():
            actions.append(rng.choice(state.legal_actions()))
            state.apply_action(actions[-1])
        games.append((starts[seed], actions))
    moves = sum(len(actions) for _, actions in games)
    end = state  # the last game, over
    assert end.game.is_over

    def replay_spiel() -> float:
        clones = [(start.clone(), actions) for start, actions in games]
        t = clock()
        for s, actions in clones:
            apply = s.apply_action
            for a in actions:
                apply(a)
        return (clock() - t) / moves

    def replay_native() -> float:
        copies = [(start.game.copy(), actions) for start, actions in games]
        t = clock()
        for g, actions in copies:
            play = g.play_id
            for a in actions:
                play(a)
        return (clock() - t) / moves

    empty = pyspiel.load_game("python_bench_empty_state")

    def replay_empty() -> float:
        clones = [(empty.new_initial_state(), actions) for _, actions in games]
        t = clock()
        for s, actions in clones:
            apply = s.apply_action
            for a in actions:
                apply(a % 2)
        return (clock() - t) / moves

    def replay_own_part() -> float:
        # The state's _apply_action called directly: what it does around play_id.
        clones = [(start.clone(), actions) for start, actions in games]
        t = clock()
        for s, actions in clones:
            apply = s._apply_action
            for a in actions:
                apply(a)
        return (clock() - t) / moves

    state = starts[0].clone()
    rng = random.Random(1)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    g = state.game
    empty_state = empty.new_initial_state()
    for _ in range(42):
        empty_state.apply_action(0)  # as long a history as the junqi state's
    end_game = end.game
    # name -> (junqi.Game, pyspiel state, empty pyspiel state or None), each a
    # function returning seconds per unit.
    rows: dict[str, tuple[Callable[[], float], Callable[[], float], Any]] = {
        "rollout": (
            lambda: timed_rollouts(native_rollout, args.rollouts),
            lambda: timed_rollouts(spiel_rollout, args.rollouts),
            None,
        ),
        "clone": (
            timed("g.copy()", g=g),
            timed("s.clone()", s=state),
            timed("s.clone()", s=empty_state),
        ),
        "apply_action": (replay_native, replay_spiel, replay_empty),
        "legal_actions": (
            timed("g.legal_action_ids()", g=g),
            timed("s.legal_actions()", s=state),
            timed("s.legal_actions()", s=empty_state),
        ),
        "returns (40 plies in)": (
            timed("g.result", g=g),
            timed("s.returns()", s=state),
            timed("s.returns()", s=empty_state),
        ),
        "returns (at the end)": (
            timed("g.result", g=end_game),
            timed("s.returns()", s=end),
            timed("s.returns()", s=empty_state),
        ),
    }
    # Where the state's own time goes in clone and apply_action (seconds per call).
    pieces: dict[str, Callable[[], float]] = {
        "clone: the state's new_initial_state()": timed("x.new_initial_state()", x=game),
        "clone: the empty state's new_initial_state()": timed("x.new_initial_state()", x=empty),
        # What pyspiel's clone does with the attributes of the state.
        "clone: copy.deepcopy of each attribute of the state": timed(
            "for v in d.values(): deepcopy(v)", deepcopy=copy.deepcopy, d=state.__dict__
        ),
        "apply_action: the state's _apply_action alone": replay_own_part,
    }
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in rows}
    piece_times: dict[str, list[float]] = {name: [] for name in pieces}
    for r in range(args.rounds):
        for name, (native, spiel, floor) in rows.items():
            if r % 2:
                b = spiel()
                a = native()
            else:
                a = native()
                b = spiel()
            results[name].append((a, b, floor() if floor else float("nan")))
        for name, piece in pieces.items():
            piece_times[name].append(piece())

    print(
        f"{args.rules}: medians of {args.rounds} rounds, thread CPU time; "
        f"{args.rollouts} rollouts of {plies / args.rollouts:.0f} plies on average, "
        f"{moves} replayed moves"
    )
    header = f"{'junqi.Game':>11s} {'pyspiel state':>14s} {'ratio':>7s} {'empty state':>12s}"
    print(f"  {'':24s} {header}")
    for name, values in results.items():
        a = statistics.median(v[0] for v in values)
        b = statistics.median(v[1] for v in values)
        ratios = sorted(v[1] / v[0] for v in values)
        floor = statistics.median(v[2] for v in values)
        unit, scale = ("ms", 1e3) if name == "rollout" else ("us", 1e6)
        floor_text = "" if floor != floor else f"{floor * scale:9.2f} {unit}"
        print(
            f"  {name:24s} {a * scale:8.2f} {unit} {b * scale:11.2f} {unit}"
            f"   x{statistics.median(ratios):.2f} {floor_text:>12s}"
            f"   (ratios x{ratios[0]:.2f}..x{ratios[-1]:.2f})"
        )
    print("pieces:")
    for name, times in piece_times.items():
        print(f"  {name:52s} {statistics.median(times) * 1e6:6.2f} us")


def timed_rollouts(rollout: Callable[[int], int], count: int) -> float:
    """Seconds per rollout over ``count`` rollouts."""
    start = clock()
    for i in range(count):
        rollout(i)
    return (clock() - start) / count


if __name__ == "__main__":
    main()
