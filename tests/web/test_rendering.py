"""Pure rendering pieces: every UI string in both languages, variant data as tables, the lab plot as SVG."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from flask import Flask

from exercises import api as engine
from grader.i18n import UI, t
from grader.models import ScorePolicy, SubmissionStatus
from grader.percent import shown_percent
from grader.ui.data_view import SHOWN_IN_PROMPT, data_blocks, format_number
from grader.web.lab_service import restrict
from grader.web.plot import render_plot

TEMPLATES = Path(__file__).resolve().parents[2] / "grader" / "templates"
USED_KEY = re.compile(r"""_\('([a-z_0-9.]+)'""")


def test_every_ui_string_exists_in_chinese_and_english() -> None:
    for key, text in UI.items():
        assert text.zh.strip() and text.en.strip(), key


def test_every_string_the_templates_use_is_defined() -> None:
    used = {key for path in TEMPLATES.glob("*.html") for key in USED_KEY.findall(path.read_text("utf-8"))}
    assert used, "the pattern found no UI strings in the templates"
    assert sorted(key for key in used - set(UI) if not key.endswith(".")) == []


def test_every_status_and_policy_shown_by_prefix_has_a_string() -> None:
    for status in SubmissionStatus:
        assert f"substatus.{status.value}" in UI
    for policy in ScorePolicy:
        assert f"policy.{policy.value}" in UI


def test_placeholders_are_filled_in_both_languages() -> None:
    assert t("attempts.left", "zh", left=2, allowed=5) == "剩余 2/5 次"
    assert t("attempts.left", "en", left=2, allowed=5) == "2 of 5 attempts left"
    assert t("attempts.left", "fr", left=1, allowed=1) == "剩余 1/1 次"  # unknown language: Chinese


def test_probability_table_has_candidates_as_columns_and_previous_tokens_as_rows() -> None:
    data = engine.variant("ch13.greedy-decode", 0, "en")["data"]
    blocks = {b.key: b for b in data_blocks(data, "en")}
    assert "candidates" not in blocks  # folded into the table
    table = blocks["table"].table
    assert table.columns == tuple(data["candidates"])
    assert [row[0] for row in table.rows] == list(data["table"])
    assert table.rows[0][1] == tuple(format_number(p) for p in data["table"]["BOS"])


def test_embeddings_show_multiples_of_a() -> None:
    data = engine.variant("ch13.encoder-states", 0, "zh")["data"]
    blocks = {b.key: b for b in data_blocks(data, "zh")}
    vocab = dict(blocks["source_vocab"].table.rows)
    assert vocab["钥匙"] == ("-a", "a") and vocab["蓝色"] == ("0", "0")
    assert blocks["source"].kind == "chips" and blocks["source"].chips == ("红色", "钥匙", "。")
    assert blocks["encoder"].kind == "group"


def test_attention_matrices_render_as_tables() -> None:
    data = engine.variant("ch09.scaled-dot-attention", 0, "en")["data"]
    blocks = {b.key: b for b in data_blocks(data, "en")}
    for name in ("q", "k", "v"):
        assert blocks[name].kind == "table"
        assert len(blocks[name].table.rows) == len(data[name])


@pytest.mark.parametrize(
    ("exercise_id", "label"),
    [("ch09.scaled-dot-attention", "V (values)"), ("l03.additive-attention", "Scoring vector v")],
)
def test_a_data_field_is_labelled_by_what_it_is_in_its_exercise(exercise_id: str, label: str) -> None:
    """``v`` is the values V in scaled attention but the scoring vector of additive attention."""
    data = engine.variant(exercise_id, 0, "en")["data"]
    blocks = {b.key: b for b in data_blocks(data, "en", exercise_id)}
    assert blocks["v"].title == label


def test_every_exercise_variant_renders_without_error() -> None:
    for exercise_id in engine.exercise_ids():
        for lang in ("zh", "en"):
            data = engine.variant(exercise_id, 7, lang)["data"]
            # Only data that the prompt lays out in full may leave the data section empty.
            assert data_blocks(data, lang) or set(data) <= set(SHOWN_IN_PROMPT), exercise_id


@pytest.fixture()
def lab_result() -> dict:
    return {
        "ds": [32, 64],
        "ts": [1, 2, 3, 4],
        "fixed_accuracy": {"32": [1.0, 0.95, 0.85, 0.7], "64": [1.0, 1.0, 0.97, 0.92]},
        "attention_accuracy": {"32": [1.0] * 4, "64": [1.0] * 4},
        "first_below_90": {"32": 3, "64": None},
    }


def test_plot_has_one_line_per_d_a_dashed_threshold_and_text_labels(lab_result: dict) -> None:
    svg = str(render_plot(lab_result, "en"))
    assert svg.count('<g class="series"') == 3  # d=32, d=64, attention
    assert 'data-label="fixed vector d=32"' in svg and 'data-label="fixed vector d=64"' in svg
    assert re.search(r'class="threshold"[^>]*stroke-dasharray', svg)
    assert '<title id="lab-plot-title">Read-back accuracy against T</title>' in svg


def test_restricting_the_t_range_recomputes_the_first_t_below_90(lab_result: dict) -> None:
    shown = restrict(lab_result, 4)
    assert shown["ts"] == [4]
    assert shown["first_below_90"] == {"32": 4, "64": None}
    assert math.isclose(shown["fixed_accuracy"]["64"][0], 0.92)


@pytest.mark.parametrize(
    ("fraction", "shown"),
    [
        (0.0, 0),
        (0.004, 1),
        (0.005, 1),
        (0.3333, 33),
        (0.5, 50),
        (0.994, 99),
        (0.995, 99),
        (0.9996, 99),
        (1.0, 100),
    ],
)
def test_percentages_never_round_to_full_marks_or_to_nothing(fraction: float, shown: int) -> None:
    assert shown_percent(fraction) == shown


def test_pages_show_scores_through_the_same_rule(app: Flask) -> None:
    with app.test_request_context("/"):
        macros = app.jinja_env.get_template("_macros.html").make_module({"_": lambda key, **values: str(values)})
        assert str(macros.percent(0.996)) == "99%" and str(macros.percent(1.0)) == "100%"
        assert str(macros.percent(None)) == "—"
        assert app.jinja_env.from_string("{{ 0.001 | percent }}").render() == "1"


def test_concept_check_items_are_shown_once_in_the_prompt_without_their_ids() -> None:
    variant = engine.variant("l03.concept-check", 3, "en")
    assert "items" not in {b.key for b in data_blocks(variant["data"], "en")}
    for item in variant["data"]["items"]:
        assert item["question"]["en"] in variant["prompt"]  # the prompt lays every item out
    ids = [item["id"] for item in variant["data"]["items"]]
    assert all(f"({item_id})" not in repr(data_blocks(variant["data"], "en")) for item_id in ids)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_readback_rows_are_named_as_the_prompt_names_them(lang: str) -> None:
    variant = engine.variant("l03.superposition-readback", 0, lang)
    blocks = {b.key: b for b in data_blocks(variant["data"], lang)}
    words = [row[0] for row in blocks["words"].table.rows]
    keys = [row[0] for row in blocks["keys"].table.rows]
    assert words == [f"e_{i}" for i in range(len(variant["data"]["words"]))]
    assert keys == [f"k_{i}" for i in range(len(variant["data"]["keys"]))]
    assert all(f"{name} = " in variant["prompt"] for name in words + keys)


def test_a_is_shown_to_the_decimals_the_prompts_use() -> None:
    variant = engine.variant("ch13.encoder-states", 0, "en")
    blocks = {b.key: b for b in data_blocks(variant["data"], "en")}
    assert blocks["a"].value == "0.693147"


@pytest.mark.parametrize(
    ("part", "label"),
    [
        ({"correct": True, "score": 1.0, "follow_through": False}, "exercise.part_correct"),
        ({"correct": False, "score": 1.0, "follow_through": True}, "exercise.part_follow_through"),
        ({"correct": False, "score": 0.5, "follow_through": True}, "exercise.part_follow_through"),
        ({"correct": False, "score": 0.5, "follow_through": False}, "exercise.part_partial"),
        ({"correct": False, "score": 0.0, "follow_through": False}, "exercise.part_wrong"),
    ],
)
def test_a_part_credited_from_the_students_own_earlier_answer_says_so(app: Flask, part: dict, label: str) -> None:
    with app.test_request_context("/"):
        macros = app.jinja_env.get_template("_macros.html").make_module({"_": lambda key, **values: key})
        assert label in str(macros.part_verdict(part))
