"""Live progress bars on standard error (tqdm): elapsed time, rate and ETA, never frozen.

One rule for every command: a bar is drawn only when standard error is a terminal and standard
output is not a JSON document for a program (``--json -``). tqdm redraws only when it is told
of progress; a claim or a simulation chunk can take minutes, so a daemon thread refreshes the
bar once a second (its clock and ETA keep moving between pieces). A bar changes no result.

``audit-policy`` runs user code for minutes to hours, often in CI logs or under ``nohup``
where standard error is a file: there (``mode="plain"``, :class:`RunsProgress` by default when
standard error is not a terminal) the same counts are written as one plain line every
:data:`PLAIN_EVERY` seconds (tqdm's own meter text, no control characters), the first one
only after that long, so short runs print nothing. ``--json -`` turns every form off.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["PLAIN_EVERY", "Bar", "RunsProgress", "enabled_for"]

#: seconds between two plain progress lines (standard error not a terminal)
PLAIN_EVERY = 5.0


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
    ``mode="plain"``: no bar; one line of the same counts every ``plain_every`` seconds
    (default :data:`PLAIN_EVERY`), for a standard error that is a log file or a pipe.
    """

    def __init__(self, total: float | None, *, desc: str, unit: str = "it",
                 enabled: bool, stream: TextIO | None = None, tick: float = 1.0,
                 poll: Any = None, mode: str = "bar",
                 plain_every: float | None = None) -> None:
        self.enabled = enabled
        self.mode = mode
        self._poll = poll  # optional () -> units done, read at every tick
        self._bar: tqdm | None = None
        self._stop = threading.Event()
        if not enabled:
            return
        out = sys.stderr if stream is None else stream
        self._thread: threading.Thread | None = None
        if mode == "plain":  # a tqdm that never draws: its counts and clock, printed by us
            self._out = out
            self._bar = tqdm(total=total, desc=desc, unit=unit, disable=False, file=out,
                             leave=False, mininterval=float("inf"), miniters=None,
                             smoothing=0.1, delay=float("inf"))
            # the printing thread starts with the first progress: a run that fails before
            # any (a usage error found while the work is set up) leaves no thread behind
            self._tick = PLAIN_EVERY if plain_every is None else plain_every
            return
        self._bar = tqdm(total=total, desc=desc, unit=unit, file=out,
                         dynamic_ncols=True, leave=False, mininterval=0.2, smoothing=0.1)
        self._tick = tick
        self._start()

    def _start(self) -> None:
        if self._thread is None and self._bar is not None:
            self._thread = threading.Thread(target=self._ticker, args=(self._tick,),
                                            daemon=True)
            self._thread.start()

    def _ticker(self, tick: float) -> None:
        while not self._stop.wait(tick):
            bar = self._bar
            if bar is not None:
                try:
                    if self._poll is not None:
                        bar.n = self._poll()
                    if self.mode == "plain":
                        print(self.plain_line(), file=self._out, flush=True)
                    else:
                        bar.refresh()
                except (ValueError, OSError):  # stream closed under us: stop drawing
                    return

    def plain_line(self) -> str:
        """The counts as one line without control characters (what ``mode="plain"`` prints):
        ``audit-policy: 1200/48000 run [00:12<07:48, 100.0 run/s] neighbour search``."""
        bar = self._bar
        if bar is None:
            return ""
        d = bar.format_dict
        return tqdm.format_meter(**{**d, "ncols": None, "bar_format": (
            "{desc}: {percentage:.0f}% {n_fmt}/{total_fmt} {unit}s [{elapsed}<{remaining}, "
            "{rate_fmt}{postfix}]")}).replace("\r", "").strip()

    def update(self, n: float = 1) -> None:
        if self._bar is not None:
            if self.mode == "plain":  # count without drawing
                self._bar.n += n
                self._start()
            else:
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
        if self.mode != "plain":  # plain lines are printed by the ticker only
            bar.refresh()
        else:
            self._start()

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
    pilot has sized the audit), as a live tqdm bar on a terminal and one plain line every
    :data:`PLAIN_EVERY` seconds otherwise (``add(n)``, ``stage(text)``, ``close()``).

    ``enabled``: ``None`` (default) decides by the stream (a terminal: the bar; anything else:
    plain lines), ``False`` draws nothing (``--json -``), ``True`` forces the bar."""

    def __init__(self, total: int, *, stream: TextIO | None = None,
                 enabled: bool | None = None, label: str = "audit-policy",
                 plain_every: float | None = None) -> None:
        if enabled is None:
            on, mode = True, ("bar" if enabled_for(None, stream) else "plain")
        else:
            on, mode = bool(enabled), "bar"
        self._bar = Bar(max(int(total), 1), desc=label, unit="run", enabled=on, stream=stream,
                        mode=mode, plain_every=plain_every)
        self.done = 0

    @property
    def mode(self) -> str:
        """``"bar"`` or ``"plain"`` (meaningful when :attr:`enabled`)."""
        return self._bar.mode

    def stage(self, text: str) -> None:
        """Show what is being done (``neighbour search``, ``sampling``) after the counts."""
        self._bar.set(label=text)

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
