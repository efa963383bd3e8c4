"""The examples in docs/python.md run as written."""

from __future__ import annotations

import pathlib
import re

import junqi

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_doc_examples_run(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/python.md has no python example"
    games = []
    for block in blocks:
        namespace: dict[str, object] = {"__name__": "__doc_example__"}
        exec(compile(block, str(DOC), "exec"), namespace)
        if isinstance(namespace.get("game"), junqi.Game):
            games.append(namespace["game"])
    # The complete example deployed, played and ended a game.
    assert games, "no example plays a junqi.Game named `game`"
    assert all(getattr(game, "is_over") is True for game in games)
