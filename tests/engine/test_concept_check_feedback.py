"""l03.concept-check: a wrong part's feedback names every wrong item by its number with its own explanation and says
which items are right; the misconception field is unchanged; the variant data carries no bank id or tag."""

from __future__ import annotations

import json

import numpy as np
import pytest

from exercises import api
from exercises.checking import check_answer
from exercises.l03.concept_check import SHOWN_IDS
from exercises.l03.concept_items import ITEMS, WRONG_BY_TAG
from exercises.l03.concept_names import NAMES
from exercises.registry import get_exercise
from exercises.variant_generation import generate_variant

CONCEPT = "l03.concept-check"
SEEDS = range(0, 60)
LANGS = ("zh", "en")
BANK_BY_QUESTION = {item.question.en: item for item in ITEMS}


def _letter(shown: dict, text_en: str) -> str:
    """The display letter of the option of ``shown`` whose English text is ``text_en`` (found independently)."""
    return next(option["id"] for option in shown["options"] if option["text"]["en"] == text_en)


def _answer(seed: int, wrong: dict[int, int]) -> tuple[list[str], list[str]]:
    """Letters for variant ``seed``, right except at the 0-based items in ``wrong`` (item -> wrong option 0..2),
    and the tags of those wrong options in item order."""
    items = api.variant(CONCEPT, seed, "en")["data"]["items"]
    letters, tags = [], []
    for index, shown in enumerate(items):
        bank = BANK_BY_QUESTION[shown["question"]["en"]]
        if index in wrong:
            option = bank.wrong[wrong[index]]
            letters.append(_letter(shown, option.text.en))
            tags.append(option.tag)
        else:
            letters.append(_letter(shown, bank.right.en))
    return letters, tags


def _expected_item_line(number: int, letter: str, tag: str, lang: str) -> str:
    """How the feedback names one wrong item: its number, the letter chosen, the misconception and its explanation."""
    feedback = WRONG_BY_TAG[tag][1].feedback.get(lang)
    name = NAMES[tag].get(lang)
    if lang == "zh":
        return f"第 {number} 题（你选了 {letter}；可能的误区：{name}）：{feedback}"
    return f"Item {number} (you chose {letter}; likely misconception: {name}): {feedback}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", SEEDS[1:])  # six items each (the book variant has all eight)
