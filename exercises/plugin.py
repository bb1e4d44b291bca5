"""The exercise plug-in: a plain declaration of the pure functions each exercise provides. Generating, reading and
checking are functions of their own (``variant_generation``, ``parsing``, ``checking``) that take it; the engine's
public face, ``exercises.api``, calls them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

from exercises.base import Answer, AnswerField, Data, GradeResult, Misconception, Variant
from exercises.diagnosis.steps import Steps
from exercises.i18n import Text

# The module-level names of the pieces a plug-in declares in capitals; every other piece has its field's name.
MODULE_NAMES = {
    "id": "ID",
    "title": "TITLE",
    "fields": "FIELDS",
    "misconceptions": "MISCONCEPTIONS",
    "symbols": "SYMBOLS",
}


@dataclass(frozen=True)
class Exercise:
    """An exercise plug-in: pure functions for data, solving, prompting and variant quality.

    ``book_data`` is the seed-0 variant from the chapter; ``random_data(rng, seed)`` draws any other.
    ``quality`` returns why a drawn variant must be rejected (ties, rows not summing to one), or None.
    ``follow_through`` returns, per field, the value that would be right given the student's own
    earlier steps (lists element by element); the checker credits a wrong part that matches it.
    ``tag_part`` lets an exercise diagnose a part itself (concept checks tag per item).
    ``data_text(variant, lang)`` is the plain-text layout of ``data`` that ``prompt`` embeds as a paragraph of its
    own (the ch13 probability table, aligned by spaces): ``prompt`` stays the whole question for plain text (the
    CLI), and ``prompt_without_data`` leaves the block out for a page that renders ``data`` itself.
    """

    id: str
    chapter: str
    title: Text
    fields: tuple[AnswerField, ...]
    book_data: Callable[[], Data]
    random_data: Callable[[np.random.Generator, int], Data]
    solve: Callable[[Variant], Answer]
    prompt: Callable[[Variant, str], str]
    misconceptions: tuple[Misconception, ...] = ()
    quality: Callable[[Variant], str | None] | None = None
    follow_through: Callable[[Variant, Answer], Mapping[str, Any]] | None = None
    tag_part: Callable[[Variant, str, Any], tuple[str, ...]] | None = None
    symbols: Mapping[str, float] = field(default_factory=dict)
    data_text: Callable[[Variant, str], str] | None = None
    # The solve as a chain of named steps (exercises.diagnosis): the generic search does its steps wrong one or two
    # at a time to name mistakes no hand-written solver foresaw, and the worked solution shows them.
    steps: Callable[[Variant, Steps], Answer] | None = None
    # What a student carrying ``tag`` answered, in words (``tag_example(tag, lang)``): for choices shown in each
    # student's own shuffled order, the letters a teacher's page would quote mean nothing across students.
    tag_example: Callable[[str, str], str | None] | None = None
    # The plug-in's own wording of a graded result, ``reword(variant, answer, result, lang)``: the concept check says
    # what was wrong item by item. It may change feedback only, never a score or a tag.
    reword: Callable[[Variant, Answer, GradeResult, str], GradeResult] | None = None

    @classmethod
    def declared_in(cls, module: Mapping[str, Any], **pieces: Any) -> Self:
        """The exercise whose pieces a plug-in module declares under the contract's names (``globals()``).

        ``ID``, ``TITLE``, ``FIELDS``, ``MISCONCEPTIONS`` and ``SYMBOLS`` in capitals, every function under its
        field's name (``book_data``, ``solve``, ``quality``, ...; docs/adding-an-exercise.md); an optional piece the
        module does not define keeps its default, and ``pieces`` names one it imports or names otherwise
        (``data_text=table_block``). The chapter is the ID's first part (``ch13`` of ``ch13.shift-pairs``).
        """
        declared = {
            piece.name: module[name]
            for piece in dataclasses.fields(cls)
            if (name := MODULE_NAMES.get(piece.name, piece.name)) in module
        }
        chapter = str(module["ID"]).partition(".")[0]
        return cls(**{**declared, "chapter": chapter, **pieces})

    def answer_field(self, name: str) -> AnswerField:
        """The answer field called ``name``."""
        for answer_field in self.fields:
            if answer_field.name == name:
                return answer_field
        raise KeyError(name)

    def prompt_without_data(self, variant: Variant, lang: str, placeholder: str = "") -> str:
        """The prompt with its ``data_text`` paragraph replaced by ``placeholder`` (dropped when empty)."""
        text = self.prompt(variant, lang)
        if self.data_text is None:
            return text
        return without_paragraph(text, self.data_text(variant, lang), placeholder)


PARAGRAPH_BREAK = "\n\n"


def without_paragraph(text: str, block: str, placeholder: str = "") -> str:
    """``text`` with the paragraph equal to ``block`` replaced by ``placeholder`` (dropped when empty).

    ``text`` unchanged unless ``block`` is exactly one of its paragraphs: a page then shows the block twice rather
    than lose part of the question (the property tests require exactly one).
    """
    paragraphs = text.split(PARAGRAPH_BREAK)
    if not block or paragraphs.count(block) != 1:
        return text
    at = paragraphs.index(block)
    kept = paragraphs[:at] + ([placeholder] if placeholder else []) + paragraphs[at + 1 :]
    return PARAGRAPH_BREAK.join(kept)
