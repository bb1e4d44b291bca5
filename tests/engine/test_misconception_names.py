"""Every misconception tag the engine can emit has a short bilingual name, and ``api.misconception_name`` finds it."""

from __future__ import annotations

import itertools
import re

import pytest

from exercises import api
from exercises.checking import check_answer
from exercises.l03.concept_items import WRONG_BY_TAG
from exercises.l03.concept_names import NAMES as CONCEPT_NAMES
from exercises.registry import EXERCISES, get_exercise
from tests.engine.verdict_support import variants

SEEDS = range(50)
CJK = re.compile(r"[\u4e00-\u9fff]")
MAX_EN_WORDS = 6
MAX_ZH_CHARACTERS = 10  # CJK characters; Latin words such as ReLU or BOS come on top

exercise_ids = [exercise.id for exercise in EXERCISES]


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_every_misconception_has_a_short_name_in_both_languages(exercise_id: str) -> None:
    for misconception in get_exercise(exercise_id).misconceptions:
        zh, en = misconception.name.zh, misconception.name.en
        assert zh.strip() and en.strip(), misconception.tag
        assert CJK.search(zh), (misconception.tag, zh)
        assert en.isascii() and not CJK.search(en), (misconception.tag, en)
        assert len(en.split()) <= MAX_EN_WORDS, (misconception.tag, en)
        assert len(CJK.findall(zh)) <= MAX_ZH_CHARACTERS, (misconception.tag, zh)
        # A name, not a second feedback text: no sentence punctuation.
        assert not re.search(r"[。；！？]|\.$", zh + en), (misconception.tag, zh, en)
        assert zh != misconception.tag and en != misconception.tag


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_names_are_unique_within_an_exercise(exercise_id: str) -> None:
    misconceptions = get_exercise(exercise_id).misconceptions
    tags = [m.tag for m in misconceptions]
    assert len(set(tags)) == len(tags)
    for lang in ("zh", "en"):
        names = [m.name.get(lang) for m in misconceptions]
        assert len(set(names)) == len(names), (lang, names)


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_misconception_name_returns_the_name_in_each_language(exercise_id: str) -> None:
    for misconception in get_exercise(exercise_id).misconceptions:
        assert api.misconception_name(exercise_id, misconception.tag, "zh") == misconception.name.zh
        assert api.misconception_name(exercise_id, misconception.tag, "en") == misconception.name.en
        # An unsupported language falls back to Chinese, like every other engine text.
        assert api.misconception_name(exercise_id, misconception.tag, "fr") == misconception.name.zh


def test_misconception_name_is_none_for_what_it_does_not_know() -> None:
    assert api.misconception_name("ch13.shift-pairs", "no-such-tag", "en") is None
    assert api.misconception_name("ch13.shift-pairs", "", "zh") is None
    assert api.misconception_name("no.such-exercise", "bos-scored", "en") is None
    # A tag is named per exercise: one exercise's tag means nothing on another.
    assert api.misconception_name("ch09.rnn-step", "bos-scored", "en") is None
    assert api.misconception_name("ch13.shift-pairs", "bos-scored", "en") == "Scored the BOS position"
    assert "misconception_name" in api.__all__


def test_every_concept_check_option_has_a_name() -> None:
    # The concept check's tags come from its item bank, not from Misconception declarations in the module.
    assert set(CONCEPT_NAMES) == set(WRONG_BY_TAG)
    for tag in WRONG_BY_TAG:
        assert api.misconception_name("l03.concept-check", tag, "en") == CONCEPT_NAMES[tag].en


def _tags_in(result: dict) -> set[str]:
    """Every tag on any part of a graded result (the ``misconception`` field and the ``tags`` list)."""
    tags: set[str] = set()
    for part in result["parts"].values():
        tags.update(part["tags"])
        if part["misconception"]:
            tags.add(part["misconception"])
    return tags


@pytest.mark.parametrize("exercise_id", exercise_ids)
def test_every_tag_a_graded_wrong_answer_carries_has_a_name(exercise_id: str) -> None:
    """Property: over many seeds, the answers of each misconception and of each pair of misconceptions together (so
    that an exercise's own ``tag_part`` sees mixed procedures too) carry only named tags, in both languages."""
    exercise = get_exercise(exercise_id)
    seen: set[str] = set()
    for variant in variants(exercise_id, len(SEEDS)):
        reference = exercise.solve(variant)
        wrongs = [wrong for wrong in (m.solve(variant) for m in exercise.misconceptions) if wrong is not None]
        answers = [*wrongs, *({**first, **second} for first, second in itertools.combinations(wrongs, 2))]
        for wrong in answers:
            for lang in ("zh", "en"):
                result = check_answer(exercise, variant, {**reference, **wrong}, lang).to_dict()
                if result["status"] != "graded":
                    continue
                for tag in _tags_in(result):
                    seen.add(tag)
                    assert api.misconception_name(exercise_id, tag, lang), (variant.seed, tag, lang)
    assert seen, "no seed produced a tagged part"