def test_items_two_and_four_wrong_are_named_one_by_one(seed: int, lang: str) -> None:
    letters, tags = _answer(seed, {1: seed % 3, 3: (seed + 1) % 3})
    part = api.grade(CONCEPT, seed, {"choices": ", ".join(letters)}, lang)["parts"]["choices"]
    lines = part["feedback"].split("\n")
    assert lines[0] == (
        "第 1、3、5、6 题对了；第 2、4 题还不对。"
        if lang == "zh"
        else "Items 1, 3, 5 and 6 are right; items 2 and 4 are not."
    )
    assert lines[1:] == [
        _expected_item_line(2, letters[1], tags[0], lang),
        _expected_item_line(4, letters[3], tags[1], lang),
    ]
    # The field keeps what it held: the first tag, all of them in tags, the score element by element.
    assert (part["misconception"], part["tags"], part["score"]) == (tags[0], tags, round(4 / 6, 6))
    assert not part["correct"] and not part["follow_through"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_any_wrong_items_get_one_line_each_in_item_order(seed: int, lang: str) -> None:
    rng = np.random.default_rng(seed)
    count = len(api.variant(CONCEPT, seed)["data"]["items"])
    chosen = sorted(int(i) for i in rng.choice(count, size=int(rng.integers(1, count + 1)), replace=False))
    wrong = {index: int(rng.integers(0, 3)) for index in chosen}
    letters, tags = _answer(seed, wrong)
    part = api.grade(CONCEPT, seed, {"choices": letters}, lang)["parts"]["choices"]
    lines = part["feedback"].split("\n")
    assert lines[1:] == [_expected_item_line(index + 1, letters[index], tag, lang) for index, tag in zip(chosen, tags)]
    right = [str(n) for n in range(1, count + 1) if n - 1 not in wrong]
    if not right:
        assert lines[0] == (f"这 {count} 题都还不对。" if lang == "zh" else f"None of the {count} items is right yet.")
    elif lang == "zh":
        assert lines[0].startswith(f"第 {'、'.join(right)} 题对了；")
    else:
        assert lines[0].startswith("Item " if len(right) == 1 else "Items ")
        assert all(f" {n}" in lines[0].split(";")[0] for n in right)
    assert part["misconception"] == tags[0] and part["tags"] == tags
    assert part["score"] == round((count - len(wrong)) / count, 6)


@pytest.mark.parametrize("lang", LANGS)
def test_one_right_and_one_wrong_read_in_the_singular(lang: str) -> None:
    exercise = get_exercise(CONCEPT)
    variant = generate_variant(exercise, 0)
    letters, _tags = _answer(0, {index: 0 for index in range(1, 8)})
    feedback = check_answer(exercise, variant, {"choices": letters}, lang).parts["choices"].feedback
    assert feedback.split("\n")[0] == (
        "第 1 题对了；第 2、3、4、5、6、7、8 题还不对。"
        if lang == "zh"
        else "Item 1 is right; items 2, 3, 4, 5, 6, 7 and 8 are not."
    )
    letters, _tags = _answer(0, {4: 2})
    feedback = check_answer(exercise, variant, {"choices": letters}, lang).parts["choices"].feedback
    assert feedback.split("\n")[0] == (
        "第 1、2、3、4、6、7、8 题对了；第 5 题还不对。"
        if lang == "zh"
        else "Items 1, 2, 3, 4, 6, 7 and 8 are right; item 5 is not."
    )


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_right_answer_keeps_the_shared_praise(seed: int, lang: str) -> None:
    letters, _ = _answer(seed, {})
    part = api.grade(CONCEPT, seed, {"choices": letters}, lang)["parts"]["choices"]
    assert part["correct"] and part["feedback"].startswith("正确。" if lang == "zh" else "Correct.")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_variant_shows_no_bank_id_or_tag(seed: int, lang: str) -> None:
    shown = api.variant(CONCEPT, seed, lang)
    text = json.dumps(shown["data"], ensure_ascii=False) + shown["prompt"]
    for item in ITEMS:
        assert item.id not in text, (seed, item.id)
        assert not any(option.tag in text for option in item.wrong), (seed, item.id)
    # The data's ids are the items' places in the bank: enough for the engine, nothing for the student.
    assert {item["id"] for item in shown["data"]["items"]} <= set(SHOWN_IDS.values())
    assert all(
        BANK_BY_QUESTION[item["question"]["en"]].id == next(k for k, v in SHOWN_IDS.items() if v == item["id"])
        for item in shown["data"]["items"]
    )


@pytest.mark.parametrize("lang", LANGS)
def test_the_answer_qa_reported(lang: str) -> None:
    # Seed 246 with "c, b, a, a, b, b": items 2 and 4 wrong (ChatGPT for attention, the bottleneck "refuted").
    assert [
        i + 1 for i, (key, typed) in enumerate(zip(api.answer_key(CONCEPT, 246)["choices"], "cbaabb")) if key != typed
    ] == [2, 4]
    part = api.grade(CONCEPT, 246, {"choices": "c, b, a, a, b, b"}, lang)["parts"]["choices"]
    lines = part["feedback"].split("\n")
    assert lines[1:] == [
        _expected_item_line(2, "b", "attention-from-chatgpt", lang),
        _expected_item_line(4, "a", "bottleneck-refuted", lang),
    ]
    assert part["misconception"] == "attention-from-chatgpt"
    assert part["tags"] == ["attention-from-chatgpt", "bottleneck-refuted"]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_wrong_option_of_every_item_is_named(seed: int) -> None:
    """Issue 20's "a wrong step named" holds by construction here: each distractor is a misconception's answer, so
    no wrong choice is left to a generic search (or unnamed)."""
    count = len(api.variant(CONCEPT, seed)["data"]["items"])
    for index in range(count):
        for option in range(3):
            letters, tags = _answer(seed, {index: option})
            part = api.grade(CONCEPT, seed, {"choices": letters}, "en")["parts"]["choices"]
            assert part["misconception"] == tags[0] and part["tags"] == tags
