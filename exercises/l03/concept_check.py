"""l03.concept-check: multiple-choice items on the bottleneck lesson, items and options shuffled per seed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from exercises.base import Answer, AnswerField, Data, GradeResult, Misconception, Variant
from exercises.i18n import Text
from exercises.l03.concept_items import ITEMS, WRONG_BY_TAG, ConceptItem, WrongOption
from exercises.l03.concept_names import NAMES
from exercises.plugin import Exercise
from exercises.said import literal

ID = "l03.concept-check"
TITLE = Text("概念自测：定长向量与注意力的由来", "Concept check: the fixed vector and where attention came from")
OPTION_IDS = ("a", "b", "c", "d")
ITEMS_PER_VARIANT = 6
# Seed 0 shows every item in bank order; where its right option sits (a=0 ... d=3), spread on purpose.
BOOK_RIGHT_POSITIONS = (1, 3, 0, 2, 2, 0, 3, 1)
# The id an item carries in the variant data is its place in the bank ("q4"). The bank's own ids name the topic
# or even the answer ("capacity-doubling", "alignment-learned"), and the data is what the student's page shows.
SHOWN_IDS: dict[str, str] = {item.id: f"q{number}" for number, item in enumerate(ITEMS, start=1)}
ITEMS_BY_SHOWN_ID: dict[str, ConceptItem] = {SHOWN_IDS[item.id]: item for item in ITEMS}


def _texts(text: Text) -> dict[str, str]:
    """A bilingual text as JSON."""
    return {"zh": text.zh, "en": text.en}


def _shown_item(item: ConceptItem, order: list[int]) -> dict[str, Any]:
    """An item as data; ``order[i]`` is the bank option at display position i (0 = right, 1..3 = wrong)."""
    bank = [item.right, *(option.text for option in item.wrong)]
    return {
        "id": SHOWN_IDS[item.id],
        "question": _texts(item.question),
        "options": [{"id": OPTION_IDS[position], "text": _texts(bank[index])} for position, index in enumerate(order)],
    }


def book_data() -> Data:
    """Seed 0: all items in bank order, the right option in a fixed spread of positions."""
    items = []
    for item, right_position in zip(ITEMS, BOOK_RIGHT_POSITIONS):
        order = [1, 2, 3]
        order.insert(right_position, 0)
        items.append(_shown_item(item, order))
    return {"items": items}


def random_data(rng: np.random.Generator, seed: int) -> Data:
    """A random subset of the items in random order, each with its options shuffled."""
    picked = rng.choice(len(ITEMS), size=ITEMS_PER_VARIANT, replace=False)
    return {"items": [_shown_item(ITEMS[int(index)], rng.permutation(len(OPTION_IDS)).tolist()) for index in picked]}


def _item(shown: dict[str, Any]) -> ConceptItem:
    """The bank item behind an item of the variant data."""
    return ITEMS_BY_SHOWN_ID[shown["id"]]


def _option_id(shown: dict[str, Any], text: Text) -> str:
    """The display id of the option whose English text is ``text``."""
    for option in shown["options"]:
        if option["text"]["en"] == text.en:
            return str(option["id"])
    raise KeyError(text.en)


def solve(variant: Variant) -> Answer:
    """The id of the right option of every item, in display order."""
    return {"choices": [_option_id(shown, _item(shown).right) for shown in variant.data["items"]]}


def _choosing(tag: str) -> Callable[[Variant], Answer | None]:
    """A solver that gets every item right except the one holding ``tag``'s option, where it picks that option."""
    item, option = WRONG_BY_TAG[tag]

    def choose(variant: Variant) -> Answer | None:
        """All right but one item answered with the tagged option; None when the item is not shown."""
        choices = list(solve(variant)["choices"])
        for index, shown in enumerate(variant.data["items"]):
            if _item(shown) is item:
                choices[index] = _option_id(shown, option.text)
                return {"choices": choices}
        return None

    return choose


# NAMES[tag], not .get: a wrong option added to the bank without a short name fails at import.
MISCONCEPTIONS = tuple(
    Misconception(tag, _choosing(tag), option.feedback, name=NAMES[tag]) for tag, (_, option) in WRONG_BY_TAG.items()
)


def tag_part(variant: Variant, field: str, student: Any) -> tuple[str, ...]:
    """The tags of the wrong options the student chose, item by item."""
    if field != "choices" or not isinstance(student, (list, tuple)):
        return ()
    chosen = (_wrong_option(shown, choice) for shown, choice in zip(variant.data["items"], student))
    return tuple(option.tag for option in chosen if option is not None)


def _wrong_option(shown: dict[str, Any], choice: object) -> WrongOption | None:
    """The wrong option of a shown item that ``choice`` picks, or None (the right option, or no such letter)."""
    return next((option for option in _item(shown).wrong if choice == _option_id(shown, option.text)), None)


def tag_example(tag: str, lang: str) -> str | None:
    """The item and the wrong option behind ``tag`` in words ("question → chosen option"); None for another tag."""
    found = WRONG_BY_TAG.get(tag)
    if found is None:
        return None
    item, option = found
    return f"{item.question.get(lang)} → {option.text.get(lang)}"


