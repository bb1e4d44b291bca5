"""Turn a variant's JSON ``data`` into display blocks: probability tables, matrices, token chips, values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from exercises import api as engine
from grader.i18n import UI, t

CONSUMED_WITH_TABLE = ("candidates",)
# Data the prompt itself already lays out in full (the concept check's items with their options): shown once.
# The other way round, a prompt's plain-text copy of its data (the ch13 probability table, the exercise's
# ``data_text``) is left out of the page's prompt (``exercise_service``): the HTML table here shows it once.
SHOWN_IN_PROMPT = ("items",)
# Where the prompt's plain-text table stood (the engine's ``prompt_without_data``), the page shows the data as an
# HTML table: the text copy, aligned by spaces, would be scrambled by the page's line wrapping. The marker is a
# character no prompt contains; the page splits the prompt there and never shows it.
TABLE_MARK = "\x00"
# The variant data that the ``data_text`` paragraph lays out (the ch13 probability table, candidates folded in).
PROMPT_TABLE_KEY = "table"
# Matrices whose rows the prompt names (e_0, k_0, ...; 0-based like the answers that refer to them).
ROW_NAMES = {"words": "e_{i}", "keys": "k_{i}"}


@dataclass(frozen=True)
class Table:
    """A table with a caption, column headers, and rows that each start with a header cell."""

    corner: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    caption: str = ""


@dataclass(frozen=True)
class Block:
    """One piece of variant data: ``kind`` is table, chips, value or group."""

    key: str
    title: str
    kind: str
    table: Table | None = None
    chips: tuple[str, ...] = ()
    value: str = ""
    children: tuple[Block, ...] = ()


def key_label(key: str, lang: str, exercise_id: str = "") -> str:
    """The label of a data field (an exercise's own label first: additive attention's ``v`` is its scoring vector,
    not the values V of scaled attention), or its name when there is no translation."""
    for name in (f"datakey.{exercise_id}.{key}", f"datakey.{key}"):
        if name in UI:
            return t(name, lang)
    return key


def format_number(value: float | int, unit_a: float | None = None) -> str:
    """Compact display: integers as such, multiples of a = ln 2 as ``2a``, else up to four decimals."""
    if isinstance(value, (bool, int)):
        return str(value)
    if unit_a and value != 0 and math.isclose(value / unit_a, round(value / unit_a), abs_tol=1e-9):
        multiple = round(value / unit_a)
        return {1: "a", -1: "-a"}.get(multiple, f"{multiple}a")
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_vector(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_number(x) for x in value)


def _is_matrix(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_is_vector(row) for row in value)


def _matrix_table(key: str, rows: list[list[float]], lang: str, unit_a: float | None) -> Table:
    """A numeric matrix with numbered rows and columns (rows named as the prompt names them, if it does)."""
    width = max(len(row) for row in rows)
    name = ROW_NAMES.get(key)
    return Table(
        "",
        tuple(t("data.col", lang, i=j + 1) for j in range(width)),
        tuple(
            (name.format(i=i) if name else t("data.row", lang, i=i + 1), tuple(format_number(x, unit_a) for x in row))
            for i, row in enumerate(rows)
        ),
    )


def _keyed_vectors(mapping: Mapping[str, list[float]], lang: str, unit_a: float | None) -> Table:
    """Token -> vector (an embedding table): one row per token, one column per dimension."""
    width = max(len(v) for v in mapping.values())
    return Table(
        t("data.token", lang),
        tuple(t("data.dim", lang, i=j + 1) for j in range(width)),
        tuple((token, tuple(format_number(x, unit_a) for x in vector)) for token, vector in mapping.items()),
    )


def _localised(value: Any, lang: str) -> str:
    """A {"zh","en"} object in ``lang``, or the value as text."""
    if isinstance(value, dict) and ("zh" in value or "en" in value):
        return str(value.get(lang) or value.get("zh") or value.get("en"))
    return "" if value is None else str(value)


def block_for(
    key: str, value: Any, lang: str, data: Mapping[str, Any], unit_a: float | None, exercise_id: str = ""
) -> Block:
    """The display block for one data field."""
    title = key_label(key, lang, exercise_id)
    if key == "table" and isinstance(value, dict) and isinstance(data.get("candidates"), list):
        table = Table(
            t("data.prev_token", lang),
            tuple(map(str, data["candidates"])),
            tuple((prev, tuple(format_number(p) for p in row)) for prev, row in value.items()),
            t("data.prob_table", lang),
        )
        return Block(key, title, "table", table=table)
    if isinstance(value, list) and value and all(isinstance(x, str) for x in value):
        return Block(key, title, "chips", chips=tuple(value))
    if _is_matrix(value):
        return Block(key, title, "table", table=_matrix_table(key, value, lang, unit_a))
    if _is_vector(value):
        return Block(
            key,
            title,
            "table",
            table=Table(
                "",
                tuple(t("data.dim", lang, i=j + 1) for j in range(len(value))),
                ((t("data.vector", lang), tuple(format_number(x, unit_a) for x in value)),),
            ),
        )
    if isinstance(value, dict) and value and all(_is_vector(v) for v in value.values()):
        return Block(key, title, "table", table=_keyed_vectors(value, lang, unit_a))
    if isinstance(value, dict):
        children = tuple(block_for(k, v, lang, data, unit_a, exercise_id) for k, v in value.items())
        return Block(key, title, "group", children=children)
    if _is_number(value):
        # a = ln 2 to the six decimals the prompts use (0.693147), not the tables' four.
        return Block(key, title, "value", value=f"{value:.6f}" if key == "a" else format_number(value, unit_a))
    return Block(key, title, "value", value="" if value is None else str(value))


def data_blocks(data: Mapping[str, Any], lang: str, exercise_id: str = "") -> list[Block]:
    """Blocks for every data field, in the engine's order; candidates fold into their probability table."""
    unit_a = float(data["a"]) if _is_number(data.get("a")) else None
    has_table = isinstance(data.get("table"), dict)
    return [
        block_for(key, value, lang, data, unit_a, exercise_id)
        for key, value in data.items()
        if not (has_table and key in CONSUMED_WITH_TABLE) and key not in SHOWN_IN_PROMPT
    ]


@dataclass(frozen=True)
class PagePrompt:
    """The prompt of a page that renders the variant's data: the text before the table it refers to, that table
    (None when the prompt lays out no table), and the text after it."""

    before: str
    table: Block | None = None
    after: str = ""


def page_prompt(exercise_id: str, seed: int, lang: str, data: Mapping[str, Any]) -> PagePrompt:
    """The prompt with its plain-text copy of the data replaced by ``data``'s table, shown at the same place."""
    text = engine.prompt_without_data(exercise_id, seed, lang, TABLE_MARK)
    if TABLE_MARK not in text or PROMPT_TABLE_KEY not in data:
        return PagePrompt(text)
    before, after = (part.strip("\n") for part in text.split(TABLE_MARK, 1))
    unit_a = float(data["a"]) if _is_number(data.get("a")) else None
    table = block_for(PROMPT_TABLE_KEY, data[PROMPT_TABLE_KEY], lang, data, unit_a, exercise_id)
    return PagePrompt(before, table, after)


def page_data_blocks(prompt: PagePrompt, data: Mapping[str, Any], lang: str, exercise_id: str) -> list[Block]:
    """``data_blocks`` less the table the prompt already shows."""
    shown = PROMPT_TABLE_KEY if prompt.table is not None else None
    return [block for block in data_blocks(data, lang, exercise_id) if block.key != shown]
