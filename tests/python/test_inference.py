"""Beliefs, determinization and observation tensors from Python."""

import numpy
import pytest

import junqi


def started(rules: str = "classic", seed: int = 1, plies: int = 40) -> junqi.Game:
    game = junqi.Game(rules, seed=seed)
    if game.phase == junqi.Phase.DEPLOY:
        for i, side in enumerate(game.rules.sides):
            game.deploy_random(side, seed=seed + i)
    for _ in range(plies):
        if game.is_over:
            break
        moves = game.legal_actions()
        game.play(moves[(seed * 7919 + game.ply) % len(moves)])
    return game


def test_candidates_contain_the_truth_and_own_pieces_are_known() -> None:
    game = started()
    b = game.beliefs("south")
    assert b.player == junqi.Side.SOUTH and b.is_consistent()
    view = game.view("south")
    for piece in view.pieces:
        cands = b.candidates(piece.point)
        assert cands, piece.point
        if piece.owner == junqi.Side.SOUTH:
            assert cands == [piece.kind]
    assert "Beliefs(player=south" in repr(b)


def test_mask_is_a_bool_array_over_points_and_kinds() -> None:
    game = started()
    b = game.beliefs("north")
    mask = b.mask()
    assert mask.dtype == numpy.bool_
    assert mask.shape == (len(game.board.points), len(junqi.PieceKind.members()))
    for i, name in enumerate(game.board.points):
        row = [junqi.PieceKind(int(k)) for k in numpy.flatnonzero(mask[i])]
        assert row == b.candidates(name)


def test_a_front_row_piece_is_no_mine() -> None:
    game = started(plies=0)
    assert junqi.PieceKind.MINE not in game.beliefs("south").candidates("a7")
    assert junqi.PieceKind.FLAG in game.beliefs("south").candidates("b12")


def test_determinize_is_seeded_and_keeps_the_players_view() -> None:
    game = started()
    a = game.determinize("south", 5)
    assert a.same_state(game.determinize("south", 5))
    assert [p.point for p in a.view("south").pieces] == [p.point for p in game.view("south").pieces]
    assert a.view("south").pieces == game.view("south").pieces
    assert a.to_act == game.to_act


def test_observation_shape_spec_and_out_buffer() -> None:
    game = started("siguo", plies=20)
    spec = game.rules.observation_spec()
    obs = game.observation("east")
    assert obs.dtype == numpy.float32
    assert obs.shape == tuple(spec["shape"])
    assert len(spec["channels"]) == spec["shape"][0]
    out = numpy.zeros(spec["shape"], dtype=numpy.float32)
    same = game.observation("east", out=out)
    assert same is out and numpy.array_equal(out, obs)
    with pytest.raises(ValueError):
        game.observation("east", out=numpy.zeros(3, dtype=numpy.float32))
    with pytest.raises(ValueError):
        game.observation("east", out=numpy.zeros(spec["shape"], dtype=numpy.float64))


def test_batched_observations() -> None:
    games = [started(seed=s) for s in range(3)]
    batch = junqi.observations(games, ["south", "north", "south"])
    spec = games[0].rules.observation_spec()
    assert batch.shape == (3, *spec["shape"])
    assert numpy.array_equal(batch[1], games[1].observation("north"))
    with pytest.raises(ValueError):
        junqi.observations(games, ["south"])
    with pytest.raises(ValueError):
        junqi.observations([games[0], started("fanqi")], ["south", "south"])


def test_bad_points_and_sides_are_refused() -> None:
    game = started()
    with pytest.raises(junqi.UnknownNameError):
        game.beliefs("south").candidates("z99")
    with pytest.raises(junqi.JunqiError):
        game.beliefs("east")


