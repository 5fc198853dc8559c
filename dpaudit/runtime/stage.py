"""The stage a long run is in, readable by the process that forked it.

``audit-policy --seconds`` runs its audit in a forked child
(:func:`dpaudit.runtime.limits.run_with_deadline`) and kills it when the deadline passes. The
report must then say which stage did not fit (the speed pilot, the neighbour search, the
sampling), not guess: the child names each stage with :func:`set_stage`, which writes it to
memory shared with the parent (an anonymous shared mapping opened by :func:`shared` before
the fork), and the parent reads it once the child is gone.

    with stage.shared() as read:
        try:
            out = limits.run_with_deadline(work, seconds)
        except limits.DeadlineReached:
            where = read()   # e.g. "neighbour search"
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["current_stage", "set_stage", "shared"]

#: bytes of the stage text shared with a forked child (longer texts are cut)
STAGE_BYTES = 512
_text = ""
_buffer: Any = None  # the shared mapping while a :func:`shared` block is open


def set_stage(text: str) -> None:
    """Name the stage the work is in; inside :func:`shared` (in this process or a child
    forked in it) the name is written to the shared memory as well."""
    global _text
    _text = str(text)
    buf = _buffer
    if buf is not None:
        data = _text.encode("utf-8", "replace")[: STAGE_BYTES - 2]
        buf[: 2 + len(data)] = len(data).to_bytes(2, "big") + data


def current_stage() -> str:
    """The name last given to :func:`set_stage` in this process (``""``: none)."""
    return _text


@contextlib.contextmanager
def shared() -> Iterator[Callable[[], str]]:
    """Open the shared memory for the stage of a child forked inside the block; yields a
    function that reads the last name written (``""`` before any; after the block, the last
    name written in it). Read it once the child has ended: a name being written while it is
    read could be half written."""
    global _buffer
    outer, buf = _buffer, mmap.mmap(-1, STAGE_BYTES)  # zeros: no stage named yet
    last = [""]

    def read() -> str:
        if buf.closed:
            return last[0]
        size = int.from_bytes(bytes(buf[:2]), "big")
        return bytes(buf[2: 2 + min(size, STAGE_BYTES - 2)]).decode("utf-8", "replace")

    _buffer = buf
    try:
        yield read
    finally:
        _buffer = outer
        last[0] = read()
        buf.close()
