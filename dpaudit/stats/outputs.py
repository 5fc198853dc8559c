"""How the sampled engine reads what a sampler returns: one fixed map per output.

A sampler returns ``size`` outputs. Each output is read on its own, by a map fixed in this
module before any sample exists (it looks at no other output, and at no selection or
measurement sample):

* an output that is a row of numbers (an int, float or bool array of any shape) is read as
  itself, **NaN, +inf and -inf included**: they are values of the output law like any other
  (atoms), not errors. A mechanism that returns NaN on one input and never on the other is
  told apart from its neighbour by the event "output is NaN";
* a **variable-length** output (a sampler returning a list of per-sample arrays or lists of
  different lengths, or an object array of such rows) is read as its values in row-major order;
  the event families then read it through the fixed summaries of :data:`ROW_FEATURES`
  (:func:`row_features`): its length, how many of its values are NaN, +inf and -inf, and the
  sum, smallest and largest of its finite values;
* anything else (strings, ``None``, objects without numbers) is not an output of a numeric law
  and stays a usage error (:class:`~dpaudit.validation.InvalidParameterError`, exit 2) whose
  message says what was returned.

A sample whose rows all have one shape is a plain ``numpy`` array, exactly the array
``numpy.asarray`` makes of the sampler's return value (the map is the identity there: every
report on finite fixed-shape outputs is what it was before non-finite and ragged outputs were
read). A sample with rows of several shapes is a :class:`Ragged` (the rows' values, flat, and
their lengths). Which container a chunk of draws comes in depends on its rows, but nothing
read from a row does: :func:`merge` of chunks gives the container of their rows taken together
(so the same draws give the same sample whatever the chunk boundaries), :func:`row_features`
computes every summary of a row by the same arithmetic in either container, and
:func:`fit_rows` gives, for an event chosen on a sample of rows of one shape, the rows of a
later chunk that have that shape (every other row lies outside the event). Each event of the
families is therefore one fixed function of one output, and the engine's counts are sums of
it over draws: the same for any chunking and any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.validation import InvalidParameterError

__all__ = ["ROW_FEATURES", "ROW_FEATURE_LABELS", "Ragged", "fit_rows", "merge", "read",
           "row_features"]

#: the summaries a variable-length output is read through (:func:`row_features`), in order
ROW_FEATURES = ("length", "NaN count", "+inf count", "-inf count", "sum", "min", "max")
#: how an event on each summary names it (``output`` in the inner event's description)
ROW_FEATURE_LABELS = {
    "length": "output length",
    "NaN count": "number of NaN values in the output",
    "+inf count": "number of +inf values in the output",
    "-inf count": "number of -inf values in the output",
    "sum": "sum of the output's finite values",
    "min": "smallest finite value of the output",
    "max": "largest finite value of the output",
}


@dataclass(frozen=True, eq=False)
class Ragged:
    """Outputs of several shapes: each row's values (row-major, as float64) concatenated in
    ``values``, and each row's number of values in ``lengths``."""

    values: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def offsets(self) -> np.ndarray:
        """Where each row starts in ``values``, and (last) where the last one ends."""
        return np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes + self.lengths.nbytes)

    def __getitem__(self, key: slice) -> Ragged:
        if not isinstance(key, slice):
            raise TypeError("a Ragged sample is sliced by a slice of rows")
        return self.take(np.arange(len(self))[key])

    def take(self, rows: np.ndarray) -> Ragged:
        """The rows with indices ``rows`` (or where a boolean mask is true), in that order."""
        idx = np.flatnonzero(rows) if np.asarray(rows).dtype == bool else \
            np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[idx]
        ends = np.cumsum(lengths)
        # each kept value's place: its row's start, plus its place within the row
        pos = np.repeat(self.offsets[idx], lengths) + np.arange(int(ends[-1]) if len(ends)
                                                                  else 0) \
            - np.repeat(ends - lengths, lengths)
        return Ragged(self.values[pos], lengths)

    @staticmethod
    def of_rows(rows: list[np.ndarray]) -> Ragged:
        flat = [np.asarray(r, dtype=np.float64).ravel() for r in rows]
        values = np.concatenate(flat) if flat else np.zeros(0)
        return Ragged(values, np.array([f.size for f in flat], dtype=np.int64))

    @staticmethod
    def of_array(out: np.ndarray) -> Ragged:
        """A plain sample as a :class:`Ragged` (the same rows)."""
        n = len(out)
        flat = np.asarray(out, dtype=np.float64).reshape(n, -1)
        return Ragged(flat.ravel(), np.full(n, flat.shape[1], dtype=np.int64))

    @staticmethod
    def concat(parts: list[Ragged]) -> Ragged:
        return Ragged(np.concatenate([p.values for p in parts]),
                      np.concatenate([p.lengths for p in parts]))


def _what(raw: Any) -> str:
    """A short account of a returned value, for an error message."""
    if raw is None:
        return "None"
    if isinstance(raw, str | bytes):
        return f"a string ({raw[:40]!r})"
    if isinstance(raw, np.ndarray):
        return f"an array of dtype {raw.dtype} and shape {raw.shape}"
    text = repr(raw)
    return f"a {type(raw).__name__} ({text[:60] + '...' if len(text) > 60 else text})"


def _numeric_row(row: Any, who: str, i: int) -> np.ndarray:
    if row is None or isinstance(row, str | bytes | dict):
        raise InvalidParameterError(
            f"{who} returned {_what(row)} as output {i}: an output must be numbers (a number, "
            "or an array or list of numbers)")
    try:
        out = np.asarray(row)
    except (TypeError, ValueError):
        out = np.asarray(row, dtype=object)
    if out.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{who} returned {_what(row)} as output {i}: an output must be numbers (a number, "
            "or an array or list of numbers)")
    return out


