"""Threading behaviour and the Rust-side random playouts."""

from __future__ import annotations

import threading

import junqi


def test_one_game_from_many_threads_is_safe() -> None:
    """Calls on a shared game are serialised: each is atomic, none fails with
    "already borrowed", and the game stays consistent."""
    game = junqi.Game(seed=8)
    game.deploy_random("south")
    game.deploy_random("north")
    errors: list[BaseException] = []
    played = [0]
    lock = threading.Lock()

    def worker(k: int) -> None:
        try:
            for i in range(200):
                if game.is_over:
                    return
                ids = game.legal_action_ids()
                if not ids:
                    return
                try:
                    game.play_id(ids[(i * 31 + k) % len(ids)])
                    with lock:
                        played[0] += 1
                except junqi.IllegalActionError:
                    pass  # another thread moved first: refused, nothing changed
                game.view("south")
                game.record()
        except BaseException as e:  # noqa: BLE001 - the test reports any failure
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert game.ply == played[0] > 0
    assert junqi.Game.from_record(game.record()).same_state(game)


def test_random_playouts_are_sane_and_deterministic() -> None:
    results = junqi.random_playouts("classic", n=50, seed=1)
    assert len(results) == 50
    reasons = set()
    for r in results:
        assert r.plies > 0
        assert r.result is not None
        reasons.add(r.reason)
        if r.result.is_draw:
            assert r.winner is None and r.reason == junqi.EndReason.NO_CAPTURE_LIMIT
        else:
            assert r.winner in (junqi.Side.SOUTH, junqi.Side.NORTH)
    assert reasons <= {
        junqi.EndReason.FLAG_CAPTURED,
        junqi.EndReason.NO_LEGAL_MOVE,
        junqi.EndReason.NO_CAPTURE_LIMIT,
    }
    assert len({r.seed for r in results}) == 50
    assert junqi.random_playouts(n=50, seed=1) == results
    assert junqi.random_playouts(n=50, seed=2) != results
    assert junqi.random_playouts(n=0) == []
    # Long runs go in batches (GIL released, Ctrl-C checked between): same games.
    assert junqi.random_playouts(n=300, seed=1)[:50] == results
    cut = junqi.random_playouts(n=5, seed=3, max_plies=4)
    assert all(r.plies == 4 and r.result is None and r.reason is None for r in cut)
    variant = {"extends": "classic", "name": "short", "options": {"no_capture_draw_plies": 3}}
    short = junqi.random_playouts(variant, n=20, seed=1)
    assert all(r.plies < 200 for r in short)


def test_random_playouts_run_in_parallel_threads() -> None:
    """The GIL is released: several threads run playouts at once, with the same
    results as one thread."""
    expected = [junqi.random_playouts(n=10, seed=s) for s in range(4)]
    out: dict[int, list[junqi.Playout]] = {}

    def run(s: int) -> None:
        out[s] = junqi.random_playouts(n=10, seed=s)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [out[s] for s in range(4)] == expected
