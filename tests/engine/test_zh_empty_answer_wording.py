"""Chinese text never tells students to type null (or none): an empty answer reads back as 无 in Chinese, so the
prompts, hints and feedback ask for 无; English keeps null/none."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from exercises import api, messages
from exercises.ch13 import exposure_divergence
from exercises.i18n import Text
from exercises.plugin import Exercise
from exercises.readers import display
from exercises.registry import EXERCISES
from tests.engine.verdict_support import variants

SEED_COUNT = 40
LATIN_EMPTY = re.compile(r"\b(null|none|nil)\b", re.IGNORECASE)
EXPOSURE = exposure_divergence.ID


def _authored(exercise: Exercise) -> Iterator[tuple[str, Text]]:
    """Every bilingual text an exercise declares: title, labels, hints, rules, misconception feedback and names."""
    yield "title", exercise.title
    for f in exercise.fields:
        yield f"{f.name}.label", f.label
        yield f"{f.name}.hint", f.hint
        yield f"{f.name}.rule", f.rule
    for m in exercise.misconceptions:
        yield f"{m.tag}.feedback", m.feedback
        yield f"{m.tag}.name", m.name


def _graded_feedback(exercise: Exercise, seed: int) -> Iterator[str]:
    """The Chinese feedback and read-backs for the key and each misconception's answer on one seed."""
    variant = variants(exercise.id, SEED_COUNT)[seed]
    key = dict(exercise.solve(variant))
    answers = [key] + [{**key, **wrong} for m in exercise.misconceptions if (wrong := m.solve(variant)) is not None]
    for answer in answers:
        typed = {f.name: display(f.kind, answer[f.name], "zh") for f in exercise.fields}
        result = api.grade(exercise.id, seed, typed, "zh")
        for part in result["parts"].values():
            yield part["feedback"]
            yield part["read"]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_no_chinese_prompt_hint_or_feedback_says_null(exercise: Exercise) -> None:
    found = [(where, text.zh) for where, text in _authored(exercise) if LATIN_EMPTY.search(text.zh)]
    for seed in range(SEED_COUNT):
        prompt = exercise.prompt(variants(exercise.id, SEED_COUNT)[seed], "zh")
        found += [(f"prompt {seed}", prompt)] if LATIN_EMPTY.search(prompt) else []
        found += [(f"graded {seed}", text) for text in _graded_feedback(exercise, seed) if LATIN_EMPTY.search(text)]
    assert found == []


def test_no_chinese_engine_message_says_null() -> None:
    texts = [(name, value.zh) for name, value in vars(messages).items() if isinstance(value, Text)]
    assert texts and [(name, zh) for name, zh in texts if LATIN_EMPTY.search(zh)] == []


def test_the_exposure_divergence_asks_for_wu_in_chinese_and_null_in_english() -> None:
    variant = variants(EXPOSURE, 1)[0]
    zh, en = exposure_divergence.prompt(variant, "zh"), exposure_divergence.prompt(variant, "en")
    assert zh.count("填“无”") == 2 and "Write null" in en and "write none" in en
    hints = {f.name: f.hint for f in exposure_divergence.FIELDS}
    for name in ("first_input_divergence_step", "teacher_forced_input", "generated_input"):
        assert "填“无”" in hints[name].zh
    assert "null" in hints["first_input_divergence_step"].en and "none" in hints["generated_input"].en


@pytest.mark.parametrize(("lang", "step", "token"), [("zh", "无", "无"), ("en", "null", "none")])
def test_an_empty_answer_reads_back_as_the_prompt_asks_for_it(lang: str, step: str, token: str) -> None:
    """What the preview echoes is what the prompt told the student to type: 无 in Chinese, null/none in English."""
    for typed in ("无", "null", "none", "没有"):
        report = api.validate(
            EXPOSURE,
            {
                "first_wrong_step": "1",
                "first_input_divergence_step": typed,
                "teacher_forced_input": typed,
                "generated_input": typed,
            },
            lang,
        )
        assert report["status"] == "valid", report["errors"]
        assert report["interpreted"]["first_input_divergence_step"] == step
        assert report["interpreted"]["teacher_forced_input"] == report["interpreted"]["generated_input"] == token


def test_the_chinese_answer_key_of_an_eos_first_variant_says_wu() -> None:
    seed = next(
        v.seed
        for v in variants(EXPOSURE, SEED_COUNT)
        if exposure_divergence.solve(v)["first_input_divergence_step"] is None
    )
    key = api.answer_key_text(EXPOSURE, seed, "zh")
    assert key["first_input_divergence_step"] == key["teacher_forced_input"] == key["generated_input"] == "无"
    english = api.answer_key_text(EXPOSURE, seed, "en")
    assert (english["first_input_divergence_step"], english["teacher_forced_input"]) == ("null", "none")
    typed_back = api.grade(EXPOSURE, seed, key, "zh")
    assert typed_back["status"] == "graded" and typed_back["score"] == 1.0