def read(raw: Any, size: int, who: str) -> np.ndarray | Ragged:
    """The ``size`` outputs in ``raw`` (what a sampler returned), read by the fixed map of the
    module docstring: ``numpy.asarray(raw)`` when that is a numeric array whose first axis has
    length ``size`` (NaN and infinities kept), else a list or object array of ``size`` numeric
    rows (a plain array when they all have one shape, a :class:`Ragged` otherwise)."""
    if raw is None or isinstance(raw, str | bytes | dict):
        raise InvalidParameterError(
            f"{who} must return an array whose first axis has length size={size} (numbers, "
            f"or one array or list of numbers per output); it returned {_what(raw)}")
    try:
        out = np.asarray(raw)
    except (TypeError, ValueError):  # rows of several lengths: numpy refuses to stack them
        out = None
    if out is not None and out.dtype.kind in "biuf":
        if out.ndim == 0 or out.shape[0] != size:
            raise InvalidParameterError(
                f"{who} must return an array whose first axis has length size={size}; got "
                f"shape {out.shape}")
        return out
    if out is not None and out.dtype.kind != "O":
        raise InvalidParameterError(
            f"{who} must return numbers or booleans; got dtype {out.dtype}: it returned "
            f"{_what(raw)}")
    if out is not None and out.ndim != 1:
        raise InvalidParameterError(
            f"{who} must return an array whose first axis has length size={size} (numbers, "
            f"or one array or list of numbers per output); it returned {_what(raw)}")
    try:
        rows = list(raw)
    except TypeError:
        raise InvalidParameterError(
            f"{who} must return an array whose first axis has length size={size}; it "
            f"returned {_what(raw)}") from None
    if len(rows) != size:
        raise InvalidParameterError(
            f"{who} must return an array whose first axis has length size={size}; got "
            f"{len(rows)} outputs")
    checked = [_numeric_row(r, who, i) for i, r in enumerate(rows)]
    if len({r.shape for r in checked}) <= 1:
        return np.stack(checked) if checked else np.zeros(0)
    return Ragged.of_rows(checked)


def merge(parts: list[np.ndarray | Ragged]) -> np.ndarray | Ragged:
    """Chunks of one sample, in order, as one: ``numpy.concatenate`` when they are plain
    arrays of one row shape (the identity's container), a :class:`Ragged` of all their rows
    otherwise. A function of the rows alone, not of where the chunks were cut."""
    if all(not isinstance(p, Ragged) for p in parts) and \
            len({tuple(p.shape[1:]) for p in parts}) <= 1:  # type: ignore[union-attr]
        return np.concatenate(parts)  # type: ignore[arg-type]
    return Ragged.concat([p if isinstance(p, Ragged) else Ragged.of_array(p) for p in parts])


def fit_rows(outputs: np.ndarray | Ragged, shape: tuple[int, ...]
             ) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows of ``outputs`` that have ``shape`` (a plain array of them) and where they are
    (``None``: all of them). A :class:`Ragged` row has ``shape`` when it holds as many values
    (it is read in row-major order)."""
    if not isinstance(outputs, Ragged):
        if tuple(outputs.shape[1:]) == tuple(shape):
            return outputs, None
        return np.zeros((0, *shape)), np.zeros(len(outputs), dtype=bool)
    width = int(np.prod(shape, dtype=np.int64))
    mask = outputs.lengths == width
    sub = outputs.take(mask)
    return sub.values.reshape((int(mask.sum()), *shape)), mask


def _flat(outputs: np.ndarray | Ragged) -> Ragged:
    return outputs if isinstance(outputs, Ragged) else Ragged.of_array(np.asarray(outputs))


def _per_row(values: np.ndarray, rows: Ragged, ufunc: np.ufunc, empty: float) -> np.ndarray:
    """``ufunc.reduce`` of each row's entries of ``values`` (``empty`` for a row of none), by
    one ``reduceat`` over the rows that have entries: the same arithmetic for every row, in
    whichever container it came."""
    out = np.full(len(rows), empty, dtype=values.dtype)
    full = rows.lengths > 0
    if values.size:
        out[full] = ufunc.reduceat(values, rows.offsets[:-1][full])
    return out


def row_features(outputs: np.ndarray | Ragged) -> dict[str, np.ndarray]:
    """The summaries of :data:`ROW_FEATURES` of every output: its length (number of values),
    its numbers of NaN, +inf and -inf values, and the sum, smallest and largest of its finite
    values (0, NaN and NaN for an output without finite values; NaN lies in no threshold
    event). A fixed function of each output, computed the same way for a plain and a
    :class:`Ragged` sample."""
    rows = _flat(outputs)
    v = rows.values
    finite = np.isfinite(v)
    return {
        "length": rows.lengths.astype(np.int64),
        "NaN count": _per_row(np.isnan(v).astype(np.int64), rows, np.add, 0),
        "+inf count": _per_row((v == np.inf).astype(np.int64), rows, np.add, 0),
        "-inf count": _per_row((v == -np.inf).astype(np.int64), rows, np.add, 0),
        "sum": _per_row(np.where(finite, v, 0.0), rows, np.add, 0.0),
        "min": _none_finite(_per_row(np.where(finite, v, np.inf), rows, np.minimum, np.nan),
                            finite, rows),
        "max": _none_finite(_per_row(np.where(finite, v, -np.inf), rows, np.maximum, np.nan),
                            finite, rows),
    }


def _none_finite(out: np.ndarray, finite: np.ndarray, rows: Ragged) -> np.ndarray:
    """NaN where a row has no finite value (its min/max would read +-inf)."""
    has = _per_row(finite.astype(np.int64), rows, np.add, 0) > 0
    return np.where(has, out, np.nan)
