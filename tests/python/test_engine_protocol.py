"""junqi.engine line by line against the protocol (docs/protocol.md) and the module's
documentation: every command's exact answer, the exact refusal texts (`info error ...`,
a refused line changing nothing), the arguments the policy and the draw and deploy
functions are called with, the seat's record (`engine.player_record()`), the defaults,
`_quote` (what an error line may carry: control characters escaped, cut at 1000
characters with an ellipsis) and `run`'s reading of its input: UTF-8 whatever the
locale, lines ended at `\\n` only, `quit`, and lines over `MAX_LINE` bytes skipped while
reading a bounded piece at a time. The expected lines are written out by hand."""

from __future__ import annotations

import io
import json
import locale
import sys
from typing import IO, Any, Mapping, cast

import pytest

import junqi
import junqi.engine
from junqi import Game, RuleSet, Side
from junqi.engine import MAX_LINE, Engine, _quote

# The handshake of an engine with the options of OPTIONS and no author.
OPTIONS: dict[str, Any] = {"depth": 3, "fast": False, "style": "calm"}
HANDSHAKE = ["id name t", "option depth int 3", "option fast bool False", "option style string calm", "ready"]
OVER = f"info error a line over {MAX_LINE} bytes: ignored"


def first(game: Game, seat: Side) -> junqi.Action:
    """A policy: the first legal action."""
    return game.legal_actions()[0]


def fanqi_view() -> str:
    """South's view at the start of a 翻棋 game: South is to act (flips only)."""
    return Game("fanqi", 2).view_string(Side.SOUTH)


def session(engine: Engine, *lines: str) -> list[str]:
    """All the answers of `engine` to the referee's lines, in order."""
    return [answer for line in lines for answer in engine.handle(line)]


# --- defaults and the handshake ---------------------------------------------------


def test_a_fresh_engine_knows_nothing_yet() -> None:
    """Before `newgame`: the documented attributes are empty (None, not a stand-in), the
    default name is announced, and the record has None fields (module documentation)."""
    e = Engine(first)
    assert e.handle("junqi 1") == ["id name python engine", "ready"]
    assert e.seat is None and e.setup is None and e.clock is None and e.seed is None
    assert e.events == [] and e.options == {}
    assert e.player_record() == {
        "format": "junqi-player-record/1", "rules": None, "player": None,
        "setup": None, "events": [], "result": None,
    }


def test_the_handshake_names_the_author_and_every_option() -> None:
    """`id name`, then `id author` when one is given, the options with their types and
    defaults, then `ready` (protocol: "Referee to engine", `junqi 1`)."""
    assert Engine(first, name="t", options=OPTIONS).handle("junqi 1") == HANDSHAKE
    assert Engine(first, name="t", author="me and you", options=OPTIONS).handle("junqi 1\r\n") == [
        "id name t", "id author me and you", *HANDSHAKE[1:]
    ]


# --- setoption -----------------------------------------------------------------------


def test_setoption_converts_to_the_options_type_and_refuses_a_wrong_int() -> None:
    """An int option takes a number, a bool `true`/`false`, a string the rest of the line
    — everything after the name, spaces and all, only the line end (`\\n`, `\\r\\n`) cut."""
    e = Engine(first, options=OPTIONS)
    assert session(e, "setoption depth 7", "setoption fast true", "setoption style two words\r\n") == []
    assert e.options == {"depth": 7, "fast": True, "style": "two words"}
    assert session(e, "setoption fast false\n", "setoption style MAX") == []
    assert e.options == {"depth": 7, "fast": False, "style": "MAX"}
    # Only the line end is cut: trailing spaces and tabs are part of the value.
    e.handle("setoption style wild \t\r\n")
    assert e.options["style"] == "wild \t"
    # A wrong int is refused with its text quoted, and changes nothing.
    assert e.handle("setoption depth deep") == ["info error option depth takes an int, not 'deep'"]
    assert e.options["depth"] == 7
    # An option not announced is ignored; the defaults stay as announced.
    assert e.handle("setoption nope 3") == [] and "nope" not in e.options
    assert e.defaults == OPTIONS


