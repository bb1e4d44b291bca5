"""Worked solutions from the same named steps the diagnosis uses, and the first step where an answer leaves them."""

from __future__ import annotations

from typing import Any

import numpy as np

from exercises.base import Answer, Variant
from exercises.comparators import equal
from exercises.diagnosis.mistakes import describe, step_words
from exercises.diagnosis.search import Stepped, parse_tag, run
from exercises.diagnosis.steps import StepInfo
from exercises.i18n import Text

DECIMALS = 4


YES_NO = {True: Text("是", "yes"), False: Text("否", "no")}
NONE = Text("无", "none")


def shown(value: Any, lang: str) -> str:
    """A step's value as the worked solution writes it in ``lang``: numbers to 4 decimals, lists in brackets, pairs
    of words as ``a→b``, yes/no and none in words."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(item, str) for item in value):
        return f"{value[0]}→{value[1]}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown(item, lang) for item in value) + "]"
    if isinstance(value, (bool, np.bool_)):
        return YES_NO[bool(value)].get(lang)
    if value is None:
        return NONE.get(lang)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = f"{float(value):.{DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def worked_solution(exercise: Stepped, variant: Variant, lang: str) -> list[dict[str, Any]]:
    """This variant's solution step by step: number, name, label in ``lang`` and the value written out."""
    if exercise.steps is None:
        return []
    _, record = run(exercise.steps, variant)
    return [
        {
            "number": info.number,
            "step": info.name,
            "label": info.label.get(lang),
            "value": shown(record.values[name], lang),
        }
        for name, info in sorted(record.info.items(), key=lambda item: item[1].number)
    ]


def _producing_step(exercise: Stepped, variant: Variant, field: str) -> StepInfo | None:
    """The last step whose value is the key's answer to ``field`` (the step that writes that part down)."""
    assert exercise.steps is not None
    key, record = run(exercise.steps, variant)
    answer_field = next(f for f in exercise.fields if f.name == field)
    found = None
    for name, info in sorted(record.info.items(), key=lambda item: item[1].number):
        value = record.values[name]
        plain = value.tolist() if isinstance(value, np.ndarray) else value
        try:
            if equal(answer_field.kind, plain, key[field], answer_field.tolerance):
                found = info
        except (TypeError, ValueError):
            continue  # a step of another kind (a token where the part is a number) cannot be this part
    return found


def first_departure(
    exercise: Stepped, variant: Variant, answer: Answer, tags: dict[str, tuple[str, ...]], lang: str
) -> dict[str, Any] | None:
    """The first step where the student's answer leaves the solution, or None for a right answer.

    ``tags`` are the graded parts' tags: a generated diagnosis on the first wrong part names its own earliest
    mistaken step (and the mistake); otherwise the step that writes the first wrong part down is where the numbers
    first differ.
    """
    if exercise.steps is None:
        return None
    key, _ = run(exercise.steps, variant)
    wrong = [
        f for f in exercise.fields if f.name in answer and not equal(f.kind, answer[f.name], key[f.name], f.tolerance)
    ]
    if not wrong:
        return None
    first = wrong[0]
    for tag in tags.get(first.name, ()):
        perturbation = parse_tag(tag)
        if perturbation:
            info = run(exercise.steps, variant, perturbation)[1].info
            step, mistake = min(perturbation, key=lambda pair: info[pair[0]].number)
            return _said(info[step], first.name, describe(info[step], mistake), lang)
    producing = _producing_step(exercise, variant, first.name)
    return None if producing is None else _said(producing, first.name, None, lang)


def _said(info: StepInfo, field: str, mistake: Text | None, lang: str) -> dict[str, Any]:
    """The departure as JSON: the step, the part it shows in, and the mistake where one is known."""
    return {
        "number": info.number,
        "step": info.name,
        "label": info.label.get(lang),
        "field": field,
        "where": step_words(info).get(lang),
        "mistake": None if mistake is None else mistake.get(lang),
    }
