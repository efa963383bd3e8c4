"""One seeded start: ``Game.random_start(rules, seed)`` is the game the same seed
starts in Rust, C and JavaScript (tests/golden/random-start.txt, written by
core/tests/seeded_start.rs), in a ``VectorEnv`` and in the RL adapters."""

from __future__ import annotations

import pathlib

import pytest

import junqi
from junqi._rl import new_game

GOLDEN = pathlib.Path(__file__).parents[2] / "tests" / "golden" / "random-start.txt"


def golden() -> list[tuple[str, int, str]]:
    rows = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, seed, text = line.split("\t")
            rows.append((name, int(seed), text))
    return rows


@pytest.mark.parametrize("name, seed, text", golden())
def test_random_start_is_the_golden_start(name: str, seed: int, text: str) -> None:
    game = junqi.Game.random_start(name, seed)
    assert game.seed == seed
    assert game.position_string() == text
    # Deploying every side without a seed of its own is the same start, in any order.
    by_hand = junqi.Game(name, seed=seed)
    for side in reversed(by_hand.rules.sides):
        if side not in by_hand.deployed and by_hand.phase == junqi.Phase.DEPLOY:
            by_hand.deploy_random(side)
    assert by_hand.position_string() == text
    # The RL adapters' games start so too.
    assert new_game(junqi.RuleSet(name), seed).position_string() == text


def test_vector_env_games_are_seeded_starts() -> None:
    for name in ("classic", "fanqi", "siguo"):
        env = junqi.VectorEnv(name, 2, seed=5, observations=False)
        for i in range(len(env)):
            game = env.game(i)
            assert junqi.Game.random_start(name, game.seed).record() == game.record()
