"""The examples in docs/python.md run as written."""

from __future__ import annotations

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def test_doc_examples_run(capsys: object) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/python.md has no python example"
    games = []
    for block in blocks:
        namespace: dict[str, object] = {"__name__": "__doc_example__"}
        exec(compile(block, str(DOC), "exec"), namespace)
        if "game" in namespace:
            games.append(namespace["game"])
    # The complete example deployed, played and ended a game.
    assert any(getattr(game, "is_over", False) is True for game in games)