def test_observation_buffers_in_another_order_are_refused() -> None:
    # Issue #27: a Fortran-ordered out= was filled as if it were C-ordered.
    game = started()
    shape = tuple(game.rules.observation_spec()["shape"])
    fortran = numpy.zeros(shape, dtype=numpy.float32, order="F")
    with pytest.raises(ValueError, match="C-contiguous"):
        game.observation("south", out=fortran)
    with pytest.raises(ValueError, match="C-contiguous"):
        junqi.observations([game, game], ["south", "north"],
                           out=numpy.zeros((2, *shape), dtype=numpy.float32, order="F"))
    strided = numpy.zeros((shape[0], 2 * shape[1]), dtype=numpy.float32)[:, ::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        game.observation("south", out=strided)
    assert not fortran.any() and not strided.any()
    out = numpy.zeros(shape, dtype=numpy.float32)
    assert numpy.array_equal(game.observation("south", out=out), game.observation("south"))


def test_batched_observations_refuse_a_game_on_another_board() -> None:
    # Issue #27: a game of the same rule set on another board was encoded with the
    # first game's observer. A record can carry its own board.
    import json

    game = started()
    record = json.loads(game.record())
    board = json.loads(game.rules.board.to_json())
    board["name"] = "classic-copy"
    record["board"] = board
    other = junqi.Game.from_record(json.dumps(record))
    assert other.rules.board.name == "classic-copy"
    with pytest.raises(ValueError, match="game 1 has another board than game 0"):
        junqi.observations([game, other], ["south", "south"])
    # Games of one rule set on one board (the same board, rebuilt) are encoded together.
    twin = junqi.Game.from_record(game.record())
    batch = junqi.observations([game, twin], ["south", "north"])
    assert numpy.array_equal(batch[1], twin.observation("north"))


def test_modelled_probabilities_sum_to_one_within_the_candidates() -> None:
    game = started(plies=60)
    b = game.beliefs("south")
    mask = b.mask()
    for model in ("shipped", "plain"):
        p = b.probabilities(model)
        assert p.dtype == numpy.float64 and p.shape == mask.shape
        occupied = p.sum(axis=1) > 0
        assert numpy.allclose(p.sum(axis=1)[occupied], 1.0)
        assert not (p[~mask] > 0).any(), "a probability outside the candidates"
        # North's pieces, as North sees them: the true kind is never at 0.
        index = {point: i for i, point in enumerate(game.board.points)}
        north = [piece for piece in game.view("north").pieces if piece.owner == junqi.Side.NORTH]
        assert north
        for piece in north:
            assert piece.kind is not None
            assert p[index[piece.point]][int(piece.kind)] > 0, piece.point
    # Random setups and random moves: nothing says North plays like the engine, so the
    # model is not trusted and the shipped model's numbers are the plain ones.
    assert numpy.allclose(b.probabilities(), b.probabilities("plain"), atol=1e-3)
    # Against the engine's own deployments the shipped classic model is not the plain one.
    engine = junqi.Game("classic", seed=1)
    for i, side in enumerate(engine.rules.sides):
        junqi.Agent("greedy", seed=5 + i).deploy(engine, side)
    e = engine.beliefs("south")
    assert not numpy.allclose(e.probabilities(), e.probabilities("plain"), atol=1e-3)
    # The same model as JSON gives the same numbers.
    assert numpy.array_equal(b.probabilities("plain"), b.probabilities('{"format": "junqi-opponent-model 1", "plain": true}'))


def test_unknown_and_malformed_models_are_refused() -> None:
    b = started().beliefs("north")
    with pytest.raises(junqi.UnknownNameError, match="psychic"):
        b.probabilities("psychic")
    with pytest.raises(junqi.JsonError, match="format"):
        b.probabilities('{"format": 2}')
    with pytest.raises(ValueError):
        b.probabilities("{")


def test_evidence_counts_the_moves_of_a_piece() -> None:
    game = started(plies=0)
    south_first = game.to_act
    move = game.legal_actions()[0]
    game.play(move)
    other = junqi.Side.NORTH if south_first == junqi.Side.SOUTH else junqi.Side.SOUTH
    ev = game.beliefs(other).evidence(move.to)
    assert ev is not None and ev["turns"] == 1
    assert sum(v for k, v in ev.items() if k != "turns") == 1
    assert game.beliefs(other).evidence(move.from_) is None


def test_an_opponent_model_counts_games_merges_and_reads_back() -> None:
    games = [started(plies=80, seed=s) for s in (1, 2, 3)]
    whole = junqi.OpponentModel("classic", source="three games")
    for g in games:
        assert whole.count(g)
    a, b = junqi.OpponentModel("classic", "three games"), junqi.OpponentModel("classic", "three games")
    a.count(games[0])
    b.count(games[1])
    b.count(games[2])
    assert a.merge(b) and a.games == 3
    assert a.to_json() == whole.to_json()
    again = junqi.OpponentModel.from_json(whole.to_json(), "classic")
    assert again.to_json() == whole.to_json() and again.rules_name == "classic"
    assert not whole.count(started("siguo", plies=4))
    assert junqi.OpponentModel.plain().is_plain and not junqi.OpponentModel.shipped("classic").is_plain
    assert "games=3" in repr(whole)
    beliefs = games[0].beliefs("south")
    assert numpy.array_equal(beliefs.probabilities(whole), beliefs.probabilities(whole.to_json()))
    assert numpy.array_equal(beliefs.probabilities(junqi.OpponentModel.shipped("classic")), beliefs.probabilities())
    with pytest.raises(TypeError):
        beliefs.probabilities(3)  # type: ignore[arg-type]


def test_observation_with_the_modelled_planes() -> None:
    game = started("classic", seed=3, plies=60)
    plain_spec = game.rules.observation_spec()
    spec = game.rules.observation_spec(modelled=True)
    kinds = [c.split(":")[1] for c in plain_spec["channels"] if c.startswith("own:")]
    assert spec["channels"] == plain_spec["channels"] + [f"modelled:{k}" for k in kinds]
    first, points = plain_spec["shape"]
    plain = game.observation("south")
    for model in ("shipped", junqi.OpponentModel.shipped("classic")):
        obs = game.observation("south", model=model)
        assert obs.shape == tuple(spec["shape"]) and obs.dtype == numpy.float32
        # The plain channels stay as they are; the modelled planes come after them.
        assert numpy.array_equal(obs[:first], plain)
        modelled = obs[first:]
        # Every other piece's probabilities sum to 1, the own pieces' and the empty
        # points' are 0.
        other = obs[plain_spec["channels"].index("enemy")]
        numpy.testing.assert_allclose(modelled.sum(axis=0), other, atol=1e-4)
        # Plane by plane, the same numbers as Beliefs.probabilities, whatever the order
        # of the points: the sums over north's pieces of each kind.
        probs = game.beliefs("south").probabilities(model)
        view = game.view("south")
        north = [i for i, p in enumerate(game.board.points) if (s := view.piece_at(p)) and s.owner == junqi.Side.NORTH]
        for k, name in enumerate(kinds):
            kind = junqi.PieceKind(name)
            numpy.testing.assert_allclose(modelled[k].sum(), probs[north, int(kind)].sum(), rtol=1e-4, atol=1e-5)
    # The shipped model weighs the engine's deployment habits, unlike the plain beliefs
    # (before the first move: by ply 60 of these random moves the model no longer
    # trusts north to play like the engine, and falls back to the plain beliefs).
    fresh = started("classic", seed=3, plies=0)
    assert not numpy.allclose(fresh.observation("south", model="plain")[first:], fresh.observation("south", model="shipped")[first:])
    out = numpy.zeros(spec["shape"], dtype=numpy.float32)
    assert game.observation("south", out=out, model="shipped") is out
    with pytest.raises(ValueError):
        game.observation("south", out=numpy.zeros(plain_spec["shape"], dtype=numpy.float32), model="shipped")
    with pytest.raises(junqi.JunqiError, match="psychic"):
        game.observation("south", model="psychic")
    with pytest.raises(TypeError):
        game.observation("south", model=3)  # type: ignore[arg-type]
