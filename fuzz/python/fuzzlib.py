"""Shared helpers of the atheris harnesses (fuzz/python/fuzz_*.py).

Every harness defines ``TestOneInput(data: bytes) -> None`` and is importable without
atheris (tests/python/test_fuzz_corpus.py replays the checked-in corpora through it);
``run(TestOneInput)`` starts atheris when the file is run as a script.

The oracle: a call either succeeds or raises one of junqi's own errors (``JunqiError``
and its subclasses, all ``ValueError``); ``TypeError`` / ``OverflowError`` (and plain
``ValueError`` from numpy's conversions) only where a harness passes a wrongly typed
argument on purpose. Anything else — pyo3's ``PanicException`` (a ``BaseException``),
``SystemError``, ``RuntimeError``, an assertion below, a crash or a hang — propagates
and is a finding. A refused call must leave the game as it was (its record and every
player's view), and no player's view, events or legal actions may depend on what it
has not seen.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Optional, Sequence, Tuple, Type, TypeVar

import junqi

T = TypeVar("T")

# What a call with well-typed arguments may raise.
ENGINE: Tuple[Type[BaseException], ...] = (junqi.JunqiError,)
# What a call with a wrongly typed argument may raise besides.
TYPED: Tuple[Type[BaseException], ...] = (junqi.JunqiError, TypeError, OverflowError)

PRESETS: Sequence[str] = tuple(junqi.rule_sets())

# Integers a caller may pass where an index is expected: edges, huge, negative.
EDGE_INTS: Sequence[int] = (
    0, 1, -1, 2**31 - 1, 2**31, -(2**31), 2**32, 2**63 - 1, 2**63, -(2**63),
    -(2**63) - 1, 2**64, 2**64 - 1, 10**30, -(10**30), 255, 256, 65535, 65536,
)


class Bytes:
    """Choices drawn from the fuzz input; zeros once it runs out."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        b = self.data[self.pos]
        self.pos += 1
        return b

    def below(self, n: int) -> int:
        """A number in ``0..n`` from two bytes."""
        return (self.byte() | self.byte() << 8) % max(n, 1)

    def u64(self) -> int:
        v = 0
        for _ in range(8):
            v = v << 8 | self.byte()
        return v

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def is_empty(self) -> bool:
        return self.pos >= len(self.data)

    def int_any(self, space: int) -> int:
        """An integer for an index argument: mostly in or near ``0..space``, sometimes
        an edge value (huge, negative)."""
        c = self.byte()
        if c < 160:
            return self.below(space + 2)
        if c < 220:
            return self.pick(EDGE_INTS)
        return self.u64() - (1 << 63) if c & 1 else self.u64() << (c & 63)

    def text(self, limit: int = 64) -> str:
        """Up to ``limit`` bytes of the input as text (invalid UTF-8 replaced)."""
        n = self.below(limit + 1)
        raw = self.data[self.pos:self.pos + n]
        self.pos += len(raw)
        return raw.decode("utf-8", "replace")

    def rest(self) -> bytes:
        raw = self.data[self.pos:]
        self.pos = len(self.data)
        return raw


def attempt(fn: Callable[..., T], *args: Any, allow: Tuple[Type[BaseException], ...] = ENGINE) -> Optional[T]:
    """``fn(*args)``, or None when it raises an allowed error (anything else propagates)."""
    try:
        return fn(*args)
    except allow as e:
        assert not isinstance(e, (SystemError, RuntimeError)), repr(e)
        if isinstance(e, junqi.JunqiError):
            assert str(e), "an engine error without a message"
        return None


def decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def as_json(text: str) -> Any:
    """The JSON value of ``text``, or None."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


# --- the referee's guarantees -------------------------------------------------------

def snapshot(game: junqi.Game) -> Tuple[str, Tuple[str, ...], int, str]:
    """What a refused call must not change: the full record and every player's view."""
    views = tuple(game.view(s).to_json() for s in game.rules.sides)
    return (game.record(), views, game.ply, str(game.phase))


def refused_changes_nothing(game: junqi.Game, before: Tuple[str, Tuple[str, ...], int, str], what: str) -> None:
    after = snapshot(game)
    assert after == before, f"a refused call ({what}) changed the game"


