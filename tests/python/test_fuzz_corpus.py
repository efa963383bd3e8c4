"""Replays every atheris harness (fuzz/python/fuzz_*.py) over its checked-in corpus
(fuzz/python/corpus/TARGET/), without atheris: each harness's ``TestOneInput`` is a
plain function of bytes. Every input that ever mattered stays a regression test;
``scripts/fuzz-python`` runs the coverage-guided fuzzing itself."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable, cast

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "fuzz" / "python"
TARGETS = sorted(p.stem[len("fuzz_"):] for p in FUZZ.glob("fuzz_*.py"))


def harness(target: str) -> Callable[[bytes], None]:
    """The harness's ``TestOneInput``, imported from its file."""
    sys.path.insert(0, str(FUZZ))
    try:
        spec = importlib.util.spec_from_file_location(f"fuzz_{target}", FUZZ / f"fuzz_{target}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(FUZZ))
    return cast(Callable[[bytes], None], getattr(module, "TestOneInput"))


def test_every_harness_has_a_corpus() -> None:
    assert len(TARGETS) >= 8, TARGETS
    for target in TARGETS:
        corpus = FUZZ / "corpus" / target
        assert corpus.is_dir() and any(corpus.iterdir()), f"no corpus for {target}"
        size = sum(f.stat().st_size for f in corpus.iterdir())
        assert size < 300_000, f"corpus of {target} is {size} bytes"


@pytest.mark.parametrize("target", TARGETS)
def test_corpus_replays(target: str) -> None:
    test_one_input = harness(target)
    corpus = FUZZ / "corpus" / target
    for path in sorted(corpus.iterdir()):
        try:
            test_one_input(path.read_bytes())
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - name the input, whatever it raised
            raise AssertionError(f"{target}: {os.path.relpath(path)} raised {e!r}") from e


def test_harnesses_import_without_atheris() -> None:
    """No harness needs atheris unless it is run as a script."""
    for target in TARGETS:
        text = (FUZZ / f"fuzz_{target}.py").read_text()
        assert "import atheris" not in text, target
    assert "    import atheris" in (FUZZ / "fuzzlib.py").read_text()