# Per-item feedback for a wrong part: which items are right, then each wrong item by its number with its own
# explanation. The shared wrong-part sentence would run the options' explanations together without saying which
# item each one is about.
ALL_WRONG = Text("这 {count} 题都还不对。", "None of the {count} items is right yet.")
SOME_RIGHT = Text("第 {right} 题对了；第 {wrong} 题还不对。", "{right} right; {wrong} not.")
WRONG_ITEM = Text(
    "第 {number} 题（你选了 {letter}；可能的误区：{name}）：{feedback}",
    "Item {number} (you chose {letter}; likely misconception: {name}): {feedback}",
)
WRONG_ITEM_UNEXPLAINED = Text(
    "第 {number} 题：你选了 {letter}，不是与本课事实相符的那个选项。",
    "Item {number}: you chose {letter}, which is not the option that matches the lesson.",
)


def _items_en(numbers: Sequence[int]) -> str:
    """Item numbers as the subject of an English clause: "item 2 is", "items 2 and 4 are", "items 1, 3 and 5 are"."""
    words = [str(number) for number in numbers]
    if len(words) == 1:
        return f"item {words[0]} is"
    return "items " + ", ".join(words[:-1]) + " and " + words[-1] + " are"


def _summary(right: Sequence[int], wrong: Sequence[int]) -> Text:
    """Which items are right and which are not, by number."""
    if not right:
        return ALL_WRONG.format(count=len(wrong))
    english = SOME_RIGHT.en.format(right=_items_en(right), wrong=_items_en(wrong))
    return Text(
        SOME_RIGHT.zh.format(right="、".join(map(str, right)), wrong="、".join(map(str, wrong))),
        english[:1].upper() + english[1:],
    )


def _fill(template: Text, texts: dict[str, Text], **values: object) -> Text:
    """``template`` with ``values`` in both languages and each of ``texts`` in the language it is filled into."""
    return Text(
        template.zh.format(**values, **{key: text.zh for key, text in texts.items()}),
        template.en.format(**values, **{key: text.en for key, text in texts.items()}),
    )


def item_feedback(variant: Variant, student: Sequence[object]) -> Text:
    """The feedback on a wrong choices part: the right items by number, then each wrong one with its explanation."""
    right: list[int] = []
    explained: list[Text] = []
    for number, (shown, choice) in enumerate(zip(variant.data["items"], student), start=1):
        if choice == _option_id(shown, _item(shown).right):
            right.append(number)
            continue
        option = _wrong_option(shown, choice)
        if option is None:
            explained.append(WRONG_ITEM_UNEXPLAINED.format(number=number, letter=choice))
            continue
        explained.append(
            _fill(WRONG_ITEM, {"name": NAMES[option.tag], "feedback": option.feedback}, number=number, letter=choice)
        )
    wrong = [number for number in range(1, len(student) + 1) if number not in right]
    lines = [_summary(right, wrong), *explained]
    # One line per item: the API and the CLI print them as a list, and a page that joins lines still reads well.
    return Text("\n".join(line.zh for line in lines), "\n".join(line.en for line in lines))


FIELDS = (
    AnswerField(
        "choices",
        "choices",
        Text("各题的选项", "your option for each item"),
        Text("按题目顺序每题一个字母，如 b, d, a", "one letter per item in order, e.g. b, d, a"),
        Text("每题只有一个选项与本课讲的事实相符。", "Exactly one option per item matches the facts of the lesson."),
        options=OPTION_IDS,
        one_per_item=True,
    ),
)


def prompt(variant: Variant, lang: str) -> str:
    """The numbered items with their lettered options."""
    key = "en" if lang == "en" else "zh"
    blocks = []
    for number, shown in enumerate(variant.data["items"], start=1):
        lines = [f"{number}. {shown['question'][key]}"]
        lines += [f"   {option['id']}) {option['text'][key]}" for option in shown["options"]]
        blocks.append("\n".join(lines))
    count = len(variant.data["items"])
    header = Text(
        f"下面 {count} 道选择题各有一个正确选项。按题号顺序给出你选的字母。",
        f"Each of the {count} items below has one right option. Give the letters you choose, in item order.",
    )
    return header.get(lang) + "\n\n" + "\n\n".join(blocks)


def reword(variant: Variant, answer: Answer, result: GradeResult, lang: str) -> GradeResult:
    """The engine's verdict, with a wrong choices part's feedback written item by item (score and tags unchanged)."""
    part, student = result.parts.get("choices"), answer.get("choices")
    # Only an answer with one letter per item reaches a verdict; anything else keeps the engine's feedback.
    if (
        part is None
        or part.correct
        or not isinstance(student, (list, tuple))
        or len(student) != len(variant.data["items"])
    ):
        return result
    # Worded from this variant's items, so it is stored as its text (exercises/said.py).
    said = literal(item_feedback(variant, student))
    choices = replace(part, feedback=said.get(lang), feedback_said=said)
    return replace(result, parts={**result.parts, "choices": choices})


EXERCISE = Exercise.declared_in(globals())
