"""The generic search: every single mistake and every pair on two different steps of an exercise's chain, run on one
variant, kept where the answer differs from the key and from every simpler candidate, as a generated diagnosis.

Generated diagnoses are ``Misconception``s with ``draws_variants=False`` and a stable tag ``gen:<step>:<mistake>``
(a pair joins two with ``+``), so the checker names them like any hand-written one (only where no hand-written solver
names the part, and only where the student's other parts do not rule them out) and the teacher's histogram groups
them by step and mistake. The table is built once per variant, on the first wrong part that needs it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
from collections.abc import Callable, Collection
from typing import Protocol

from exercises.base import Answer, AnswerField, Data, Misconception, Variant, book_variant
from exercises.diagnosis.answers import changed_parts, fingerprint, finite, like_rounding
from exercises.diagnosis.mistakes import describe, sentence
from exercises.diagnosis.steps import StepInfo, Steps
from exercises.i18n import Text

Chain = Callable[[Variant, Steps], Answer]
Perturbation = tuple[tuple[str, str], ...]
TAG_PREFIX = "gen:"
UNWORDED = Text("", "")
TABLE_CACHE_SIZE = 256
WORDED_CACHE_SIZE = 1024


class Stepped(Protocol):
    """What the search needs of an exercise: its id, fields, a chain of named steps and its book variant."""

    @property
    def id(self) -> str: ...

    @property
    def fields(self) -> tuple[AnswerField, ...]: ...

    @property
    def steps(self) -> Chain | None: ...

    @property
    def book_data(self) -> Callable[[], Data]: ...


def run(
    chain: Chain, variant: Variant, wrong: Perturbation = (), record: bool = True, noted: Collection[str] = ()
) -> tuple[Answer, Steps]:
    """The chain's answer on ``variant`` with the ``wrong`` steps done wrong, and the run (its steps' record where
    ``record``; without, the same answer for less, and the record of the ``noted`` steps only)."""
    steps = Steps(dict(wrong), record, noted)
    return chain(variant, steps), steps


def tag(perturbation: Perturbation) -> str:
    """The stable tag of a perturbation: ``gen:softmax:other-axis`` or ``gen:a:x+b:y``."""
    return TAG_PREFIX + "+".join(f"{step}:{mistake}" for step, mistake in perturbation)


def parse_tag(text: str) -> Perturbation | None:
    """The perturbation a generated tag names, or None for any other tag."""
    if not text.startswith(TAG_PREFIX):
        return None
    parts = [part.partition(":") for part in text[len(TAG_PREFIX) :].split("+")]
    if not all(step and mistake for step, _, mistake in parts):
        return None
    return tuple((step, mistake) for step, _, mistake in parts)


def _wording(info: dict[str, StepInfo], perturbation: Perturbation) -> Text:
    """The diagnosis sentence: each mistake named with its step."""
    return sentence([describe(info[step], mistake) for step, mistake in perturbation])


def _candidates(info: dict[str, StepInfo], pairs: bool) -> list[Perturbation]:
    """Every single mistake in chain order, or (``pairs``) every pair of mistakes on two different steps."""
    singles: list[Perturbation] = [((step.name, mistake),) for step in info.values() for mistake in step.mistakes]
    if not pairs:
        return singles
    return [first + second for first, second in itertools.combinations(singles, 2) if first[0][0] != second[0][0]]


def _perturbed(
    chain: Chain,
    fields: tuple[AnswerField, ...],
    perturbation: Perturbation,
    built: tuple[str, Answer],
    variant: Variant,
) -> Answer | None:
    """A generated solver: the parts this perturbation changes on ``variant`` (None where it changes none); the key
    is the one worked out when the table was built (``built``: the variant's cache key and key) on that variant."""
    key = built[1] if _variant_key(variant) == built[0] else run(chain, variant, record=False)[0]
    answer, _ = run(chain, variant, perturbation, record=False)
    return changed_parts(fields, answer, key) or None


def _variant_key(variant: Variant) -> str:
    """What a table is cached by: everything a variant holds, as text."""
    return json.dumps(
        [variant.exercise_id, variant.seed, variant.subseed, variant.engine_version, variant.data], sort_keys=True
    )


Table = tuple[tuple[Misconception, Answer], ...]
_TABLES: dict[tuple[str, bool], tuple[Table, frozenset[str]]] = {}


def generated(exercise: Stepped, variant: Variant, pairs: bool = False) -> Table:
    """The generated diagnoses that apply on ``variant``, each with the parts it changes: single mistakes, or
    (``pairs``) pairs of mistakes whose answer no single one gives. Built on first use and cached per variant, the
    pairs only when asked: most wrong answers a single mistake explains, and the pairs cost ten times as much."""
    if exercise.steps is None:
        return ()
    return _table(exercise, variant, _variant_key(variant), pairs)[0]


def _table(exercise: Stepped, variant: Variant, key: str, pairs: bool) -> tuple[Table, frozenset[str]]:
    """The table (and the fingerprints of its answers, with those of the simpler tier) from the cache or built."""
    found = _TABLES.get((key, pairs))
    if found is None:
        simpler = _table(exercise, variant, key, False)[1] if pairs else frozenset()
        found = _build(exercise, variant, key, pairs, simpler)
        if len(_TABLES) >= TABLE_CACHE_SIZE:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[(key, pairs)] = found
    return found


def _build(
    exercise: Stepped, variant: Variant, variant_key: str, pairs: bool, simpler: frozenset[str]
) -> tuple[Table, frozenset[str]]:
    """Run every candidate of the tier; keep one per distinct changed answer that no simpler candidate gives."""
    assert exercise.steps is not None
    chain = exercise.steps
    key, record = run(chain, variant)
    seen = set(simpler)
    table: list[tuple[Misconception, Answer]] = []
    for perturbation in _candidates(record.info, pairs):
        try:
            answer, _ = run(chain, variant, perturbation, record=False)
        except (ValueError, IndexError):
            continue  # the mistakes leave factors whose shapes do not multiply: no answer a student could write
        changed = changed_parts(exercise.fields, answer, key)
        if not changed or not finite(list(changed.values())):
            continue
        text = fingerprint(changed)
        # An answer already kept is skipped either way; asking it first spares the rounding test on most pairs.
        if text in seen or like_rounding(exercise.fields, changed, key):
            continue
        seen.add(text)
        misconception = Misconception(
            tag(perturbation),
            functools.partial(_perturbed, chain, exercise.fields, perturbation, (variant_key, key)),
            UNWORDED,  # worded only for the diagnosis a part names (``worded``): the table holds hundreds
            name=UNWORDED,
            draws_variants=False,
        )
        table.append((misconception, changed))
    return tuple(table), frozenset(seen)


_WORDED: dict[int, tuple[Misconception, Misconception]] = {}


def worded(exercise: Stepped, variant: Variant, misconception: Misconception) -> Misconception:
    """A generated diagnosis with its sentence and short name, worded from the steps of its own run (kept per
    entry of a cached table: every student making that mistake on the variant gets the same words)."""
    found = _WORDED.get(id(misconception))
    if found is not None and found[0] is misconception:
        return found[1]
    perturbation = parse_tag(misconception.tag)
    if perturbation is None or exercise.steps is None:
        return misconception
    info = run(exercise.steps, variant, perturbation, False, {step for step, _ in perturbation})[1].info
    said = dataclasses.replace(misconception, feedback=_wording(info, perturbation), name=_name(info, perturbation))
    if len(_WORDED) >= WORDED_CACHE_SIZE:
        _WORDED.pop(next(iter(_WORDED)))
    _WORDED[id(misconception)] = (misconception, said)
    return said


def _name(info: dict[str, StepInfo], perturbation: Perturbation) -> Text:
    """A short label for the histogram: the sentence without its full stop."""
    said = _wording(info, perturbation)
    return Text(said.zh.removeprefix("你").rstrip("。"), said.en.rstrip("."))


def generated_name(exercise: Stepped, text: str) -> Text | None:
    """The short name of a generated tag on ``exercise`` (worded from its book variant's steps), or None."""
    perturbation = parse_tag(text)
    if perturbation is None or exercise.steps is None:
        return None
    info = _book_steps(exercise)
    if not all(step in info for step, _ in perturbation):
        return None
    return _name(info, perturbation)


_BOOK_STEPS: dict[str, dict[str, StepInfo]] = {}


def _book_steps(exercise: Stepped) -> dict[str, StepInfo]:
    """The steps of an exercise's book variant, for naming tags (kept per exercise)."""
    if exercise.id not in _BOOK_STEPS:
        assert exercise.steps is not None
        _BOOK_STEPS[exercise.id] = run(exercise.steps, book_variant(exercise.id, exercise.book_data()))[1].info
    return _BOOK_STEPS[exercise.id]
