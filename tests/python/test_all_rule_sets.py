"""Every rule set the core has, through the same API: deployment, views, the action
space, whole games, records, pickling and playouts."""

from __future__ import annotations

import pickle
import random

import pytest

import junqi

RULE_SETS = junqi.rule_sets()


def deployed(name: str, seed: int) -> junqi.Game:
    game = junqi.Game(name, seed=seed)
    if game.phase == junqi.Phase.DEPLOY:  # fanqi starts dealt face down
        for side in game.rules.sides:
            game.deploy_random(side)
    return game


@pytest.mark.parametrize("name", RULE_SETS)
def test_deployment_and_views(name: str) -> None:
    rules = junqi.RuleSet(name)
    game = junqi.Game(rules, seed=1)
    if name == "fanqi":
        # Dealt face down: nothing to deploy, nobody knows any piece, no owner shown.
        assert game.phase == junqi.Phase.MOVE
        with pytest.raises(junqi.WrongPhaseError):
            game.deploy_random(rules.sides[0])
        for player in rules.sides:
            view = game.view(player)
            assert len(view.pieces) == 50
            assert all(p.owner is None and p.kind is None for p in view.pieces)
        assert all(m.is_flip for m in game.legal_actions())
        return
    assert game.phase == junqi.Phase.DEPLOY and game.to_act == rules.sides[0]
    for side in rules.sides:
        assert len(rules.deploy_points(side)) == rules.army_size
        game.deploy(side, rules.random_setup(side, 3))
    assert game.deployed == rules.sides
    assert game.phase == junqi.Phase.MOVE
    allies_see = bool(rules.options.get("allies_see_each_other", False))
    for player in rules.sides:
        view = game.view(player)
        assert len(view.pieces) == rules.army_size * len(rules.sides)
        friends = {player, *(rules.team_of(player) if allies_see else [])}
        for piece in view.pieces:
            if piece.owner == player:
                assert piece.kind is not None
            elif piece.owner not in friends:
                assert piece.kind is None, f"{player} sees {piece}"


@pytest.mark.parametrize("name", RULE_SETS)
def test_whole_games_records_and_pickles(name: str) -> None:
    rng = random.Random(name)
    for seed in range(3):
        game = deployed(name, seed)
        while not game.is_over and game.ply < 3000:
            ids = game.legal_action_ids()
            mask = game.action_mask()
            assert [i for i, m in enumerate(mask) if m] == ids
            if ids:
                game.play_id(rng.choice(ids))
            else:
                game.time_out()  # only reachable if the core lets a side without moves pass
        again = junqi.Game.from_record(game.record())
        assert again.same_state(game)
        for side in game.rules.sides:
            assert again.view(side) == game.view(side)
        assert pickle.loads(pickle.dumps(game)).same_state(game)


@pytest.mark.parametrize("name", RULE_SETS)
def test_playouts(name: str) -> None:
    results = junqi.random_playouts(name, n=10, seed=4)
    assert len(results) == 10
    sides = set(junqi.RuleSet(name).sides)
    for r in results:
        assert r.result is not None and r.plies > 0
        assert set(r.result.winners) <= sides
    assert junqi.random_playouts(name, n=10, seed=4) == results
