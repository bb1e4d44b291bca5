"""l03.concept-check: multiple-choice items on the bottleneck lesson, items and options shuffled per seed."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from exercises.base import Answer, AnswerField, Data, Misconception, Variant
from exercises.i18n import Text
from exercises.l03.concept_items import ITEMS, ITEMS_BY_ID, WRONG_BY_TAG, ConceptItem
from exercises.l03.concept_names import NAMES
from exercises.plugin import Exercise

ID = "l03.concept-check"
OPTION_IDS = ("a", "b", "c", "d")
ITEMS_PER_VARIANT = 6
# Seed 0 shows every item in bank order; where its right option sits (a=0 ... d=3), spread on purpose.
BOOK_RIGHT_POSITIONS = (1, 3, 0, 2, 2, 0, 3, 1)


def _texts(text: Text) -> dict[str, str]:
    """A bilingual text as JSON."""
    return {"zh": text.zh, "en": text.en}


def _shown_item(item: ConceptItem, order: list[int]) -> dict[str, Any]:
    """An item as data; ``order[i]`` is the bank option at display position i (0 = right, 1..3 = wrong)."""
    bank = [item.right, *(option.text for option in item.wrong)]
    return {"id": item.id, "question": _texts(item.question),
            "options": [{"id": OPTION_IDS[position], "text": _texts(bank[index])}
                        for position, index in enumerate(order)]}


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
    return {"items": [_shown_item(ITEMS[int(index)], rng.permutation(len(OPTION_IDS)).tolist())
                      for index in picked]}


def _option_id(shown: dict[str, Any], text: Text) -> str:
    """The display id of the option whose English text is ``text``."""
    for option in shown["options"]:
        if option["text"]["en"] == text.en:
            return str(option["id"])
    raise KeyError(text.en)


def solve(variant: Variant) -> Answer:
    """The id of the right option of every item, in display order."""
    return {"choices": [_option_id(shown, ITEMS_BY_ID[shown["id"]].right) for shown in variant.data["items"]]}


def _choosing(tag: str) -> Callable[[Variant], Answer | None]:
    """A solver that gets every item right except the one holding ``tag``'s option, where it picks that option."""
    item, option = WRONG_BY_TAG[tag]

    def choose(variant: Variant) -> Answer | None:
        """All right but one item answered with the tagged option; None when the item is not shown."""
        choices = list(solve(variant)["choices"])
        for index, shown in enumerate(variant.data["items"]):
            if shown["id"] == item.id:
                choices[index] = _option_id(shown, option.text)
                return {"choices": choices}
        return None

    return choose


# NAMES[tag], not .get: a wrong option added to the bank without a short name fails at import.
MISCONCEPTIONS = tuple(Misconception(tag, _choosing(tag), option.feedback, name=NAMES[tag])
                       for tag, (_, option) in WRONG_BY_TAG.items())


def tag_part(variant: Variant, field: str, student: Any) -> tuple[str, ...]:
    """The tags of the wrong options the student chose, item by item."""
    if field != "choices" or not isinstance(student, (list, tuple)):
        return ()
    tags = []
    for shown, choice in zip(variant.data["items"], student):
        item = ITEMS_BY_ID[shown["id"]]
        for option in item.wrong:
            if choice == _option_id(shown, option.text):
                tags.append(option.tag)
    return tuple(tags)


FIELDS = (
    AnswerField("choices", "choices", Text("各题的选项", "your option for each item"),
                Text("按题目顺序每题一个字母，如 b, d, a", "one letter per item in order, e.g. b, d, a"),
                Text("每题只有一个选项与本课讲的事实相符。", "Exactly one option per item matches the facts of the lesson."),
                options=OPTION_IDS, one_per_item=True),
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
    header = Text(f"下面 {count} 道选择题各有一个正确选项。按题号顺序给出你选的字母。",
                  f"Each of the {count} items below has one right option. Give the letters you choose, in item order.")
    return header.get(lang) + "\n\n" + "\n\n".join(blocks)


EXERCISE = Exercise(
    id=ID,
    chapter="l03",
    title=Text("概念自测：定长向量与注意力的由来", "Concept check: the fixed vector and where attention came from"),
    fields=FIELDS,
    book_data=book_data,
    random_data=random_data,
    solve=solve,
    prompt=prompt,
    misconceptions=MISCONCEPTIONS,
    tag_part=tag_part,
)
