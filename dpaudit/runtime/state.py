"""Saved work of long runs: an interrupted ``check`` or ``reproduce`` continues with ``--resume``.

Two stores, one format:

* :class:`CheckState`: the completed pieces of one ``check`` run (each claim's *evidence*, each
  finding's raw result, the regret experiment's result) in one JSON file. Evidence is saved,
  never verdicts: the engine decides sampled claims only after every claim ran (the check's
  ``alpha`` is split over its sampled claims), so a resumed check decides exactly as an
  uninterrupted one.
* :class:`ExperimentCache`: the completed cells (grid points, panels, algorithms) of one
  ``reproduce`` run, one JSON file per cell, used through
  :meth:`dpaudit.experiments.ExperimentSettings.cached`.

Where and under which key: a state lives in a folder (``--state-dir``; ``.dpaudit-state/`` in
the current folder for ``check``, in ``--out`` for ``reproduce``) under a name carrying a
SHA-256 of everything that changes results: the command, the name, every such parameter, the
dpaudit version, a digest of dpaudit's own source files and of the files defining a user
audit's functions (:func:`run_key`). A state written under other parameters or other code
therefore has another name and is never read. The number of workers is not part of the key:
results do not depend on it.

Files are written atomically (a temporary file in the same folder, then :func:`os.replace`) as
soon as a piece completes, so Ctrl-C or a kill loses at most the piece in progress. A completed
run deletes its state. A state that cannot be read or decoded is ignored with a warning (the
run then computes everything), never a traceback; a state that cannot be written (a read-only
folder, a full disk) is a warning too: the run goes on without saving.

Chunks. Inside a piece, every :func:`dpaudit.runtime.parallel.map_chunks` call (the sampled
engine's measurement, simulated regret runs, ``simulate``'s runs, a policy audit's blocks of
runs) saves each finished chunk's result (its sufficient statistics: the hits of an event,
regret moments and sums; never a verdict) under the piece, through :func:`chunk_scope`, so an
interrupted piece resumes at its last saved chunk. Chunk ``i`` of a call draws from child ``i``
of the call's seed sequence (:mod:`dpaudit.stats.rng`), a function of ``(seed, key, i)``
only, so a restored chunk is the one an uninterrupted run computes and the chunks computed
after it are too. A call is identified within its piece by its function's name, its seed
sequence, its sizes and how many such calls came before it; only calls made directly in the
piece are saved (a ``map_chunks`` inside a chunk is part of that chunk), and only in the
process that opened the scope (pool workers never write). Chunk writes are throttled: at most
one every :data:`FLUSH_SECONDS` (and never more often than 20 times the last write's own
duration, so writing costs at most ~5% of the run), plus one when the call ends or is
interrupted; a kill therefore loses at most the last second of chunks. At most
:data:`MAX_CHUNK_BYTES` of chunk results are kept (a call whose chunks return large arrays,
e.g. raw samples, stops saving there, with a warning).

Within a chunk. A sampler that itself streams in sub-chunks (the release sampler,
:func:`dpaudit.sim.releases.release_sampler`, whose long horizons run a few runs at a time)
asks :func:`partial_progress` for the chunk being computed and saves what it finished with
its generator's state; a resumed chunk continues from there with the same generator state,
so its result is the uninterrupted chunk's. Such progress is saved only for a chunk computed
in the scope's process and is dropped when the chunk finishes.

Test hook: ``$DPAUDIT_STOP_AFTER_CHUNKS=K`` stops a run (``KeyboardInterrupt``, as Ctrl-C
would) right after its K-th saved chunk has been written; ``K:hang`` sleeps there instead
(a run then ends only by a deadline or a signal).

The format (:func:`encode` / :func:`decode`) is JSON that reloads the exact values: floats by
their shortest round-trip text, numpy arrays and scalars by their raw bytes and dtype, tuples
and dicts (with non-string keys) tagged, dpaudit's own dataclasses and enums by name. Decoding
builds nothing else (no pickle: a state file cannot run code). A value the format cannot hold
(a user type in an evidence's ``data``) is not saved, with a warning; that piece is recomputed
on resume.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import dataclasses
import enum
import functools
import hashlib
import importlib
import inspect
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit import __version__

__all__ = [
    "DEFAULT_STATE_DIR",
    "FLUSH_ENV",
    "FLUSH_SECONDS",
    "FORMAT",
    "MAX_CHUNK_BYTES",
    "STATE_DIR_ENV",
    "STOP_ENV",
    "CheckState",
    "ChunkStore",
    "PartialProgress",
    "ExperimentCache",
    "Saved",
    "StateFormatError",
    "chunk_scope",
    "chunk_store",
    "inside_chunk",
    "code_digest",
    "decode",
    "encode",
    "after_failure",
    "object_code_files",
    "open_run_state",
    "partial_progress",
    "run_key",
    "spec_code_files",
    "state_folder",
]

#: default state folder of ``check`` (relative to the current folder; ``reproduce``: to ``--out``)
DEFAULT_STATE_DIR = Path(".dpaudit-state")
#: environment variable naming the state folder of every run (``--state-dir`` overrides it)
STATE_DIR_ENV = "DPAUDIT_STATE_DIR"
#: version of the file format; part of every key, so a new format never reads an old file
FORMAT = 1
#: seconds between two writes of chunk progress (``$DPAUDIT_STATE_FLUSH_SECONDS`` overrides it)
FLUSH_SECONDS = 1.0
FLUSH_ENV = "DPAUDIT_STATE_FLUSH_SECONDS"
#: encoded bytes of chunk results a state keeps at most (later chunks are not saved)
MAX_CHUNK_BYTES = 32 << 20
#: test hook: stop (or ``K:hang``) after the K-th saved chunk (see the module docstring)
STOP_ENV = "DPAUDIT_STOP_AFTER_CHUNKS"

_OWN_PACKAGES = ("dpaudit", "dpaudit.audits", "dpaudit.mechanisms", "dpaudit.algorithms")


class StateFormatError(ValueError):
    """A value the state format cannot hold, or a file that is not a valid state."""


# -- the format ------------------------------------------------------------------------------
def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _own_class(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module == "dpaudit" or module.startswith("dpaudit.")


def encode(obj: Any) -> Any:
    """A JSON-able form of ``obj`` that :func:`decode` turns back into an equal value of the
    same types; :class:`StateFormatError` for a value it cannot hold."""
    if obj is None or isinstance(obj, bool) or type(obj) is str:
        return obj
    if isinstance(obj, enum.Enum):
        cls = type(obj)
        if not _own_class(cls):
            raise StateFormatError(f"enum {cls.__module__}.{cls.__qualname__} is not dpaudit's")
        return {"__enum__": f"{cls.__module__}:{cls.__qualname__}", "value": encode(obj.value)}
    if type(obj) is int:
        return obj
    if type(obj) is float:
        return obj if np.isfinite(obj) else {"__float__": repr(obj)}
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject or obj.dtype.fields is not None:
            raise StateFormatError(f"numpy array of dtype {obj.dtype}")
        # the axes in memory order (largest stride first): the array comes back with the
        # same layout, so reductions over it add in the same order (bit-identical results)
        axes = [int(a) for a in np.argsort([-abs(st) for st in obj.strides], kind="stable")]
        if axes == sorted(axes):
            return {"__ndarray__": obj.dtype.str, "shape": list(obj.shape),
                    "data": _b64(np.ascontiguousarray(obj).tobytes())}
        return {"__ndarray__": obj.dtype.str, "shape": list(obj.shape), "axes": axes,
                "data": _b64(np.ascontiguousarray(obj.transpose(axes)).tobytes())}
    if isinstance(obj, np.generic):
        if obj.dtype.hasobject:
            raise StateFormatError(f"numpy scalar of dtype {obj.dtype}")
        return {"__npscalar__": obj.dtype.str, "data": _b64(obj.tobytes())}
    if type(obj) is tuple:
        return {"__tuple__": [encode(v) for v in obj]}
    if type(obj) is list:
        return [encode(v) for v in obj]
    if type(obj) is dict:
        return {"__dict__": [[encode(k), encode(v)] for k, v in obj.items()]}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        dcls = type(obj)
        if not _own_class(dcls):
            raise StateFormatError(f"{dcls.__module__}.{dcls.__qualname__} is not one of "
                                   "dpaudit's types")
        return {"__dataclass__": f"{dcls.__module__}:{dcls.__qualname__}",
                "fields": {f.name: encode(getattr(obj, f.name))
                           for f in dataclasses.fields(obj) if f.init}}
    raise StateFormatError(f"a {type(obj).__module__}.{type(obj).__qualname__}")


def _own_type(path: str) -> type:
    module_name, _, qualname = path.partition(":")
    if not (module_name == "dpaudit" or module_name.startswith("dpaudit.")):
        raise StateFormatError(f"type {path!r} is not dpaudit's")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise StateFormatError(f"unknown type {path!r}") from None
    if not isinstance(obj, type):
        raise StateFormatError(f"{path!r} is not a type")
    return obj


def decode(data: Any) -> Any:
    """The value :func:`encode` wrote (:class:`StateFormatError` on anything else)."""
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) < 1:
        raise StateFormatError(f"unexpected {type(data).__name__} in a state file")
    try:
        if "__tuple__" in data:
            return tuple(decode(v) for v in data["__tuple__"])
        if "__dict__" in data:
            return {decode(k): decode(v) for k, v in data["__dict__"]}
        if "__float__" in data:
            text = data["__float__"]
            if text not in ("inf", "-inf", "nan"):
                raise StateFormatError(f"bad float {text!r}")
            return float(text)
        if "__ndarray__" in data:
            dtype = np.dtype(data["__ndarray__"])
            if dtype.hasobject:
                raise StateFormatError("object arrays are not stored")
            raw = base64.b64decode(data["data"], validate=True)
            shape, axes = [int(n) for n in data["shape"]], data.get("axes")
            if axes is None:
                return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
            axes = [int(a) for a in axes]
            if sorted(axes) != list(range(len(shape))):
                raise StateFormatError(f"bad axes {axes!r}")
            stored = np.frombuffer(raw, dtype=dtype).reshape([shape[a] for a in axes]).copy()
            return stored.transpose(np.argsort(axes))
        if "__npscalar__" in data:
            dtype = np.dtype(data["__npscalar__"])
            if dtype.hasobject:
                raise StateFormatError("object scalars are not stored")
            raw = base64.b64decode(data["data"], validate=True)
            return np.frombuffer(raw, dtype=dtype)[0]
        if "__enum__" in data:
            cls = _own_type(data["__enum__"])
            if not issubclass(cls, enum.Enum):
                raise StateFormatError(f"{data['__enum__']!r} is not an enum")
            return cls(decode(data["value"]))
        if "__dataclass__" in data:
            cls = _own_type(data["__dataclass__"])
            if not dataclasses.is_dataclass(cls):
                raise StateFormatError(f"{data['__dataclass__']!r} is not a dataclass")
            return cls(**{str(k): decode(v) for k, v in data["fields"].items()})
    except StateFormatError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise StateFormatError(f"malformed value in a state file ({exc})") from None
    raise StateFormatError(f"unexpected object with keys {sorted(data)[:3]} in a state file")


def state_folder(given: Path | None, base: Path = Path(".")) -> Path:
    """The state folder of a run: ``--state-dir`` when given, else ``$DPAUDIT_STATE_DIR`` when
    set, else ``base/.dpaudit-state``."""
    if given is not None:
        return Path(given)
    env = os.environ.get(STATE_DIR_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return base / DEFAULT_STATE_DIR


# -- keys ------------------------------------------------------------------------------------
def _package_roots() -> list[Path]:
    roots = []
    for name in _OWN_PACKAGES:
        module = sys.modules.get(name)
        if module is None:
            try:
                module = importlib.import_module(name)
            except ImportError:  # pragma: no cover - a broken install
                continue
        roots += [Path(p).resolve() for p in getattr(module, "__path__", ())]
    return roots


@functools.cache
def code_digest() -> str:
    """SHA-256 of dpaudit's version and every ``.py`` file of its packages (the engine,
    mechanisms, algorithms, audits): a state written by other code is never read."""
    h = hashlib.sha256(f"dpaudit {__version__} format {FORMAT}".encode())
    seen: set[Path] = set()
    for root in _package_roots():
        for path in sorted(root.rglob("*.py")):
            if path in seen or "__pycache__" in path.parts:
                continue
            seen.add(path)
            h.update(str(path.relative_to(root)).encode() + b"\0")
            with contextlib.suppress(OSError):
                h.update(path.read_bytes())
    return h.hexdigest()


def _callable_file(obj: Any) -> Path | None:
    while isinstance(obj, functools.partial):
        obj = obj.func
    module = inspect.getmodule(obj) if obj is not None else None
    file = getattr(module, "__file__", None)
    return Path(file).resolve() if file else None


def spec_code_files(spec: Any) -> list[Path]:
    """Files outside dpaudit that define an audit's functions (a user's audit module): their
    content is part of a check's key, so editing the module invalidates its saved state."""
    pieces: list[Any] = [spec.regret, spec.mechanism, spec.variant]
    pieces += [c.evaluate for c in spec.claims] + [f.evaluate for f in spec.findings]
    roots = _package_roots()
    files = set()
    for piece in pieces:
        if piece is None or isinstance(piece, int | float | str | tuple | list | dict):
            continue
        path = _callable_file(piece if callable(piece) else type(piece))
        if path is not None and not any(r == path or r in path.parents for r in roots):
            files.add(path)
    return sorted(files)


