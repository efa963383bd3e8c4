"""atheris: board JSON (``Board(text)``, and a board carried in a record). A board loads
or is refused with ``RulesError``; one that loads answers every accessor, draws from
every seat, names every pair of its action space, and round-trips through ``to_json``.

    python fuzz/python/fuzz_board_json.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import TYPED, Bytes, as_json, attempt, check_views, decode, run  # noqa: E402

_EMPTY_RECORD: dict[str, object] = {}


def _record_with(board: object) -> str:
    """A classic record whose board is ``board`` (no actions)."""
    if not _EMPTY_RECORD:
        _EMPTY_RECORD.update(json.loads(junqi.Game("classic", seed=1).record()))
    return json.dumps({**_EMPTY_RECORD, "board": board})


def TestOneInput(data: bytes) -> None:
    text = decode(data)
    board = attempt(junqi.Board, text)
    value = as_json(text)
    if value is not None:
        # The same board inside a record: loads and replays, or a specific refusal.
        game = attempt(junqi.Game.from_record, _record_with(value))
        if game is not None:
            check_views(game)
            game.view("south").to_svg()
    if board is None:
        return
    assert junqi.Board(board.to_json()) == board, "to_json does not round-trip"
    points = board.points
    assert len(points) == len(board) and len(set(points)) == len(points)
    w, h = board.grid_size
    for p in points:
        assert p in board and board.points[board.index(p)] == p
        board.role(p), board.side_of(p), board.depth(p), board.neighbours(p)
        x, y = board.coords(p)
        assert 0 <= x < w and 0 <= y < h, f"{p} at {(x, y)} outside the grid {(w, h)}"
        board.is_railway(p), board.is_air(p), board.is_sea(p), board.is_land(p)
        for q in (board.above(p), board.below(p)):
            if q is not None:
                assert q in board
    b = Bytes(data[-32:])
    for _ in range(8):
        i = b.int_any(board.action_space)
        pair = attempt(board.move_at, i, allow=TYPED)
        if pair is not None:
            assert board.move_index(*pair) == i, f"move {i} does not round-trip"
            board.edge(*pair), board.distance(*pair)
    for seat in [None, *junqi.Side.members()]:
        board.to_svg(seat)
    board.to_svg(legend=False, coordinates=False, caption=False, scale=b.byte() / 16.0)


if __name__ == "__main__":
    run(TestOneInput)
