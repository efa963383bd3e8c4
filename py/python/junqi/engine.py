"""Turn a policy function into a junqi engine: a program that plays one seat over the
line protocol of docs/protocol.md (version 1) on stdin/stdout.

A policy receives a :class:`junqi.Game` rebuilt from the seat's view string — its legal
moves are the seat's true legal moves, and nothing in it tells what the seat has not
seen (unknown pieces carry stand-in identities) — and the seat, and returns a move (a
:class:`junqi.Action` or its notation)::

    import random
    import junqi.engine

    def policy(game, seat):
        return random.choice(game.legal_actions())

    if __name__ == "__main__":
        junqi.engine.run(policy, name="random in Python")

The engine deploys with ``setup random`` (the referee draws a legal deployment) unless
``deploy`` is given: a function ``(rules, seat) -> dict`` of point to piece kind.
Options announced with ``options`` (``{name: default}``; int, bool or str) are set by
the referee with ``setoption`` and passed to the policy in ``engine.options``.

Draws: ``accept_draw(game, seat) -> bool`` answers another team's offer (default:
decline); ``offer_draw(game, seat) -> bool``, asked after the policy chose, offers a
draw with the action (a ``draw offer`` line before it).

What the seat was told beyond the present — its own setup (``setup`` line), every
``event`` line, its game clock (``clock <left> <increment>``) — is kept on the engine:
``engine.setup``, ``engine.events``, ``engine.clock``, and ``engine.player_record()``
gives it in the form of the seat's player record (``junqi-player-record/1``).

The referee tells each game's seed for the engine's own chance (the ``seed`` line after
``newgame``; it tells nothing about the game): ``engine.seed`` (``None`` when the
referee sent none), and :func:`run` seeds Python's :mod:`random` module with it at each
game (``seed_random=False`` to leave it alone), so that a policy drawing from
``random`` plays the games of a match differently and plays a game again the same.
"""

from __future__ import annotations

import io
import json
import random
import sys
from typing import IO, Any, Callable, Mapping, Optional, Union

from . import Action, Game, JunqiError, RuleSet, Side

PROTOCOL_VERSION = 1
"""The protocol version this module speaks."""

MAX_LINE = 64 * 1024
"""Longest referee line read (bytes, newline excluded): a longer one is refused."""

Policy = Callable[[Game, Side], Union[Action, str]]
"""A policy: (game rebuilt from the seat's view, the seat) -> a move or its notation."""

DrawDecision = Callable[[Game, Side], bool]
"""A draw decision: (game rebuilt from the seat's view, the seat) -> yes or no."""


class _Refused(Exception):
    """A referee line the engine cannot act on: answered ``info error ...``."""


def _u64(text: str) -> Optional[int]:
    """``text`` as a number the protocol allows (``seed``, ``clock``), else None: ASCII
    digits only (``str.isdigit`` also takes "²" and "٣", which ``int`` refuses or reads
    as another digit), below 2^64 (the length is checked first: ``int`` refuses a text
    of over 4 300 digits with an error of its own)."""
    if not (0 < len(text) <= 20 and text.isascii() and text.isdigit()):
        return None
    n = int(text)
    return n if n < 1 << 64 else None


def _quote(text: str) -> str:
    """``text`` fit for one protocol line: at most 1000 characters, control characters
    and line separators escaped (so that an error quoting the referee's text can neither
    end the line nor split it)."""
    cut = text[:1000]
    out = "".join(
        c.encode("unicode_escape").decode("ascii") if c < " " or "\x7f" <= c <= "\x9f" or c in "\u2028\u2029" else c
        for c in cut)
    return out + ("…" if len(text) > 1000 else "")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return "string"


