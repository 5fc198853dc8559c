"""A progress line for long sampling runs: runs done, runs per second, time left (stderr)."""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``runs done / planned, runs per second, time left`` on one terminal line (stderr)."""

    def __init__(self, total: int, *, stream: TextIO | None = None,
                 enabled: bool | None = None, label: str = "audit-policy") -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total, self.done, self.label = max(int(total), 1), 0, label
        self.start = time.perf_counter()

    def add(self, n: int) -> None:
        self.done += int(n)
        if not self.enabled:
            return
        dt = max(time.perf_counter() - self.start, 1e-9)
        rate = self.done / dt
        left = max(self.total - self.done, 0) / rate if rate > 0 else math.inf
        self.stream.write(f"\r{self.label}: {self.done}/{self.total} runs, {rate:,.0f} runs/s, "
                          f"about {left:,.0f} s left   ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
