"""Named steps of a solve: an exercise's chain calls these, and a run with ``wrong`` steps does those steps wrong.

Each primitive offers the operator-level mistakes that change its value on these inputs (transposing a square
symmetric matrix changes nothing, so it is not offered), runs the one asked for, and records the step's label,
number and value, which the search words its diagnoses with and the worked solution shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exercises.i18n import Text

Thunk = Callable[[], Any]
# A step's mistakes (or their words) as a mapping, or a function giving it: worked out only when the step is done
# wrong or the run records its steps (the search runs a chain hundreds of times per variant, recording once).
Offered = Mapping[str, Thunk] | Callable[[], Mapping[str, Thunk]]
Words = Mapping[str, Text] | Callable[[], Mapping[str, Text]]
NO_WORDS: Mapping[str, Text] = {}
NO_OTHERS: Mapping[str, tuple[float, Text]] = {}


@dataclass(frozen=True)
class StepInfo:
    """One step as the chain ran it: its label, its place in the chain, the mistakes it offers, their words."""

    name: str
    label: Text
    number: int
    mistakes: tuple[str, ...]
    words: Mapping[str, Text] = field(default_factory=dict)


def _const(value: Any) -> Thunk:
    """A thunk giving ``value`` (worked out already: the inputs of a step are at hand)."""
    return functools.partial(_identity, value)


def _identity(value: Any) -> Any:
    """``value`` itself."""
    return value


def _array(value: Any) -> np.ndarray:
    """``value`` as a float array."""
    return np.asarray(value, dtype=float)


def _asymmetric(matrix: np.ndarray) -> bool:
    """Whether transposing ``matrix`` changes it (a 2-d array that is not symmetric)."""
    return matrix.ndim == 2 and (matrix.shape[0] != matrix.shape[1] or not _same(matrix, matrix.T))


def _same(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two arrays are equal to well within any check's tolerance (cheaper than ``np.allclose``)."""
    return first.shape == second.shape and bool((np.abs(first - second) < 1e-9).all())


def _softmax(values: np.ndarray, axis: int | None) -> np.ndarray:
    """The softmax along ``axis`` (None: over every entry at once), shifted so that it never overflows."""
    shifted = np.exp(values - values.max(axis=axis, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=axis, keepdims=True))


def _hardmax(values: np.ndarray, axis: int) -> np.ndarray:
    """One-hot rows: 1 at the largest entry along ``axis``, 0 elsewhere."""
    hard = np.zeros_like(values)
    np.put_along_axis(hard, np.expand_dims(values.argmax(axis=axis), axis), 1.0, axis)
    return hard


def _without(terms: Sequence[np.ndarray], index: int, shape: tuple[int, ...]) -> np.ndarray:
    """The sum of ``terms`` but the one at ``index``, broadcast back to the whole sum's ``shape``: W s + U h_j
    without U h_j still gives one row per state."""
    rest = [term for at, term in enumerate(terms) if at != index]
    return np.broadcast_to(sum(rest[1:], rest[0]), shape).copy()


def _minus_twice(whole: np.ndarray, term: np.ndarray) -> np.ndarray:
    """``whole`` with ``term`` subtracted instead of added."""
    return np.asarray(whole - 2 * term)


ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "clip": lambda x: np.clip(x, -1.0, 1.0),
    "abs": np.abs,
}


