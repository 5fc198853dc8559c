"""Live progress bars on standard error (tqdm): elapsed time, rate and ETA, never frozen.

One rule for every command: a bar is drawn only when standard error is a terminal and standard
output is not a JSON document for a program (``--json -``). Nothing else is written, so logs
and pipes stay clean. tqdm redraws only when it is told of progress; a claim or a simulation
chunk can take minutes, so a daemon thread refreshes the bar once a second (its clock and ETA
keep moving between pieces). A bar changes no result.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["Bar", "enabled_for"]


def enabled_for(args: Any = None, stream: TextIO | None = None) -> bool:
    """Whether to draw: ``stream`` (default standard error) is a terminal and not ``--json -``."""
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or replaced by an object without it
        tty = False
    return tty and getattr(args, "json", None) != "-"


class Bar:
    """A tqdm bar of ``total`` units (``None``: a counter without ETA) that ticks every second.

    ``poll`` (optional): a callable returning the units done, read at every tick, for work
    that does not report its progress itself (``reproduce``'s cells).

    ``enabled=False`` makes every method a no-op (not a terminal, or ``--json -``).
    """

    def __init__(self, total: float | None, *, desc: str, unit: str = "it",
                 enabled: bool, stream: TextIO | None = None, tick: float = 1.0,
                 poll: Any = None) -> None:
        self.enabled = enabled
        self._poll = poll  # optional () -> units done, read at every tick
        self._bar: tqdm | None = None
        self._stop = threading.Event()
        if not enabled:
            return
        self._bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr if stream is None
                         else stream, dynamic_ncols=True, leave=False, mininterval=0.2,
                         smoothing=0.1)
        self._thread = threading.Thread(target=self._ticker, args=(tick,), daemon=True)
        self._thread.start()

    def _ticker(self, tick: float) -> None:
        while not self._stop.wait(tick):
            bar = self._bar
            if bar is not None:
                try:
                    if self._poll is not None:
                        bar.n = self._poll()
                    bar.refresh()
                except (ValueError, OSError):  # stream closed under us: stop drawing
                    return

    def update(self, n: float = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def set(self, *, done: float | None = None, total: float | None = None,
            label: str | None = None) -> None:
        """Move to ``done`` of ``total`` and show ``label`` after the bar."""
        bar = self._bar
        if bar is None:
            return
        if total is not None and bar.total != total:
            bar.total = total
        if done is not None:
            bar.n = done
        if label is not None:
            bar.set_postfix_str(label, refresh=False)
        bar.refresh()

    @property
    def total(self) -> float | None:
        return None if self._bar is None else self._bar.total

    def render(self) -> str:
        """The bar's current text (what the terminal shows)."""
        return "" if self._bar is None else str(self._bar)

    def close(self) -> None:
        self._stop.set()
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class RunsProgress:
    """The progress of ``audit-policy``: simulated runs done of ``total`` (settable once the
    pilot has sized the audit), as a live tqdm bar (``add(n)``, ``close()``)."""

    def __init__(self, total: int, *, stream: TextIO | None = None,
                 enabled: bool | None = None, label: str = "audit-policy") -> None:
        on = enabled_for(None, stream) if enabled is None else bool(enabled)
        self._bar = Bar(max(int(total), 1), desc=label, unit="run", enabled=on, stream=stream)
        self.done = 0

    @property
    def enabled(self) -> bool:
        return self._bar.enabled

    @property
    def total(self) -> int:
        return int(self._bar.total or 1)

    @total.setter
    def total(self, value: int) -> None:
        self._bar.set(total=max(int(value), 1))

    def add(self, n: int) -> None:
        self.done += int(n)
        self._bar.update(int(n))

    def close(self) -> None:
        self._bar.close()