def test_a_refusal_quoting_a_long_value_is_cut_with_an_ellipsis() -> None:
    """An error line carries at most 1000 characters of its text, then `…`."""
    (line,) = Engine(first, options=OPTIONS).handle("setoption depth " + "9x" * 1000)
    text = "option depth takes an int, not '" + "9x" * 1000 + "'"
    assert line == "info error " + text[:1000] + "…"


# --- newgame ------------------------------------------------------------------------------


def compact_classic() -> str:
    """The classic rule set as one line of JSON (the protocol's `json` form)."""
    return json.dumps(json.loads(RuleSet.preset("classic").to_json()), separators=(",", ":"), ensure_ascii=False)


def test_newgame_reads_a_preset_or_json_and_refuses_the_rest() -> None:
    """`newgame <seat> <rules>`: a preset name or `json` and the rule set; the record
    keeps the preset's name or the rule set's JSON (read). An unknown seat or rule set,
    or a seat that does not play, is refused with the library's message, and the game
    before it is kept."""
    e = Engine(first)
    assert e.handle("newgame S classic\r\n") == []
    assert e.seat == Side.SOUTH and e.rules == RuleSet.preset("classic")
    assert e.player_record()["rules"] == "classic" and e.player_record()["player"] == "south"
    text = compact_classic()
    assert e.handle("newgame N json " + text) == []
    assert e.seat == Side.NORTH and e.rules == RuleSet.preset("classic")
    assert e.player_record() == {
        "format": "junqi-player-record/1", "rules": json.loads(text), "player": "north",
        "setup": None, "events": [], "result": None,
    }
    assert e.handle("newgame X classic") == [
        'info error unknown side "X" (expected one of: south, east, north, west)'
    ]
    assert e.handle("newgame S json {") == [
        "info error invalid rule set JSON: EOF while parsing an object at line 1 column 1"
    ]
    assert e.handle("newgame W classic") == ["info error west does not play in classic"]
    assert e.seat == Side.NORTH and e.player_record()["rules"] == json.loads(text)


def test_newgame_forgets_the_game_before() -> None:
    """Setup, events, clock, seed and view of the last game are dropped at `newgame`."""
    e = Engine(first)
    session(e, "newgame S fanqi", "seed 4", 'setup {"a1":"flag"}', 'event {"type":"x"}', "clock 5 1",
            "position " + fanqi_view())
    assert (e.seed, e.setup, e.events, e.clock) == (4, {"a1": "flag"}, [{"type": "x"}], (5, 1))
    e.handle("newgame N fanqi")
    assert (e.seed, e.setup, e.events, e.clock) == (None, None, [], None)
    assert e.handle("go 100") == ["info error go before position"]


# --- what the seat is told: setup, events, clock ----------------------------------------


