"""A progress line on the terminal: games done, games per second, time left."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Counts games and prints ``games done/total, games/s, ETA`` to ``stream``
    (stderr by default) at most every ``every`` seconds; silent when disabled.

    The rate counts only the games played in this run (not the shards a resumed run
    skipped).
    """

    def __init__(
        self,
        total: int,
        done: int = 0,
        *,
        enabled: bool = True,
        label: str = "games",
        stream: Optional[TextIO] = None,
        every: float = 0.5,
    ) -> None:
        self.total = total
        self.done = done
        self.skipped = done
        self.enabled = enabled
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.start = time.monotonic()
        self._last = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    @property
    def rate(self) -> float:
        """Games per second played so far in this run."""
        elapsed = time.monotonic() - self.start
        return (self.done - self.skipped) / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        """The current progress line."""
        rate = self.rate
        left = self.total - self.done
        eta = _clock(left / rate) if rate > 0 else "?"
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return (
            f"junqi: {self.done}/{self.total} {self.label} ({pct:.1f}%), "
            f"{rate:.1f} {self.label}/s, ETA {eta}"
        )

    def advance(self, n: int) -> None:
        """Counts ``n`` more games done; prints if due."""
        self.done += n
        now = time.monotonic()
        if self.enabled and now - self._last >= self.every and self.done < self.total:
            self._last = now
            end = "\r" if self._tty else "\n"
            print(self.line(), end=end, file=self.stream, flush=True)

    def finish(self) -> None:
        """Prints the final line (with the elapsed time)."""
        if self.enabled:
            elapsed = _clock(time.monotonic() - self.start)
            print(f"{self.line()}; done in {elapsed}", file=self.stream, flush=True)