class Steps:
    """A run of a solve chain; the steps named in ``wrong`` (step -> mistake) are done wrong that way.

    With ``record`` (the default) the run keeps each step's ``info`` (label, number, the mistakes it offers) and
    ``values``; without, it only works out the answer, and a step's mistakes only where it is done wrong: the same
    answer, for less (and the ``info`` of the ``noted`` steps alone, as a recording run gives it).
    """

    def __init__(
        self, wrong: Mapping[str, str] | None = None, record: bool = True, noted: Collection[str] = ()
    ) -> None:
        self.wrong = dict(wrong or {})
        self.record = record
        self.noted = frozenset(noted)
        self.info: dict[str, StepInfo] = {}
        self.values: dict[str, Any] = {}
        self._numbers: dict[str, int] = {}  # each step's number (its place in the chain), for the noted ones

    def _step(self, name: str, label: Text, right: Thunk, options: Offered, words: Words = NO_WORDS) -> Any:
        """Record step ``name`` and return its value: the mistake asked for where it applies, else ``right()``."""
        mistake = self.wrong.get(name, "")
        if not self.record:
            number = self._numbers.setdefault(name, len(self._numbers) + 1) if self.noted else 0
            if name in self.noted:
                offered = options() if callable(options) else options
                said = words() if callable(words) else words
                self.info[name] = StepInfo(name, label, number, tuple(offered), dict(said))
                return offered[mistake]() if mistake in offered else right()
            if not mistake:
                return right()
            offered = options() if callable(options) else options
            return offered[mistake]() if mistake in offered else right()
        offered = options() if callable(options) else options
        # A step run again (once per read of an encoder) keeps its number: the same mistake is made at every read.
        number = self.info[name].number if name in self.info else len(self.info) + 1
        said = words() if callable(words) else words
        self.info[name] = StepInfo(name, label, number, tuple(offered), dict(said))
        value = offered[mistake]() if mistake in offered else right()
        self.values[name] = value
        return value

    def operand(self, name: str, label: Text, value: Any, others: Mapping[str, tuple[Any, Text]]) -> Any:
        """A quantity read from the data, where a student may take another of the same shape (``others``: id ->
        (value, name)); mistake ``use:<id>``."""
        own = _array(value)

        def options() -> dict[str, Thunk]:
            return {
                f"use:{key}": _const(_array(other))
                for key, (other, _) in others.items()
                if not _same(_array(other), own)
            }

        def words() -> dict[str, Text]:
            return {"operand": label} | {f"use:{key}": word for key, (_, word) in others.items()}

        return self._step(name, label, lambda: own, options, words)

    def product(self, name: str, label: Text, left: Any, right: Any, left_word: Text, right_word: Text) -> Any:
        """``left @ right``; mistakes: either factor transposed, the factors in the other order, entry-wise."""
        a, b = _array(left), _array(right)

        def options() -> dict[str, Thunk]:
            offered: dict[str, Thunk] = {}
            if _asymmetric(a) and b.ndim and a.shape[0] == b.shape[0]:
                offered["transpose-left"] = lambda: a.T @ b
            if _asymmetric(b) and a.ndim and a.shape[-1] == b.shape[-1]:
                offered["transpose-right"] = lambda: a @ b.T
            if a.ndim == 2 and b.ndim == 2 and a.shape == b.shape == a.shape[::-1]:
                offered["swap-order"] = lambda: b @ a
            if a.shape == b.shape and a.ndim == 2:
                offered["entrywise"] = lambda: a * b
            return offered

        return self._step(name, label, lambda: a @ b, options, {"left": left_word, "right": right_word})

    def total(self, name: str, label: Text, terms: Sequence[Any], words: Sequence[Text]) -> Any:
        """The sum of ``terms``; mistakes: term i left out (``drop:i``), subtracted (``subtract:i``) or counted twice
        (``double:i``)."""
        arrays = [_array(term) for term in terms]
        whole = np.asarray(sum(arrays[1:], arrays[0]))
        right = _const(whole)

        def options() -> dict[str, Thunk]:
            # Each mistake is worked out only when asked for (a run does at most one per step).
            offered: dict[str, Thunk] = {}
            for index, term in enumerate(arrays):
                if not term.any():
                    continue
                offered[f"drop:{index}"] = functools.partial(_without, arrays, index, whole.shape)
                offered[f"subtract:{index}"] = functools.partial(_minus_twice, whole, term)
                offered[f"double:{index}"] = functools.partial(np.add, whole, term)
            return offered

        return self._step(name, label, right, options, lambda: {f"term:{i}": word for i, word in enumerate(words)})

    def scale(
        self,
        name: str,
        label: Text,
        value: Any,
        divisor: float,
        divisor_word: Text,
        others: Mapping[str, tuple[float, Text]] = NO_OTHERS,
    ) -> Any:
        """``value / divisor``; mistakes: not divided, multiplied instead, divided by another quantity."""
        x = _array(value)

        def options() -> dict[str, Thunk]:
            offered: dict[str, Thunk] = {"skip": lambda: x, "multiply": lambda: x * divisor}
            return offered | {
                f"by:{key}": _const(x / other) for key, (other, _) in others.items() if other not in (0.0, divisor)
            }

        def words() -> dict[str, Text]:
            return {"divisor": divisor_word} | {f"by:{key}": word for key, (_, word) in others.items()}

        return self._step(name, label, lambda: x / divisor, options, words)

    def softmax(self, name: str, label: Text, value: Any, axis: int = -1) -> Any:
        """The softmax along ``axis``; mistakes: skipped, along the other axis, over all entries, a hard argmax,
        plain normalisation without the exponential."""
        x = _array(value)

        def options() -> dict[str, Thunk]:
            offered: dict[str, Thunk] = {"skip": lambda: x, "hardmax": lambda: _hardmax(x, axis)}
            if x.ndim == 2:
                offered["other-axis"] = lambda: _softmax(x, 0 if axis in (1, -1) else 1)
                offered["all-entries"] = lambda: _softmax(x, None)
            sums = x.sum(axis=axis, keepdims=True)
            if (np.abs(sums) > 1e-9).all():
                offered["no-exp"] = lambda: x / sums
            return offered

        return self._step(name, label, lambda: _softmax(x, axis), options)

    def activation(self, name: str, label: Text, value: Any, function: str = "tanh") -> Any:
        """``function`` entry by entry; mistakes: skipped, or another squashing function."""
        x = _array(value)

        def options() -> dict[str, Thunk]:
            offered: dict[str, Thunk] = {"skip": lambda: x}
            return offered | {key: functools.partial(apply, x) for key, apply in ACTIVATIONS.items() if key != function}

        return self._step(name, label, lambda: ACTIVATIONS[function](x), options)

    def mean(
        self,
        name: str,
        label: Text,
        values: Sequence[float],
        divisor: float | None = None,
        others: Mapping[str, tuple[float, Text]] = NO_OTHERS,
    ) -> Any:
        """The sum of ``values`` over ``divisor`` (default their count); mistakes: the sum, one more or one fewer
        in the divisor, another divisor, the product."""
        total, count = float(np.sum(values)), float(len(values) if divisor is None else divisor)

        def options() -> dict[str, Thunk]:
            offered: dict[str, Thunk] = {"sum": lambda: total, "divisor-plus-one": lambda: total / (count + 1)}
            if count > 1:
                offered["divisor-minus-one"] = lambda: total / (count - 1)
            return offered | {
                f"by:{key}": _const(total / other) for key, (other, _) in others.items() if other not in (0.0, count)
            }

        return self._step(
            name,
            label,
            lambda: total / count,
            options,
            lambda: {f"by:{key}": word for key, (_, word) in others.items()},
        )

    def log(self, name: str, label: Text, value: float) -> Any:
        """−ln ``value``; mistakes: base 2, base 10, the sign kept, the probability itself."""
        options: dict[str, Thunk] = {
            "log2": lambda: -float(np.log2(value)),
            "log10": lambda: -float(np.log10(value)),
            "no-negate": lambda: float(np.log(value)),
            "skip": lambda: float(value),
        }
        return self._step(name, label, lambda: -float(np.log(value)), options)

    def index(self, name: str, label: Text, value: int, low: int | None = None, high: int | None = None) -> Any:
        """A position or count; mistakes: one more, one fewer (where still in [low, high])."""
        options: dict[str, Thunk] = {}
        if high is None or value + 1 <= high:
            options["plus-one"] = lambda: value + 1
        if low is None or value - 1 >= low:
            options["minus-one"] = lambda: value - 1
        return self._step(name, label, lambda: value, options)

    def order(self, name: str, label: Text, items: Sequence[Any]) -> Any:
        """A sequence in its order; mistake: reversed."""
        kept = list(items)
        return self._step(
            name, label, lambda: kept, lambda: {"reversed": lambda: kept[::-1]} if kept != kept[::-1] else {}
        )

    def custom(self, name: str, label: Text, right: Thunk, options: Offered, words: Words = NO_WORDS) -> Any:
        """A step of the exercise's own kind, with mistakes it words itself (``words`` per mistake id)."""
        return self._step(name, label, right, options, words)


def as_list(value: Any) -> Any:
    """A step's value in the readers' form: nested lists of floats (rounded past any check's resolution)."""
    array = _array(value)
    if array.ndim == 0:
        return round(float(array), 12)
    return array.round(12).tolist()  # np.round without its wrapper (the search calls this for every run)
