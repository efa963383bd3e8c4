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
"""

from __future__ import annotations

import io
import json
import sys
from typing import IO, Any, Callable, Mapping, Optional, Union

from . import Action, Game, JunqiError, RuleSet, Side

PROTOCOL_VERSION = 1
"""The protocol version this module speaks."""

MAX_LINE = 64 * 1024
"""Longest referee line read (bytes, newline excluded): a longer one is refused."""

Policy = Callable[[Game, Side], Union[Action, str]]
"""A policy: (game rebuilt from the seat's view, the seat) -> a move or its notation."""


class _Refused(Exception):
    """A referee line the engine cannot act on: answered ``info error ...``."""


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
    ) -> None:
        self.policy = policy
        self.name = name
        self.author = author
        self.deploy_fn = deploy
        self.defaults = dict(options or {})
        self.options: dict[str, Any] = dict(self.defaults)
        self.seat: Optional[Side] = None
        self.rules: Optional[RuleSet] = None
        self.view: Optional[str] = None
        self.events: list[Any] = []

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
            try:
                game = Game.from_position_string(self.view, 0)
            except JunqiError as e:
                raise _Refused(str(e)) from None
            if game.to_act != self.seat:
                raise _Refused(f"go when {self.seat} is not to act")
            if not game.legal_action_ids():
                raise _Refused(f"go when {self.seat} has no legal move")
            move = self.policy(game, self.seat)
            return ["action " + (move if isinstance(move, str) else move.notation)]
        if cmd == "draw":
            return ["draw decline"]
        return []


def run(
    policy: Policy,
    name: str = "python engine",
    deploy: Optional[Callable[[RuleSet, Side], Mapping[str, str]]] = None,
    options: Optional[Mapping[str, Any]] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
) -> None:
    """Plays the engine side of the protocol with ``policy`` until ``quit`` or the end
    of the input (default: the process's stdin, read as UTF-8, bytes that are not UTF-8
    replaced, lines ending at ``\\n`` only; and its stdout). A line over ``MAX_LINE``
    bytes is skipped with an ``info error`` line."""
    engine = Engine(policy, name=name, deploy=deploy, options=options)
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
