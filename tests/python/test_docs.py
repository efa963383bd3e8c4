"""The examples in docs/python.md run as written."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

import junqi

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def first_moves(game: junqi.Game) -> list[junqi.Action]:
    """The legal moves of ``game`` once every side had deployed (its record cut there)."""
    record = json.loads(game.record())
    record["actions"] = [a for a in record["actions"] if isinstance(a, dict) and "deploy" in a]
    record["result"] = None
    return junqi.Game.from_record(json.dumps(record)).legal_actions()


def test_doc_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/python.md has no python example"
    games = []
    for block in blocks:
        namespace: dict[str, object] = {"__name__": "__doc_example__"}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), namespace)
        # An example that prints shows something (the VectorEnv one lists finished games).
        if "print(" in block:
            assert out.getvalue().strip(), f"an example printed nothing:\n{block}"
        game = namespace.get("game")
        if isinstance(game, junqi.Game):
            games.append(game)
            # A move list written in a comment is the one the example's game has.
            for shown in re.findall(r'# first: \[(Action\("[^"]+", id=\d+\))', block):
                assert shown == repr(first_moves(game)[0]), (shown, first_moves(game)[:2])
    # The complete example deployed, played and ended a game.
    assert games, "no example plays a junqi.Game named `game`"
    assert all(getattr(game, "is_over") is True for game in games)
