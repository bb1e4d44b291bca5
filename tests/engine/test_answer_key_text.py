"""The answer key as a page shows it: every field, written the way answers are read back, in the page language."""

from __future__ import annotations

import pytest

from exercises import api
from exercises.registry import get_exercise


def test_book_keys_read_as_students_would_write_them() -> None:
    """Tokens as a sentence, pairs with arrows, yes/no words by language, numbers rounded for reading."""
    greedy = api.answer_key_text("ch13.greedy-decode", 0, "en")
    assert greedy == {"tokens": "blue key . EOS", "stopped_by": "EOS"}
    shift_en, shift_zh = (api.answer_key_text("ch13.shift-pairs", 0, lang) for lang in ("en", "zh"))
    assert shift_en["pairs"] == shift_zh["pairs"] and "→" in shift_en["pairs"]
    assert (shift_en["bos_scored"], shift_en["eos_scored"]) == ("no", "yes")
    assert (shift_zh["bos_scored"], shift_zh["eos_scored"]) == ("否", "是")
    assert api.answer_key_text("ch13.loss-average", 0, "en")["total_loss"] == "1.24479"


@pytest.mark.parametrize("exercise_id", api.exercise_ids())
def test_every_field_is_written_and_reads_back_as_the_key(exercise_id: str) -> None:
    """Typed back into the form, the written key scores 1 on its own variant: nothing is lost in the writing."""
    fields = [f.name for f in get_exercise(exercise_id).fields]
    for seed in (0, 1, 7, 123):
        written = api.answer_key_text(exercise_id, seed, "en")
        assert list(written) == fields
        result = api.grade(exercise_id, seed, written, "en")
        assert result["status"] == "graded" and result["score"] == 1.0, (seed, written, result["errors"])