def test_setup_event_and_clock_lines_are_kept_or_refused_exactly() -> None:
    """The seat's history as the record has it; lines that do not read are refused with
    the reason (Python's JSON message) and change nothing."""
    e = Engine(first)
    e.handle("newgame S classic")
    assert e.handle('setup {"a1":"flag","b1":"mine"}') == [] and e.setup == {"a1": "flag", "b1": "mine"}
    assert e.handle('event {"side":"south","type":"deployed"}') == []
    assert e.handle("setup nope") == ["info error a setup that is not JSON: Expecting value: line 1 column 1 (char 0)"]
    assert e.handle('setup ["a1"]') == ["info error a setup that is not a JSON object"]
    assert e.handle("event {") == [
        "info error an event that is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ]
    assert e.handle("clock 59000 1000") == [] and e.clock == (59000, 1000)
    for bad in ("1 2 3", "5", "-5 0"):
        assert e.handle("clock " + bad) == [f"info error clock '{bad}' is not <left ms> <increment ms>"]
    assert e.clock == (59000, 1000)
    assert e.player_record() == {
        "format": "junqi-player-record/1", "rules": "classic", "player": "south",
        "setup": {"a1": "flag", "b1": "mine"}, "events": [{"side": "south", "type": "deployed"}], "result": None,
    }


def test_seed_and_clock_take_ascii_numbers_below_2_64_and_refuse_the_rest() -> None:
    """`seed` and `clock` numbers are ASCII digits below 2^64 (docs/protocol.md): "²"
    and "٣" (digits to `str.isdigit`) and a 5 000-digit number once escaped `handle` as
    a ValueError and ended `run`; now each is an `info error` line and the session
    goes on with the value before."""
    top = (1 << 64) - 1
    e = Engine(first)
    e.handle("newgame S classic")
    assert e.handle(f"seed {top}") == [] and e.seed == top
    assert e.handle("clock 0 0") == [] and e.clock == (0, 0)
    for bad in ("²", "٣", str(top + 1), "9" * 5000, "+5", ""):
        assert e.handle(f"seed {bad}") == ["info error " + _quote(f"seed {bad!r} is not a number")]
        assert e.handle(f"clock {bad} 1") == ["info error " + _quote(f"clock {bad + ' 1'!r} is not <left ms> <increment ms>")]
    assert (e.seed, e.clock) == (top, (0, 0))
    out = io.StringIO()
    junqi.engine.run(first, stdin=io.StringIO("newgame S classic\nseed ²\nclock ٣ 1\njunqi 1\nquit\n"), stdout=out)
    assert out.getvalue().splitlines() == [
        "info error seed '²' is not a number",
        "info error clock '٣ 1' is not <left ms> <increment ms>",
        "id name python engine",
        "ready",
    ]


# --- deploy ---------------------------------------------------------------------------


def test_deploy_answers_the_functions_setup_as_compact_json() -> None:
    """`deploy`: the deploy function is called with the game's rule set and the seat, its
    setup sent as one line of compact JSON; without a function, or before `newgame`,
    `setup random`."""
    calls: list[tuple[RuleSet, Side]] = []

    def deploy(rules: RuleSet, seat: Side) -> Mapping[str, str]:
        calls.append((rules, seat))
        return {"a1": "flag", "b1": "mine"}

    e = Engine(first, deploy=deploy)
    assert e.handle("deploy 1000") == ["setup random"] and calls == []
    e.handle("newgame N classic")
    assert e.handle("deploy 1000") == ['setup {"a1":"flag","b1":"mine"}']
    assert calls == [(RuleSet.preset("classic"), Side.NORTH)]
    assert Engine(first).handle("deploy 1000") == ["setup random"]
    e = Engine(first)
    e.handle("newgame S classic")
    assert e.handle("deploy 1000") == ["setup random"]


# --- go ------------------------------------------------------------------------------


def test_go_calls_the_policy_with_the_seats_game_and_sends_its_action() -> None:
    """The policy gets the view read back (with the fixed seed 0, so the same view gives
    the same game, chance included) and the seat; its move, an Action or its notation,
    is sent as `action <notation>`; `offer_draw` is asked with the same game and seat."""
    view = fanqi_view()
    expected = Game.from_position_string(view, 0)
    seen: list[tuple[Game, Side]] = []
    offers: list[tuple[Game, Side]] = []

    def by_notation(game: Game, seat: Side) -> str:
        seen.append((game, seat))
        return game.legal_actions()[3].notation

    def offer(game: Game, seat: Side) -> bool:
        offers.append((game, seat))
        return len(offers) == 1

    e = Engine(by_notation, offer_draw=offer)
    session(e, "newgame S fanqi", "position " + view)
    notation = expected.legal_actions()[3].notation
    assert e.handle("go 500") == ["draw offer", "action " + notation]
    assert e.handle("go 500") == ["action " + notation]
    for game, seat in seen + offers:
        assert seat == Side.SOUTH
        assert game.seed == 0 and game.position_string() == expected.position_string()
        assert game.legal_action_ids() == expected.legal_action_ids()
    assert len(seen) == 2 and len(offers) == 2
    # An Action is sent by its notation too.
    e = Engine(first)
    session(e, "newgame S fanqi", "position " + view)
    assert e.handle("go 500") == ["action " + expected.legal_actions()[0].notation]


def test_go_is_refused_exactly_when_the_seat_cannot_act() -> None:
    """`go` before a position (before or after `newgame`), in a position that does not
    read, when another seat is to act or the game is over, or when the seat has no legal
    move: one `info error` line each, and the policy is never called."""
    def never(game: Game, seat: Side) -> junqi.Action:
        raise AssertionError("the policy was called")

    e = Engine(never)
    assert e.handle("go 100") == ["info error go before position"]
    e.handle("position " + fanqi_view())
    assert e.handle("go 100") == ["info error go before position"]  # no seat yet
    e.handle("newgame N fanqi")
    assert e.handle("go 100") == ["info error go before position"]  # no position yet
    e.handle("position classic z9=SFL move S 0 0")
    assert e.handle("go 100") == ['info error unknown point "z9"']
    e.handle("position " + fanqi_view())
    assert e.handle("go 100") == ["info error go when north is not to act"]
    e.handle("newgame S classic")
    e.handle("position classic - deploy S 0 0 deployed=- view=S")
    assert e.handle("go 100") == ["info error go when south has no legal move"]


# --- draw -----------------------------------------------------------------------------


def test_draw_asks_accept_draw_with_the_seats_game() -> None:
    """`draw`: `accept_draw(game, seat)` decides (default: decline); it needs a position
    that reads, else `info error` with the reason."""
    view = fanqi_view()
    asked: list[tuple[Game, Side]] = []
    answers = [False, True]

    def accept(game: Game, seat: Side) -> bool:
        asked.append((game, seat))
        return answers[len(asked) - 1]

    e = Engine(first, accept_draw=accept)
    assert e.handle("draw 100") == ["draw decline"] and asked == []  # before newgame
    e.handle("newgame S fanqi")
    assert e.handle("draw 100") == ["info error no position yet"]
    e.handle("position classic z9=SFL move S 0 0")
    assert e.handle("draw 100") == ['info error unknown point "z9"']
    e.handle("position " + view)
    assert e.handle("draw 100") == ["draw decline"]
    assert e.handle("draw 100\r\n") == ["draw accept"]
    assert [(g.position_string(), s) for g, s in asked] == [
        (Game.from_position_string(view, 0).position_string(), Side.SOUTH)
    ] * 2
    e = Engine(first)
    session(e, "newgame S fanqi", "position " + view)
    assert e.handle("draw 100") == ["draw decline"]


# --- _quote ------------------------------------------------------------------------------


def test_quote_escapes_what_could_end_or_split_a_line_and_nothing_else() -> None:
    """C0 controls, DEL and the C1 controls (U+007F..U+009F) and the line and paragraph
    separators become Python escapes; every other character, a backslash and non-ASCII
    text included, is kept as it is."""
    assert _quote("a\nb\rc\td\x00e") == "a\\nb\\rc\\td\\x00e"
    assert _quote("\x1f \x7f\x80\x85\x9f\xa0") == "\\x1f \\x7f\\x80\\x85\\x9f\xa0"
    assert _quote("x\u2028y\u2029z") == "x\\u2028y\\u2029z"
    plain = "".join(map(chr, range(0x20, 0x7f))) + "中文 é ½ … \ufffd"
    assert _quote(plain) == plain
    assert _quote("a\\nb") == "a\\nb"


def test_quote_cuts_at_1000_characters_with_an_ellipsis() -> None:
    """Up to 1000 characters the text is kept whole; beyond, its first 1000 and `…`
    (escapes count after the cut: 1000 newlines become 2000 characters)."""
    assert _quote("x" * 1000) == "x" * 1000
    assert _quote("x" * 999 + "yz") == "x" * 999 + "y…"
    assert _quote("x" * 1002) == "x" * 1000 + "…"
    assert _quote("\n" * 1001) == "\\n" * 1000 + "…"


# --- run -------------------------------------------------------------------------------


def run_lines(data: str, **kwargs: Any) -> list[str]:
    """`run` over `data` as its input: the lines it writes."""
    out = io.StringIO()
    junqi.engine.run(first, stdin=io.StringIO(data), stdout=out, **kwargs)
    return out.getvalue().splitlines()


def test_run_passes_its_functions_and_options_to_the_engine() -> None:
    """`run`'s arguments reach the engine: the default name, the options, the deploy
    function, offer_draw and accept_draw."""
    lines = run_lines(
        f"junqi 1\nnewgame S fanqi\ndeploy 100\nposition {fanqi_view()}\ngo 100\ndraw 100\n",
        options={"depth": 3}, deploy=lambda rules, seat: {"a1": seat.id},
        offer_draw=lambda game, seat: True, accept_draw=lambda game, seat: True,
    )
    flip = Game("fanqi", 2).legal_actions()[0].notation
    assert lines == [
        "id name python engine", "option depth int 3", "ready",
        'setup {"a1":"south"}', "draw offer", "action " + flip, "draw accept",
    ]


def test_run_stops_at_quit_or_the_end_of_its_input() -> None:
    """`quit` (spaces and a `\\r` around it allowed) ends the session: nothing after it
    is answered."""
    assert run_lines("junqi 1\n quit \r\njunqi 1\n", name="t") == ["id name t", "ready"]
    assert run_lines("junqi 1\nquit", name="t") == ["id name t", "ready"]
    assert run_lines("junqi 1\njunqi 1", name="t") == ["id name t", "ready"] * 2


def test_run_skips_lines_over_max_line_bytes_and_goes_on() -> None:
    """A line of MAX_LINE bytes (line end excluded) is read; one byte more, counted in
    UTF-8 bytes, not characters, is skipped whole — however long — with one `info error`
    line, and the lines after it are answered."""
    pad = "junqi 1 "
    lines = run_lines(
        "x" * MAX_LINE + "\n"                              # exactly the limit: read (unknown: ignored)
        + "y" * MAX_LINE + "\r\n"                          # the same with \r\n
        + pad + "x" * (MAX_LINE + 1 - len(pad)) + "\n"     # one byte over: skipped
        + "x" * (MAX_LINE + 2) + "junqi 1 " * 20000 + "\n"  # far over: skipped whole
        + "中" * (MAX_LINE // 3 + 1) + "\n"                # 3 bytes each: over in bytes only
        + "junqi 1\n", name="t")
    assert lines == [OVER, OVER, OVER, "id name t", "ready"]


class Endless:
    """A referee sending one line of `length` characters, then `then`; every read must
    be bounded by a line's worth (MAX_LINE bytes and `\\r\\n`), so that a line of any
    length costs the engine no more memory than that. (`run` only calls `readline`.)"""

    def __init__(self, length: int, then: str) -> None:
        self.rest = io.StringIO(then)
        self.left = length
        self.sizes: list[int] = []

    def readline(self, size: int | None = -1) -> str:
        assert size is not None and 0 < size <= MAX_LINE + 2, f"unbounded read: readline({size})"
        self.sizes.append(size)
        if self.left > 0:
            n = min(size, self.left)
            self.left -= n
            return "x" * n
        return self.rest.readline(size)


def test_run_reads_a_bounded_piece_of_a_long_line_at_a_time() -> None:
    """A 2.6 MB line is read and skipped a piece of at most MAX_LINE + 2 characters at a
    time (never `readline()` unbounded), and the line after it is answered."""
    stream = Endless(40 * MAX_LINE, "\njunqi 1\n")
    out = io.StringIO()
    junqi.engine.run(first, name="t", stdin=cast(IO[str], stream), stdout=out)
    assert out.getvalue().splitlines() == [OVER, "id name t", "ready"]
    assert len(stream.sizes) > 40


def test_run_reads_the_process_stdin_as_utf8_lines_ended_by_newline_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """By default `run` reads the process's stdin as UTF-8 — even where the locale says
    ASCII — bytes that are not UTF-8 replaced, lines ended at `\\n` only (a lone `\\r`
    does not end one), and writes to its stdout."""
    data = b"junqi 1\r\nsetoption depth \xff\nsetoption depth \xe4\xb8\xad\njunqi 1\rjunqi 1\n"  # \xe4\xb8\xad: 中
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    before = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C")
        junqi.engine.run(first, options={"depth": 1})
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    handshake = ["id name python engine", "option depth int 1", "ready"]
    assert out.getvalue().splitlines() == [
        *handshake,
        "info error option depth takes an int, not '\ufffd'",
        "info error option depth takes an int, not '中'",
        *handshake,
    ]
