"""Progress of long work (recovery, benchmarks, large COPY) on standard
error: a bar redrawn in place on a terminal. Elsewhere (logs, pipes: no
control characters there) it is silent, or, given a logger, logs a line
every tenth of the way."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

_WIDTH = 30
_REDRAW_S = 0.1


class Progress:
    def __init__(self, what: str, total: int, unit: str = "",
                 stream: TextIO | None = None, logger: logging.Logger | None = None) -> None:
        self.what = what
        self.total = max(total, 0)
        self.unit = unit
        self.stream = stream or sys.stderr
        self.logger = logger
        self.done = 0
        self.terminal = self.stream.isatty()
        self._note = ""
        self._drawn = 0.0
        self._tenths = 0

    def advance(self, amount: int = 1, note: str = "") -> None:
        """``note``: shown after the bar (the latest result, say)."""
        self.done += amount
        self._note = note or self._note
        if self.terminal:
            now = time.monotonic()
            if now - self._drawn >= _REDRAW_S or self.done >= self.total:
                self._drawn = now
                self.stream.write("\r\033[K" + self._line(bar=True))
                self.stream.flush()
        elif self.logger is not None and self.total:
            tenths = min(10, self.done * 10 // self.total)
            if tenths > self._tenths:
                self._tenths = tenths
                self.logger.info("%s", self._line(bar=False))

    def finish(self) -> None:
        if self.terminal:
            self.stream.write("\r\033[K" + self._line(bar=True) + "\n")
            self.stream.flush()

    def _line(self, bar: bool) -> str:
        fraction = min(1.0, self.done / self.total) if self.total else 1.0
        unit = f" {self.unit}" if self.unit else ""
        counts = f"{self.done:,}/{self.total:,}{unit} ({fraction:.0%})"
        note = f"  {self._note}" if self._note else ""
        if not bar:
            return f"{self.what}: {counts}{note}"
        filled = int(fraction * _WIDTH)
        return f"{self.what} [{'#' * filled}{'.' * (_WIDTH - filled)}] {counts}{note}"
