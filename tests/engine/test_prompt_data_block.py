"""A prompt's plain-text copy of its data (the ch13 probability table) is one paragraph the engine can leave out for a
page that renders the data itself, while the plain-text prompt (CLI) keeps it, aligned."""

from __future__ import annotations

import unicodedata

import pytest

from exercises import api
from exercises.plugin import without_paragraph
from exercises.registry import EXERCISES, get_exercise
from exercises.variant_generation import generate_variant
from tests.engine.test_cli import run_cli
from tests.engine.verdict_support import variants

SEED_COUNT = 200
LANGS = ("zh", "en")
TABLE_EXERCISES = ("ch13.greedy-decode", "ch13.loss-average", "ch13.exposure-divergence")
POINTER = "(see the table below)"


def _columns(line: str) -> int:
    """Monospace columns of a line (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)


def test_the_table_exercises_declare_their_data_block() -> None:
    assert sorted(e.id for e in EXERCISES if e.data_text is not None) == sorted(TABLE_EXERCISES)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", TABLE_EXERCISES)
def test_the_table_is_one_paragraph_that_the_page_prompt_leaves_out(exercise_id: str, lang: str) -> None:
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, SEED_COUNT):
        prompt, block = exercise.prompt(variant, lang), exercise.data_text(variant, lang)
        paragraphs = prompt.split("\n\n")
        assert paragraphs.count(block) == 1, (variant.seed, prompt)
        without = exercise.prompt_without_data(variant, lang, POINTER)
        assert without.split("\n\n") == [POINTER if p == block else p for p in paragraphs]
        assert not any(line in without for line in block.splitlines()), variant.seed
        assert exercise.prompt_without_data(variant, lang) == "\n\n".join(p for p in paragraphs if p != block)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", TABLE_EXERCISES)
def test_the_text_table_lines_up_in_a_terminal(exercise_id: str, lang: str) -> None:
    """Every line of the text table takes as many columns as its header, Chinese corner included."""
    exercise = get_exercise(exercise_id)
    for variant in variants(exercise_id, 40):
        lines = exercise.data_text(variant, lang).splitlines()
        assert len({_columns(line) for line in lines}) == 1, (variant.seed, lines)
        assert len(lines) == len(variant.data["table"]) + 1


@pytest.mark.parametrize("exercise", [e for e in EXERCISES if e.data_text is None], ids=lambda e: e.id)
def test_other_prompts_are_the_same_on_a_page(exercise) -> None:
    for seed in (0, 5):
        for lang in LANGS:
            assert (
                api.prompt_without_data(exercise.id, seed, lang, POINTER)
                == api.variant(exercise.id, seed, lang)["prompt"]
            )


def test_the_api_prompt_without_data_is_the_exercises() -> None:
    exercise = get_exercise("ch13.loss-average")
    expected = exercise.prompt_without_data(generate_variant(exercise, 9), "en", POINTER)
    assert api.prompt_without_data("ch13.loss-average", 9, "en", POINTER) == expected
    assert "prompt_without_data" not in api.variant("ch13.loss-average", 9, "en")  # the API's variant keeps its shape


@pytest.mark.parametrize(
    ("text", "block", "expected"),
    [
        ("a\n\nT\n\nb", "T", "a\n\nP\n\nb"),
        ("a\n\nT", "T", "a\n\nP"),
        ("a\n\nT\n\nT", "T", "a\n\nT\n\nT"),  # not exactly once: left whole rather than guess
        ("a T b", "T", "a T b"),  # not a paragraph of its own
        ("a\n\nb", "", "a\n\nb"),
    ],
)
def test_without_paragraph(text: str, block: str, expected: str) -> None:
    assert without_paragraph(text, block, "P") == expected


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("exercise_id", TABLE_EXERCISES)
def test_the_cli_variant_still_prints_the_text_table(exercise_id: str, lang: str) -> None:
    completed = run_cli("variant", exercise_id, "--seed", "3", "--lang", lang)
    assert completed.returncode == 0, completed.stderr
    exercise = get_exercise(exercise_id)
    block = exercise.data_text(generate_variant(exercise, 3), lang)
    out = completed.stdout.decode()
    assert block in out and out.count(block.splitlines()[1]) == 1