class Engine:
    """The state of an engine between referee lines (see :func:`run`)."""

    def __init__(
        self,
        policy: Policy,
        name: str = "python engine",
        deploy: Optional[Callable[[RuleSet, Side], Mapping[str, str]]] = None,
        options: Optional[Mapping[str, Any]] = None,
        author: str = "",
        accept_draw: Optional[DrawDecision] = None,
        offer_draw: Optional[DrawDecision] = None,
        seed_random: bool = False,
    ) -> None:
        self.policy = policy
        self.seed_random = seed_random
        self.accept_draw = accept_draw
        self.offer_draw = offer_draw
        self.name = name
        self.author = author
        self.deploy_fn = deploy
        self.defaults = dict(options or {})
        self.options: dict[str, Any] = dict(self.defaults)
        self.seat: Optional[Side] = None
        self.rules: Optional[RuleSet] = None
        self.view: Optional[str] = None
        self.events: list[Any] = []
        self.setup: Optional[dict[str, str]] = None
        self.clock: Optional[tuple[int, int]] = None
        self.seed: Optional[int] = None
        self._rules_field: str = ""

    def player_record(self) -> dict[str, Any]:
        """What the seat was told so far, in the form of its player record
        (``junqi-player-record/1``: the rule set — a preset's name or the rule set's
        JSON —, the seat, its own setup, its events); ``None`` fields before ``newgame``."""
        rules: Any = self._rules_field
        if rules.startswith("json "):
            rules = json.loads(rules[5:])
        return {
            "format": "junqi-player-record/1",
            "rules": rules or None,
            "player": self.seat.id if self.seat is not None else None,
            "setup": self.setup,
            "events": list(self.events),
            "result": None,
        }

    def _game(self) -> Game:
        """The game rebuilt from the last view string (refused if it does not read)."""
        if self.view is None or self.seat is None:
            raise _Refused("no position yet")
        try:
            return Game.from_position_string(self.view, 0)
        except JunqiError as e:
            raise _Refused(str(e)) from None

    def handle(self, line: str) -> list[str]:
        """The answer lines to one referee line (empty for most lines). A line the engine
        cannot act on — an option value of the wrong type, an unknown seat or rule set,
        an event that is not JSON, a position that does not read, ``go`` when the seat
        is not to act or has no legal move — gets one ``info error ...`` line and
        changes nothing; the policy is called only with a legal move to choose."""
        try:
            return self._handle(line)
        except _Refused as e:
            return ["info error " + _quote(str(e))]

    def _handle(self, line: str) -> list[str]:
        cmd, _, rest = line.rstrip("\r\n").partition(" ")
        if cmd == "junqi":
            out = [f"id name {self.name}"]
            if self.author:
                out.append(f"id author {self.author}")
            out += [f"option {k} {_kind(v)} {v}" for k, v in self.defaults.items()]
            return out + ["ready"]
        if cmd == "setoption":
            name, _, value = rest.partition(" ")
            if name in self.defaults:
                d = self.defaults[name]
                try:
                    self.options[name] = (
                        value == "true" if isinstance(d, bool) else int(value) if isinstance(d, int) else value
                    )
                except ValueError:
                    raise _Refused(f"option {name} takes an int, not {value!r}") from None
            return []
        if cmd == "newgame":
            seat_text, _, rules_text = rest.partition(" ")
            try:
                seat = Side(seat_text)
                # (Custom JSON rule sets are read, but views rebuild only for presets.)
                rules = (RuleSet.from_json(rules_text[5:]) if rules_text.startswith("json ")
                         else RuleSet.preset(rules_text))
            except (JunqiError, ValueError) as e:
                raise _Refused(str(e)) from None
            if seat not in rules.sides:
                raise _Refused(f"{seat} does not play in {rules.name}")
            self.seat, self.rules = seat, rules
            self.view, self.events = None, []
            self.setup, self.clock, self._rules_field = None, None, rules_text
            self.seed = None
            return []
        if cmd == "seed":
            if self.seat is None:
                raise _Refused("seed before newgame")
            seed = _u64(rest.strip())
            if seed is None:
                raise _Refused(f"seed {rest.strip()!r} is not a number")
            self.seed = seed
            if self.seed_random:
                random.seed(self.seed)
            return []
        if cmd == "setup":
            try:
                setup = json.loads(rest)
            except (ValueError, RecursionError) as e:
                raise _Refused(f"a setup that is not JSON: {e}") from None
            if not isinstance(setup, dict):
                raise _Refused("a setup that is not a JSON object")
            self.setup = setup
            return []
        if cmd == "clock":
            numbers = [_u64(p) for p in rest.split()]
            if len(numbers) != 2 or numbers[0] is None or numbers[1] is None:
                raise _Refused(f"clock {rest!r} is not <left ms> <increment ms>")
            self.clock = (numbers[0], numbers[1])
            return []
        if cmd == "event":
            try:
                self.events.append(json.loads(rest))
            except (ValueError, RecursionError) as e:
                raise _Refused(f"an event that is not JSON: {e}") from None
            return []
        if cmd == "position":
            self.view = rest
            return []
        if cmd == "deploy":
            if self.deploy_fn is None or self.rules is None or self.seat is None:
                return ["setup random"]
            setup = dict(self.deploy_fn(self.rules, self.seat))
            return ["setup " + json.dumps(setup, separators=(",", ":"))]
        if cmd == "go":
            if self.view is None or self.seat is None:
                return ["info error go before position"]
            game = self._game()
            if game.to_act != self.seat:
                raise _Refused(f"go when {self.seat} is not to act")
            if not game.legal_action_ids():
                raise _Refused(f"go when {self.seat} has no legal move")
            move = self.policy(game, self.seat)
            answer = ["action " + (move if isinstance(move, str) else move.notation)]
            if self.offer_draw is not None and self.offer_draw(game, self.seat):
                answer.insert(0, "draw offer")
            return answer
        if cmd == "draw":
            if self.accept_draw is None or self.seat is None:
                return ["draw decline"]
            yes = self.accept_draw(self._game(), self.seat)
            return ["draw accept" if yes else "draw decline"]
        return []


def run(
    policy: Policy,
    name: str = "python engine",
    deploy: Optional[Callable[[RuleSet, Side], Mapping[str, str]]] = None,
    options: Optional[Mapping[str, Any]] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
    accept_draw: Optional[DrawDecision] = None,
    offer_draw: Optional[DrawDecision] = None,
    seed_random: bool = True,
) -> None:
    """Plays the engine side of the protocol with ``policy`` until ``quit`` or the end
    of the input (default: the process's stdin, read as UTF-8, bytes that are not UTF-8
    replaced, lines ending at ``\\n`` only; and its stdout). A line over ``MAX_LINE``
    bytes is skipped with an ``info error`` line. ``accept_draw``, ``offer_draw`` and
    ``seed_random`` (seed :mod:`random` from each game's ``seed`` line): see the
    module's documentation."""
    engine = Engine(policy, name=name, deploy=deploy, options=options, accept_draw=accept_draw,
                    offer_draw=offer_draw, seed_random=seed_random)
    inp = stdin if stdin is not None else io.TextIOWrapper(
        sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    out = stdout if stdout is not None else sys.stdout
    while True:
        # At most MAX_LINE + 2 characters (at least as many bytes) at a time.
        line = inp.readline(MAX_LINE + 2)
        if not line:
            break
        if len(line.rstrip("\r\n").encode("utf-8", "replace")) > MAX_LINE:
            while line and not line.endswith("\n"):
                line = inp.readline(MAX_LINE + 2)
            out.write(f"info error a line over {MAX_LINE} bytes: ignored\n")
            out.flush()
            continue
        if line.strip() == "quit":
            break
        for answer in engine.handle(line):
            out.write(answer + "\n")
        out.flush()