def check_action_space(game: junqi.Game) -> None:
    """Every legal action has an id in the space that names it; the mask agrees."""
    ids = game.legal_action_ids()
    space = game.action_space
    assert ids == sorted(set(ids)), "legal_action_ids not ascending and unique"
    assert all(0 <= i < space for i in ids)
    mask = game.action_mask()
    assert mask.shape == (space,) and int(mask.sum()) == len(ids)
    assert all(bool(mask[i]) for i in ids)
    moves = game.legal_actions()
    assert sorted(m.id for m in moves if m.id is not None) == ids, "a legal move has no id"
    for m in moves[:8]:
        assert m.id is not None
        assert game.rules.action_at(m.id) == m
        assert game.parse_action(m.notation) == m


def check_views(game: junqi.Game, seed: int = 0) -> None:
    """No player's view, events or legal actions depend on what it has not seen.

    A view names a kind only where the player's own deductions (``beliefs``) pin it
    down; and a game with every unseen identity redrawn from the player's beliefs
    (``determinize``) looks the same to the player: same pieces, same events, same
    legal actions when it is to act.
    """
    for player in game.rules.sides:
        view = game.view(player)
        beliefs = game.beliefs(player)
        for piece in view.pieces:
            if piece.kind is not None:
                assert beliefs.candidates(piece.point) == [piece.kind], (
                    f"{player}'s view names {piece.kind} on {piece.point} but its beliefs do not know it")
        sampled = game.determinize(player, seed)
        other = sampled.view(player)
        assert other.pieces == view.pieces, f"{player}'s view depends on unseen identities"
        assert [e.to_json() for e in other.events] == [e.to_json() for e in view.events]
        assert other.to_act == view.to_act and other.phase == view.phase
        if game.to_act == player and not game.is_over:
            assert sampled.legal_action_ids() == game.legal_action_ids(), (
                f"{player}'s legal actions depend on unseen identities")
        _ = str(view)


def check_record(game: junqi.Game) -> None:
    """The record replays to the identical state, and replays to the same record."""
    text = game.record()
    again = junqi.Game.from_record(text)
    assert again.same_state(game), "the record does not replay to the same state"
    assert again.record() == text, "a replayed game's record differs"
    for player in game.rules.sides:
        json.loads(game.player_record(player))


def deploy_all(game: junqi.Game, b: Bytes) -> bool:
    """Deploys every side at random (False when a custom rule set cannot be met)."""
    if game.phase != junqi.Phase.DEPLOY:
        return True
    for side in game.rules.sides:
        if attempt(game.deploy_random, side, b.u64()) is None:
            return False
    return True


def play_random(game: junqi.Game, b: Bytes, max_plies: int) -> None:
    """Plays legal action ids chosen by ``b``; now and then a time-out, or an illegal
    id that must be refused with nothing changed."""
    for ply in range(max_plies):
        if game.is_over or b.is_empty():
            break
        legal = game.legal_action_ids()
        c = b.byte()
        if c == 0xFF and game.phase != junqi.Phase.DEPLOY:
            game.time_out()
            continue
        if not legal:
            break
        if c == 0xFE:
            i = b.int_any(game.action_space)
            if i not in legal:
                before = snapshot(game)
                assert attempt(game.play_id, i, allow=TYPED) is None, f"illegal id {i} played"
                refused_changes_nothing(game, before, f"play_id({i})")
                continue
        game.play_id(legal[b.below(len(legal))])
        if ply % 16 == 0:
            check_action_space(game)


def full_check(game: junqi.Game, seed: int = 0) -> None:
    check_action_space(game)
    check_views(game, seed)
    check_record(game)


def run(test_one_input: Callable[[bytes], None]) -> None:
    """Runs ``test_one_input`` under atheris with the command line's libFuzzer options."""
    # Only needed to fuzz: the corpus replay imports the harnesses without atheris.
    import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]

    # Coverage feedback: the Python code loaded so far (the harness, this module, the
    # junqi package's Python side). The Rust extension is not instrumented: its edges
    # are the cargo-fuzz targets' business (fuzz/fuzz_targets).
    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