def object_code_files(*objects: Any) -> list[Path]:
    """Files outside dpaudit that define ``objects`` (or their classes): a user's mechanism or
    policy module, whose content is part of an ``audit``'s or ``audit-policy``'s key."""
    roots = _package_roots()
    files = set()
    for obj in objects:
        if obj is None:
            continue
        path = _callable_file(obj if callable(obj) and not hasattr(obj, "sample") else type(obj))
        if path is None and not isinstance(obj, type):
            path = _callable_file(type(obj))
        if path is not None and not any(r == path or r in path.parents for r in roots):
            files.add(path)
    return sorted(files)


def run_key(fields: dict[str, Any], files: Iterable[Path] = ()) -> str:
    """SHA-256 (hex) of ``fields`` (JSON, sorted keys), dpaudit's :func:`code_digest` and the
    content of ``files``."""
    h = hashlib.sha256(json.dumps({"format": FORMAT, "code": code_digest(), **fields},
                                  sort_keys=True, default=repr).encode())
    for path in files:
        h.update(str(path).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")[:60] or "run"


# -- files -----------------------------------------------------------------------------------
def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and :func:`os.replace`: a reader
    (or a run killed mid-write) sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove_empty(folder: Path, *, ours: bool = False) -> None:
    """Remove ``folder`` when it is empty and it is ours (the default ``.dpaudit-state`` or a
    run's own subfolder): a folder the user named is left in place."""
    if ours or folder.name == DEFAULT_STATE_DIR.name:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty


@dataclasses.dataclass(frozen=True)
class Saved:
    """One completed piece: its value and the seconds it took when it was computed."""

    value: Any
    seconds: float


def _warn(message: str) -> None:
    print(f"dpaudit: warning: {message}", file=sys.stderr)


def _note(message: str) -> None:
    print(f"dpaudit: {message}", file=sys.stderr)


class _WarnsOnce:
    """``warn_once(kind, message)``: report each kind of problem once, through ``warn``."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self._warn = warn
        self._warned: set[str] = set()

    def warn_once(self, kind: str, message: str) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            self._warn(message)


def _locked(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run a :class:`CheckState` method holding the state's lock."""
    @functools.wraps(method)
    def run(self: CheckState, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class CheckState(_WarnsOnce):
    """The completed pieces of one run, in ``folder/<prefix>-<name>-<key>.json``, and the
    finished chunks of the pieces in progress (see "Chunks" in the module docstring).

    ``resume``: read the saved pieces and chunks (else start afresh, still saving). ``write``:
    save each completed piece and chunk (``False``: neither read nor write). ``warn(message)``
    reports problems (default: one line on standard error); it is called once per kind of
    problem. ``prefix``: the command (``check``, ``audit``, ``audit-policy``, ``simulate``).
    """

    def __init__(self, folder: Path, name: str, key: str, *, resume: bool,
                 write: bool = True, warn: Callable[[str], None] = _warn,
                 prefix: str = "check") -> None:
        self.folder = Path(folder)
        self.path = self.folder / f"{_slug(prefix)}-{_slug(name)}-{key[:20]}.json"
        self.key = key
        self.name = name
        self.write = write
        super().__init__(warn)
        self.pieces: dict[str, dict[str, Any]] = {}  # piece -> {"value": encoded, "seconds"}
        #: call -> {chunk index (text): {"value": encoded, "seconds": float}}
        self.chunks: dict[str, dict[str, dict[str, Any]]] = {}
        self.restored: list[str] = []
        self.found = False
        #: the piece being computed (its chunks are saved under it); set by a missed load()
        self.current: str | None = None
        self.chunks_saved = 0      # chunks saved by this process (the test hook counts them)
        self.chunks_restored = 0   # chunks read back instead of computed
        self.restored_seconds = 0.0  # their seconds, when they were computed
        self._calls: dict[tuple[str, str], int] = {}
        #: progress inside a chunk: "call/chunk/j" -> encoded (read back) or raw (to write)
        self.partials: dict[str, Any] = {}
        self._partial_raw: dict[str, Any] = {}
        self._chunk_bytes = 0
        self._dirty = False
        #: ``time.monotonic()`` of the last write, ``None`` before the first: the monotonic
        #: clock counts from an arbitrary origin (boot, on Linux), so no constant may stand
        #: for "long ago" (0.0 did, and a machine up less than the flush interval never
        #: wrote its first chunk)
        self._last_write: float | None = None
        self._write_cost = 0.0
        #: chunks may be saved from two threads of this process at once (a sampled audit
        #: measures both sides concurrently on one pool): every change of the tables and every
        #: write holds it
        self._lock = threading.RLock()
        if resume and write:
            self._load()

    def _load(self) -> None:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return
        except OSError as exc:
            self.warn_once("read", f"cannot read the saved state {str(self.path)!r} "
                           f"({exc.strerror or exc}); running everything")
            return
        try:
            doc = json.loads(text)
            if not isinstance(doc, dict) or doc.get("format") != FORMAT \
                    or doc.get("key") != self.key or not isinstance(doc.get("pieces"), dict) \
                    or not isinstance(doc.get("chunks", {}), dict) \
                    or not isinstance(doc.get("partials", {}), dict):
                raise StateFormatError("not a dpaudit state for this run")
            pieces = {}
            for piece, entry in doc["pieces"].items():
                decode(entry["value"])  # refuse the file now rather than mid-run
                pieces[str(piece)] = {"value": entry["value"],
                                      "seconds": float(entry["seconds"])}
            chunks: dict[str, dict[str, dict[str, Any]]] = {}
            for call, saved in doc.get("chunks", {}).items():
                chunks[str(call)] = {}
                for i, entry in saved.items():
                    decode(entry["value"])
                    chunks[str(call)][str(int(i))] = {"value": entry["value"],
                                                      "seconds": float(entry["seconds"])}
            partials = {str(k): v for k, v in doc.get("partials", {}).items()}
            for v in partials.values():
                decode(v)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.warn_once("read", f"ignoring the unreadable saved state {str(self.path)!r} "
                           f"({' '.join(str(exc).split())[:200]}); running everything (it "
                           "will be overwritten)")
            return
        self.pieces = pieces
        self.chunks = chunks
        self.partials = partials
        self._chunk_bytes = len(json.dumps(chunks))
        self.found = True

    def load(self, piece: str) -> Saved | None:
        """The saved result of ``piece`` (``None``: not saved, or not resuming; the caller
        then computes it, and its chunks are saved under ``piece``)."""
        entry = self.pieces.get(piece)
        if entry is None:
            self.current = piece
            return None
        self.restored.append(piece)
        return Saved(decode(entry["value"]), entry["seconds"])

    def save(self, piece: str, value: Any, seconds: float) -> None:
        """Record ``piece`` as completed (its chunks are dropped) and rewrite the state file
        atomically."""
        if self.current == piece:
            self.current = None
        if not self.write:
            return
        try:
            encoded = encode(value)
        except StateFormatError as exc:
            self.warn_once(f"encode:{piece}", f"the result of {piece} holds {exc}, which the "
                           "state format cannot store: it is not saved (--resume recomputes "
                           "it)")
            return
        self.pieces[piece] = {"value": encoded, "seconds": float(seconds)}
        self._drop_chunks(piece)
        self._flush()

    @_locked
    def _drop_chunks(self, piece: str) -> None:
        for call in [c for c in self.chunks if c.startswith(f"{piece}|")]:
            del self.chunks[call]
        self._drop_partials(f"{piece}|")
        self._chunk_bytes = len(json.dumps(self.chunks)) if self.chunks else 0

    @property
    def saved_work(self) -> int:
        """Completed pieces, saved chunks and progress inside chunks (what ``--resume`` would
        read back)."""
        return (len(self.pieces) + sum(len(c) for c in self.chunks.values())
                + len(self.partials) + len(self._partial_raw))

    # -- chunks ------------------------------------------------------------------------
    @_locked
    def chunk_store(self, signature: str, n_chunks: int) -> ChunkStore | None:
        """The store of one ``map_chunks`` call of the current piece (``None``: no piece is
        being computed, or nothing is written)."""
        if not self.write or self.current is None:
            return None
        count = self._next_call(self.current, signature)
        return ChunkStore(self, f"{self.current}|{signature}#{count}", n_chunks)

    @_locked
    def _next_call(self, piece: str, signature: str) -> int:
        """How many calls with this signature ``piece`` made before this one (and count it):
        a call's place among its likes names its saved work."""
        count = self._calls.get((piece, signature), 0)
        self._calls[(piece, signature)] = count + 1
        return count

    @_locked
    def _saved_chunks(self, call: str, n_chunks: int) -> dict[int, Any]:
        out: dict[int, Any] = {}
        for i, entry in self.chunks.get(call, {}).items():
            if 0 <= int(i) < n_chunks:
                out[int(i)] = decode(entry["value"])
                self.chunks_restored += 1
                self.restored_seconds += entry["seconds"]
        return out

    @_locked
    def _save_chunk(self, call: str, i: int, value: Any, seconds: float) -> None:
        if not self.write:
            return
        try:
            encoded = encode(value)
        except StateFormatError as exc:
            self.warn_once(f"encode-chunk:{call.split('|')[0]}", f"a chunk of {call.split('|')[0]} "
                           f"holds {exc}, which the state format cannot store: its chunks are "
                           "not saved")
            return
        size = len(json.dumps(encoded))
        if self._chunk_bytes + size > MAX_CHUNK_BYTES:
            self.warn_once("chunk-bytes", f"the saved chunks reached {MAX_CHUNK_BYTES >> 20} "
                           "MiB: later chunks are not saved (--resume recomputes them)")
            return
        self._chunk_bytes += size
        self.chunks.setdefault(call, {})[str(i)] = {"value": encoded, "seconds": float(seconds)}
        self._drop_partials(f"{call}/{i}/")
        self._dirty = True
        self.chunks_saved += 1
        self._maybe_flush()
        _stop_hook(self)

    def _maybe_flush(self) -> None:
        if self._last_write is None:  # nothing written yet: the first chunk is written at once
            self._flush()
            return
        now = time.monotonic()
        if now - self._last_write >= max(_flush_seconds(), 20.0 * self._write_cost):
            self._flush()

    def _drop_partials(self, prefix: str) -> None:
        for table in (self.partials, self._partial_raw):
            for k in [k for k in table if k.startswith(prefix)]:
                del table[k]

    @_locked
    def _save_partial(self, key: str, value: Any) -> None:
        """Keep ``value`` (encoded only when written) as the progress ``key``."""
        if not self.write:
            return
        self._partial_raw[key] = value
        self._dirty = True
        self._maybe_flush()

    @_locked
    def _load_partial(self, key: str) -> Any:
        entry = self.partials.get(key)
        return None if entry is None else decode(entry)

    @_locked
    def flush(self) -> None:
        """Write chunks kept in memory since the last write (a no-op when there are none)."""
        if self._dirty:
            self._flush()

    @_locked
    def _flush(self) -> None:
        if not self.write:
            return
        t0 = time.monotonic()
        for k, value in list(self._partial_raw.items()):
            try:
                encoded = encode(value)
            except StateFormatError as exc:
                self.warn_once("encode-partial", f"progress inside a chunk holds {exc}, which "
                               "the state format cannot store: it is not saved")
                continue
            finally:
                del self._partial_raw[k]
            if self._chunk_bytes + len(json.dumps(encoded)) > MAX_CHUNK_BYTES:
                self.warn_once("chunk-bytes", f"the saved chunks reached "
                               f"{MAX_CHUNK_BYTES >> 20} MiB: later chunks are not saved "
                               "(--resume recomputes them)")
                continue
            self.partials[k] = encoded
        doc = {"format": FORMAT, "key": self.key, "name": self.name, "pieces": self.pieces,
               "chunks": self.chunks, "partials": self.partials}
        try:
            _write_atomic(self.path, json.dumps(doc, indent=None, sort_keys=True))
        except OSError as exc:
            self.write = False
            self.warn_once("write", f"cannot save the run's state in {str(self.folder)!r} "
                           f"({exc.strerror or exc}); continuing without it (--resume will "
                           "not find this run's work)")
        self._dirty = False
        done = time.monotonic()
        self._last_write, self._write_cost = done, done - t0

    def discard(self) -> None:
        """Delete the state (the run completed); the folder too when it is left empty."""
        if not self.write:
            return
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
        # a process killed mid-write (audit-policy's child at its deadline) leaves its
        # temporary file behind
        for tmp in self.folder.glob(f".{self.path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()
        _remove_empty(self.folder)


class ChunkStore:
    """The finished chunks of one ``map_chunks`` call: ``load()`` -> ``{index: result}`` of
    the chunks saved before (``{}`` when not resuming), ``save(i, result)`` as each chunk
    finishes (written at most once a second), ``flush()`` when the call ends or stops."""

    def __init__(self, state: CheckState, call: str, n_chunks: int) -> None:
        self.state = state
        self.call = call
        self.n_chunks = n_chunks
        self._mark = time.perf_counter()

    def load(self) -> dict[int, Any]:
        return self.state._saved_chunks(self.call, self.n_chunks)

    def save(self, i: int, value: Any) -> None:
        now = time.perf_counter()
        seconds, self._mark = now - self._mark, now
        self.state._save_chunk(self.call, i, value, seconds)

    def flush(self) -> None:
        self.state.flush()

    @contextlib.contextmanager
    def computing(self, i: int) -> Iterator[None]:
        """Chunk ``i`` is being computed in this block (:func:`partial_progress` sees it)."""
        token = _PARTIAL.set(_ChunkInProgress(self.state, f"{self.call}/{i}", os.getpid()))
        try:
            yield
        finally:
            _PARTIAL.reset(token)


class PartialProgress:
    """What a sampler finished inside one chunk: ``load()`` (``None``: nothing saved) and
    ``save(value)`` (kept, written with the next throttled write)."""

    def __init__(self, state: CheckState, key: str) -> None:
        self.state = state
        self.key = key

    def load(self) -> Any:
        return self.state._load_partial(self.key)

    def save(self, value: Any) -> None:
        self.state._save_partial(self.key, value)


@dataclasses.dataclass
class _ChunkInProgress:
    state: CheckState
    key: str
    pid: int
    asked: int = 0


_PARTIAL: contextvars.ContextVar[_ChunkInProgress | None] = contextvars.ContextVar(
    "dpaudit_chunk_in_progress", default=None)


def partial_progress() -> PartialProgress | None:
    """For a sampler streaming inside a chunk: its progress store (``None`` outside a saved
    chunk, or in another process). The j-th call within one chunk gets the j-th store."""
    chunk = _PARTIAL.get()
    if chunk is None or chunk.pid != os.getpid():
        return None
    j, chunk.asked = chunk.asked, chunk.asked + 1
    return PartialProgress(chunk.state, f"{chunk.key}/{j}")


class _BlockProgress(PartialProgress):
    """:class:`PartialProgress` of a cell's own blocks of work: each save counts as a saved
    chunk for the test hook (``$DPAUDIT_STOP_AFTER_CHUNKS``)."""

    def load(self) -> Any:
        value = super().load()
        if value is not None:
            self.state.chunks_restored += 1
        return value

    def save(self, value: Any) -> None:
        super().save(value)
        if self.state.write:
            self.state.chunks_saved += 1
            _stop_hook(self.state)


# the cell of a reproduction being computed: its chunk state, its piece, the process
_CELL: contextvars.ContextVar[tuple[CheckState, str, int] | None] = contextvars.ContextVar(
    "dpaudit_cell_in_progress", default=None)


def cell_progress(name: str) -> PartialProgress | None:
    """For code that works through a reproduction cell in blocks of its own (not through
    ``map_chunks``): where to save what it finished, so an interrupted cell resumes at its
    last saved block. ``None`` outside a cell of ``reproduce`` (``--no-state``, another
    process, inside a chunk). The j-th call named ``name`` within one cell gets the j-th store;
    save with the blocks done the generator state to continue from (and something that
    identifies the call, e.g. the generator's state at its start, to check on load). The
    saves are written with the cell's chunks (throttled) and dropped when the cell
    completes."""
    cell = _CELL.get()
    if cell is None or cell[2] != os.getpid() or _INSIDE.get() \
            or _PARTIAL.get() is not None:
        return None
    state, piece, _ = cell
    if not state.write:
        return None
    count = state._next_call(piece, f"progress:{name}")
    return _BlockProgress(state, f"{piece}|progress:{name}#{count}")


def _flush_seconds() -> float:
    text = os.environ.get(FLUSH_ENV, "").strip()
    try:
        return max(0.0, float(text)) if text else FLUSH_SECONDS
    except ValueError:
        return FLUSH_SECONDS


def _stop_hook(state: CheckState) -> None:
    """``$DPAUDIT_STOP_AFTER_CHUNKS`` (tests): stop after the K-th saved chunk."""
    text = os.environ.get(STOP_ENV, "").strip()
    if not text:
        return
    count, _, mode = text.partition(":")
    if not count.strip().isdigit() or state.chunks_saved != int(count):
        return
    state.flush()
    if mode == "hang":
        time.sleep(3600)
    raise KeyboardInterrupt


def open_run_state(command: str, name: str, fields: dict[str, Any], files: Iterable[Path] = (),
                   *, resume: bool, no_state: bool, state_dir: Path | None,
                   announce: Callable[[str], None] = _note) -> CheckState | None:
    """The state of one ``audit``, ``audit-policy`` or ``simulate`` run (``None`` under
    ``--no-state``), keyed like ``check``'s: ``command``, ``name`` and ``fields`` (every
    parameter that changes results; never the workers), dpaudit's code and ``files`` (the
    user's modules and input files). With ``resume`` it says what it found."""
    if no_state:
        return None
    key = run_key({"command": command, "name": name, **fields}, files)
    folder = state_folder(state_dir)
    state = CheckState(folder, name, key, resume=resume, prefix=command)
    if resume:
        if state.found:
            chunks = sum(len(c) for c in state.chunks.values())
            announce(f"resuming from {state.path} ({chunks} finished chunk(s) saved)")
        else:
            announce(f"--resume: no saved state for these arguments in {str(folder)!r}; "
                     "running everything")
    return state


def after_failure(state: CheckState | None, keep: bool, *, saved: bool | None = None,
                  announce: Callable[[str], None] = _note) -> None:
    """An interrupted or failed run: keep its state (``keep``: ``--resume`` can help) and say
    so when it holds work (``saved``: whether it does, when another process wrote it), else
    delete it."""
    if state is None:
        return
    holds = state.path.exists() if saved is None else saved
    if keep and state.write and holds:
        announce(f"finished work saved in {state.path}; the same command with --resume "
                 "continues from it")
    else:
        state.discard()


# the state whose chunks are saved, with the process that opened the scope; and whether the
# code running now is inside a chunk (its own map_chunks calls are part of that chunk)
_SCOPE: contextvars.ContextVar[tuple[CheckState, int] | None] = contextvars.ContextVar(
    "dpaudit_chunk_scope", default=None)
_INSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("dpaudit_inside_chunk",
                                                               default=False)


@contextlib.contextmanager
def chunk_scope(state: CheckState | None, piece: str | None = None) -> Iterator[None]:
    """Save the chunks of every ``map_chunks`` call made in this block (in this process)
    under ``state``'s current piece (``piece``, when given, becomes it). ``None``: nothing
    is saved. Chunks still in memory are written when the block ends, however it ends."""
    if state is None:
        yield
        return
    if piece is not None:
        state.current = piece
    token = _SCOPE.set((state, os.getpid()))
    try:
        yield
    finally:
        _SCOPE.reset(token)
        state.flush()


@contextlib.contextmanager
def adopt_chunk_scope() -> Iterator[None]:
    """In a child forked to run the work (``--seconds``' hard-kill backstop), take over the
    parent's open :func:`chunk_scope`, so the chunks the child finishes are saved (a scope
    saves only in the process that opened it, which keeps pool workers from writing)."""
    current = _SCOPE.get()
    if current is None or current[1] == os.getpid():
        yield
        return
    with chunk_scope(current[0]):
        yield


def _describe(fn: Any) -> str:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def chunk_store(fn: Any, seq: Any, total: int, chunk: int, n_chunks: int) -> ChunkStore | None:
    """For :func:`dpaudit.runtime.parallel.map_chunks`: the store of this call, or ``None`` (no
    scope, another process, or a call made inside a chunk)."""
    scope = _SCOPE.get()
    if scope is None or scope[1] != os.getpid() or _INSIDE.get():
        return None
    words = [int(seq.entropy), *(int(w) for w in seq.spawn_key)] if hasattr(
        seq, "spawn_key") else [repr(seq)]
    sig = hashlib.sha256(json.dumps([_describe(fn), words, total, chunk]).encode()
                         ).hexdigest()[:16]
    return scope[0].chunk_store(f"{_describe(fn).rsplit('.', 1)[-1]}:{sig}", n_chunks)


@contextlib.contextmanager
def inside_chunk() -> Iterator[None]:
    """Mark the code run in this block as part of one chunk (its own ``map_chunks`` calls are
    not saved separately)."""
    token = _INSIDE.set(True)
    try:
        yield
    finally:
        _INSIDE.reset(token)


class ExperimentCache(_WarnsOnce):
    """The completed cells of one reproduction, one file each in ``folder/<stem>-<key>/``.

    ``resume``: use saved cells (else recompute them, still saving). ``key`` identifies the run
    (experiment, settings, code: see :func:`run_key`); a cell's file name adds a digest of its
    own key.

    Inside a cell, chunks are saved as in ``check``: a cell being computed is a piece of a
    :class:`CheckState` kept in the run's ``chunks/`` subfolder (named by the cell's digest),
    and every ``map_chunks`` call made directly in the cell saves its finished chunks under it
    (:func:`chunk_scope`). An interrupted cell therefore resumes at its last saved chunk, with
    the result an uninterrupted run computes (a chunk's randomness is a function of the seed,
    the call and the chunk's index). When the cell completes, its chunks are dropped: the cell's
    own file holds its value.
    """

    def __init__(self, folder: Path, stem: str, key: str, *, resume: bool,
                 warn: Callable[[str], None] = _warn) -> None:
        self.root = Path(folder)
        self.folder = self.root / f"reproduce-{_slug(stem)}-{key[:20]}"
        self.key = key
        self.resume = resume
        self.write = True
        super().__init__(warn)
        self.hits = 0
        self.misses = 0
        #: the finished chunks of the cells in progress (``chunks/`` under :attr:`folder`),
        #: opened by the first cell computed here
        self._chunks: CheckState | None = None

    def _path(self, key_text: str) -> Path:
        digest = hashlib.sha256(f"{self.key}\0{key_text}".encode()).hexdigest()[:24]
        return self.folder / f"{digest}.json"

    @staticmethod
    def key_text(key: Any) -> str:
        """The canonical text of a cell key: strings, numbers and (nested) tuples of them."""
        def norm(k: Any) -> Any:
            if isinstance(k, tuple | list):
                return [norm(v) for v in k]
            if isinstance(k, np.generic):
                return norm(k.item())
            if isinstance(k, float):
                return {"float": repr(k)}
            if k is None or isinstance(k, bool | int | str):
                return k
            raise StateFormatError(f"a cell key must be made of strings and numbers, not "
                                   f"{type(k).__name__}")
        return json.dumps(norm(key), sort_keys=True)

    def get(self, key: Any, compute: Callable[[], Any]) -> Any:
        """The saved value of cell ``key`` when resuming and saved, else ``compute()`` (saved
        as soon as it returns)."""
        text = self.key_text(key)
        path = self._path(text)
        if self.resume and path.exists():
            try:
                doc = json.loads(path.read_text())
                if doc.get("format") != FORMAT or doc.get("cell") != text \
                        or doc.get("run") != self.key:
                    raise StateFormatError("written for another cell or run")
                value = decode(doc["value"])
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                self.warn_once("read", f"ignoring the unreadable saved cell {str(path)!r} "
                               f"({' '.join(str(exc).split())[:200]}); recomputing it")
            else:
                self.hits += 1
                return value
        value = self._compute(path.stem, compute)
        self.misses += 1
        if self.write:
            try:
                doc = {"format": FORMAT, "run": self.key, "cell": text, "value": encode(value)}
                _write_atomic(path, json.dumps(doc))
            except StateFormatError as exc:
                self.warn_once(f"encode:{text}", f"cell {text} holds {exc}, which the state "
                               "format cannot store: it is not saved")
            except OSError as exc:
                self.write = False
                self.warn_once("write", f"cannot save cells in {str(self.folder)!r} "
                               f"({exc.strerror or exc}); continuing without saving")
        return value

    def _compute(self, piece: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` with the chunks of its ``map_chunks`` calls saved under ``piece`` (the
        cell's digest), restored first when resuming; a cell computed inside another one saves
        under its own piece, and the outer cell's piece is current again afterwards."""
        if not self.write:
            return compute()
        if self._chunks is None:
            self._chunks = CheckState(self.folder / "chunks", "cells", self.key,
                                      resume=self.resume, prefix="chunks", warn=self._warn)
        state = self._chunks
        outer = state.current
        token = _CELL.set((state, piece, os.getpid()))
        try:
            with chunk_scope(state, piece=piece):
                value = compute()
        finally:
            _CELL.reset(token)
            state.current = outer
        state._drop_chunks(piece)
        if state.saved_work:
            state._flush()  # rewritten without the completed cell's chunks
        else:
            state.discard()
        return value

    @property
    def chunks_restored(self) -> int:
        """Chunks read back inside cells instead of being computed."""
        return 0 if self._chunks is None else self._chunks.chunks_restored

    def saved(self) -> tuple[int, int]:
        """``(cells, chunks)`` saved on disk for this run: completed cells, and finished chunks
        of cells in progress (``map_chunks`` chunks and the blocks saved through
        :func:`cell_progress`; read from the files, so a child process's work counts too)."""
        cells = len(list(self.folder.glob("*.json"))) if self.folder.is_dir() else 0
        chunks = 0
        for path in (self.folder / "chunks").glob("*.json"):
            try:
                doc = json.loads(path.read_text())
                if doc.get("key") == self.key:
                    chunks += sum(len(c) for c in doc.get("chunks", {}).values())
                    chunks += len(doc.get("partials", {}))
            except (OSError, ValueError, AttributeError, TypeError):
                continue
        return cells, chunks

    def discard(self) -> None:
        """Delete the saved cells (the reproduction completed) and the folders left empty."""
        # the cells' chunk state (this run's, or one an earlier interrupted run left), then the
        # cells
        for folder in (self.folder / "chunks", self.folder):
            if folder.is_dir():
                for path in [*folder.glob("*.json"), *folder.glob(".*.tmp")]:
                    with contextlib.suppress(OSError):
                        path.unlink()
                _remove_empty(folder, ours=True)
        _remove_empty(self.root)
