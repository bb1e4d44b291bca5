"""l03.superposition-readback and l03.concept-check: book numbers, tags, follow-through, shuffling, no leaks."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import numpy as np

from exercises import api
from exercises.checking import check_answer
from exercises.l03.concept_check import SHOWN_IDS
from exercises.l03.concept_items import ITEMS
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.verdict_support import seeded

READBACK = "l03.superposition-readback"
CONCEPT = "l03.concept-check"


def _cos(a: list[float], b: list[float]) -> float:
    """Cosine written out independently of the engine."""
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_readback_book_answer_typed_with_chinese_punctuation_scores_one() -> None:
    data = api.variant(READBACK, 0)["data"]
    assert data["probe"] == 1 and len(data["words"]) == 3
    answer = {"memory": "[-1，1，3，-1]", "readback": "-1、-1、3、-1", "cosine": "1/sqrt(2)", "nearest": "1"}
    result = api.grade(READBACK, 0, answer, "zh")
    assert result["status"] == "graded", result["errors"]
    assert result["score"] == 1.0, result["parts"]


def test_readback_no_unbinding_is_tagged_and_cosine_follows_through() -> None:
    exercise = get_exercise(READBACK)
    variant = generate_variant(exercise, 0)
    memory = [-1, 1, 3, -1]
    answer = {"memory": memory, "readback": memory, "cosine": _cos(memory, variant.data["words"][1]), "nearest": 1}
    result = check_answer(exercise, variant, answer, "en")
    assert result.parts["readback"].misconception == "no-unbinding"
    assert result.parts["cosine"].follow_through and result.parts["cosine"].score == 1.0
    assert result.parts["nearest"].correct


def test_readback_dot_product_for_cosine_is_tagged() -> None:
    result = api.grade(
        READBACK, 0, {"memory": "-1 1 3 -1", "readback": "-1 -1 3 -1", "cosine": "6", "nearest": "1"}, "en"
    )
    assert result["parts"]["cosine"]["misconception"] == "dot-for-cosine"
    assert result["score"] < 1.0


def test_readback_follows_the_students_memory() -> None:
    exercise = get_exercise(READBACK)
    variant = generate_variant(exercise, 0)
    key = variant.data["keys"][1]
    memory = [-1, 1, 3, 1]  # last entry wrong
    readback = [k * m for k, m in zip(key, memory)]
    cosines = [_cos(readback, word) for word in variant.data["words"]]
    answer = {
        "memory": memory,
        "readback": readback,
        "cosine": cosines[1],
        "nearest": max(range(3), key=cosines.__getitem__),
    }
    result = check_answer(exercise, variant, answer, "en")
    assert not result.parts["memory"].correct
    for name in ("readback", "cosine"):
        assert result.parts[name].follow_through and result.parts[name].score == 1.0


def test_readback_variants_are_small_and_sometimes_fail_to_find_the_probe() -> None:
    exercise = get_exercise(READBACK)
    found = Counter()
    for seed in range(1, 201):
        variant = seeded(exercise, seed)
        words, keys = np.asarray(variant.data["words"]), np.asarray(variant.data["keys"])
        assert words.shape == keys.shape and words.shape[0] <= 4 and words.shape[1] <= 4
        assert set(np.unique(keys)) <= {-1, 1}
        reference = exercise.solve(variant)
        memory = (words * keys).sum(axis=0)
        readback = keys[variant.data["probe"]] * memory
        cosines = sorted((_cos(readback.tolist(), w.tolist()) for w in words), reverse=True)
        assert cosines[0] - cosines[1] > 0.01
        assert np.allclose(reference["memory"], memory) and np.allclose(reference["readback"], readback)
        found[reference["nearest"] == variant.data["probe"]] += 1
    assert found[True] > 40 and found[False] > 20


def _letters(data: dict) -> list[str]:
    """The right letters found by matching the bank's right texts, independently of solve()."""
    right = {SHOWN_IDS[item.id]: item.right.en for item in ITEMS}
    return [next(o["id"] for o in shown["options"] if o["text"]["en"] == right[shown["id"]]) for shown in data["items"]]


