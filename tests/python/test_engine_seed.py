"""junqi.engine and the referee's `seed` line (docs/protocol.md, "Seeds"): every game
tells the engine a seed for its own chance, and `run` seeds Python's `random` from it,
so that a policy drawing from `random` plays the games of a match differently and the
same game again from the same seed."""

from __future__ import annotations

import io
import random

import junqi
import junqi.engine
from junqi import Side


def drawing(game: junqi.Game, seat: Side) -> junqi.Action:
    return random.choice(game.legal_actions())


def session(seed: int, view: str) -> list[str]:
    inp = io.StringIO(f"junqi 1\nnewgame S fanqi\nseed {seed}\nposition {view}\ngo 500\nquit\n")
    out = io.StringIO()
    junqi.engine.run(drawing, name="p", stdin=inp, stdout=out)
    return [line for line in out.getvalue().splitlines() if line.startswith("action ")]


def test_run_seeds_random_from_each_games_seed_line() -> None:
    view = junqi.Game("fanqi", 2).view_string(Side.SOUTH)
    # The same seed: the same choice, whatever the state of `random` before.
    random.seed(1)
    first = session(41, view)
    random.seed(2)
    assert session(41, view) == first
    # Other seeds: other choices (32 flips to choose from).
    assert len({tuple(session(s, view)) for s in range(8)}) > 1


def test_the_seed_is_kept_per_game_and_refused_when_it_is_no_number() -> None:
    e = junqi.engine.Engine(drawing)
    assert e.handle("seed 5") == ["info error seed before newgame"]
    assert e.handle("newgame S classic") == [] and e.seed is None
    assert e.handle("seed 18446744073709551615") == [] and e.seed == 2**64 - 1
    assert e.handle("seed five") == ["info error seed 'five' is not a number"]
    assert e.seed == 2**64 - 1
    assert e.handle("newgame N classic") == [] and e.seed is None
    # An Engine made by hand leaves `random` alone.
    random.seed(3)
    before = random.getstate()
    e.handle("seed 9")
    assert random.getstate() == before