def test_concept_book_variant_has_every_item_and_spread_answers() -> None:
    data = api.variant(CONCEPT, 0)["data"]
    assert [shown["id"] for shown in data["items"]] == [SHOWN_IDS[item.id] for item in ITEMS]
    letters = _letters(data)
    assert set(letters) == {"a", "b", "c", "d"}
    result = api.grade(CONCEPT, 0, {"choices": "、".join(letters).upper()}, "zh")
    assert result["score"] == 1.0, result["parts"]


def test_concept_items_are_bilingual_with_unique_kebab_tags() -> None:
    tags = [option.tag for item in ITEMS for option in item.wrong]
    assert 6 <= len(ITEMS) <= 8 and len(tags) == len(set(tags)) == 3 * len(ITEMS)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", tag) for tag in tags)
    assert "attention-from-transformer" in tags
    exercise = get_exercise(CONCEPT)
    assert {m.tag for m in exercise.misconceptions} == set(tags)
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for item in ITEMS:
        for text in (item.question, *(o.feedback for o in item.wrong)):
            assert cjk.search(text.zh) and text.en and not cjk.search(text.en)
        for text in (item.right, *(o.text for o in item.wrong)):
            assert (cjk.search(text.zh) or text.zh == text.en) and text.en and not cjk.search(text.en)


def _keys(value: object) -> set[str]:
    """Every object key anywhere inside a JSON value."""
    if isinstance(value, dict):
        return set(value) | set().union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def test_concept_variants_shuffle_items_and_options_and_hide_the_answer() -> None:
    positions, subsets = Counter(), set()
    for seed in range(1, 81):
        shown = api.variant(CONCEPT, seed, "en")
        data = shown["data"]
        assert all([o["id"] for o in item["options"]] == ["a", "b", "c", "d"] for item in data["items"])
        assert len({item["id"] for item in data["items"]}) == len(data["items"]) == 6
        subsets.add(tuple(item["id"] for item in data["items"]))
        positions.update(_letters(data))
        assert api.answer_key(CONCEPT, seed)["choices"] == _letters(data)
        assert _keys(data) == {"items", "id", "question", "options", "text", "zh", "en"}
        assert "true" not in json.dumps(data) and "false" not in json.dumps(data)
    assert len(subsets) > 40
    assert min(positions[letter] for letter in "abcd") > 60


def test_concept_tags_every_wrong_option_chosen() -> None:
    exercise = get_exercise(CONCEPT)
    variant = generate_variant(exercise, 0)
    items = variant.data["items"]
    choices = _letters(variant.data)
    origin_transformer = next(o["id"] for o in items[0]["options"] if "Transformer paper" in o["text"]["en"])
    bleu_reversal = next(o["id"] for o in items[1]["options"] if o["text"]["en"] == "30.6")
    student = [origin_transformer, bleu_reversal, *choices[2:]]
    part = check_answer(exercise, variant, {"choices": student}, "en").parts["choices"]
    assert part.tags == ("attention-from-transformer", "bleu-from-reversal")
    assert part.score == (len(items) - 2) / len(items)


def test_concept_misconception_is_none_when_its_item_is_absent() -> None:
    exercise = get_exercise(CONCEPT)
    shown_and_none = Counter()
    for seed in range(1, 40):
        variant = seeded(exercise, seed)
        present = {item["id"] for item in variant.data["items"]}
        for misconception in exercise.misconceptions:
            wrong = misconception.solve(variant)
            item_id = next(SHOWN_IDS[item.id] for item in ITEMS if any(o.tag == misconception.tag for o in item.wrong))
            assert (wrong is None) == (item_id not in present)
            shown_and_none[wrong is None] += 1
    assert shown_and_none[True] and shown_and_none[False]


def test_concept_check_letter_that_is_not_an_option_is_invalid_not_wrong() -> None:
    # Every item offers a-d; "e" is a slip to fix (no attempt used), not a wrong choice to grade.
    reading = api.validate(CONCEPT, {"choices": "b, d, e, a, c, a, b, d"}, "en")
    assert reading["status"] == "invalid"
    assert (
        reading["errors"][0]["field"] == "choices"
        and "'e' is not one of the options" in reading["errors"][0]["message"]
    )
    result = api.grade(CONCEPT, 0, {"choices": "b, d, e, a, c, a, b, d"}, "en")
    assert result["status"] == "invalid" and result["score"] is None
