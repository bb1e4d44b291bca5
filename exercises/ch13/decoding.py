"""Chapter 13's decoder diagnostics: greedy decoding, teacher-forced probabilities, random probability tables."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from exercises.base import Variant
from exercises.ch13.common import BOS, COLOURS, EOS, MAX_STEPS, NOUNS, PERIOD, STOPPED_BY_CAP, STOPPED_BY_EOS
from exercises.i18n import Text
from exercises.variant_generation import has_tie_at_max, rows_not_summing_to_one

Table = Mapping[str, Sequence[float]]
TIE_TOLERANCE = 1e-9
MAX_ROW_DRAWS = 200


@dataclass(frozen=True)
class Decode:
    """What greedy decoding predicted (EOS included when reached) and why it stopped."""

    tokens: tuple[str, ...]
    stopped_by: str

    @property
    def inputs(self) -> tuple[str, ...]:
        """The decoder input at each prediction: BOS, then each token it chose before the last."""
        return (BOS, *self.tokens[:-1])


def pick(candidates: Sequence[str], row: Sequence[float], prefer_later: bool = False) -> str:
    """The candidate with the largest probability; a tie goes to the earlier one (or the later, if asked)."""
    values = np.asarray(row, dtype=float)
    tied = np.flatnonzero(values >= values.max() - TIE_TOLERANCE)
    return candidates[int(tied[-1] if prefer_later else tied[0])]


def greedy_decode(
    candidates: Sequence[str], table: Table, max_steps: int = MAX_STEPS, prefer_later: bool = False
) -> Decode:
    """Feed each chosen token back in from BOS; stop after EOS or after ``max_steps`` predictions."""
    tokens: list[str] = []
    while len(tokens) < max_steps:
        previous = tokens[-1] if tokens else BOS
        token = pick(candidates, table[previous], prefer_later)
        tokens.append(token)
        if token == EOS:
            return Decode(tuple(tokens), STOPPED_BY_EOS)
    return Decode(tuple(tokens), STOPPED_BY_CAP)


def teacher_forced_probabilities(candidates: Sequence[str], table: Table, target: Sequence[str]) -> list[float]:
    """The probability of each target token when the input is the previous correct token (BOS first)."""
    inputs = [BOS, *target[:-1]]
    return [float(table[previous][list(candidates).index(token)]) for previous, token in zip(inputs, target)]


def tied_rows(table: Table) -> list[str]:
    """The rows (by previous token) whose largest probability is shared."""
    return [previous for previous, row in table.items() if has_tie_at_max(row, TIE_TOLERANCE)]


def untied_table_fault(table: Table) -> str | None:
    """Why a table meant to have no tie is unusable (a row not summing to one, a shared largest probability)."""
    if rows_not_summing_to_one(table.values()):
        return "probability row does not sum to 1"
    if tied_rows(table):
        return "argmax tie"
    return None


def colours_of(candidates: Sequence[str]) -> list[str]:
    """The colour words among the candidates."""
    return [token for token in candidates if token in COLOURS]


def nouns_of(candidates: Sequence[str]) -> list[str]:
    """The noun words among the candidates."""
    return [token for token in candidates if token in NOUNS]


def random_candidates(rng: np.random.Generator) -> list[str]:
    """Two colours and two nouns from the chapter's pools, then the period and EOS (the book's layout)."""
    colours = [str(word) for word in rng.choice(sorted(COLOURS), size=2, replace=False)]
    nouns = [str(word) for word in rng.choice(sorted(NOUNS), size=2, replace=False)]
    return [*colours, *nouns, PERIOD, EOS]


def random_target(rng: np.random.Generator, candidates: Sequence[str]) -> list[str]:
    """A short sentence over the candidates: colour noun . EOS (mostly) or noun . EOS."""
    noun = str(rng.choice(nouns_of(candidates)))
    if rng.random() < 0.7:
        return [str(rng.choice(colours_of(candidates))), noun, PERIOD, EOS]
    return [noun, PERIOD, EOS]


def sentence_successors(rng: np.random.Generator, candidates: Sequence[str]) -> dict[str, str]:
    """A greedy favourite for every row that writes a sentence: BOS→colour→noun→.→EOS, with some shortcuts."""
    colours, nouns = colours_of(candidates), nouns_of(candidates)
    successors = {BOS: str(rng.choice(colours)) if rng.random() < 0.8 else str(rng.choice(nouns))}
    for colour in colours:
        successors[colour] = str(rng.choice(nouns))
    for noun in nouns:
        successors[noun] = PERIOD if rng.random() < 0.75 else EOS
    successors[PERIOD] = EOS
    return successors


def _spread(rng: np.random.Generator, units: list[int], free: list[int], remaining: int, cap: int) -> bool:
    """Add ``remaining`` tenths over a random subset of ``free`` positions, none above ``cap``; False if it can't."""
    if remaining == 0:
        return True
    if not free or cap <= 0:
        return False
    order = [free[int(i)] for i in rng.permutation(len(free))]
    support = order[: int(rng.integers(1, len(order) + 1))]
    for _ in range(remaining):
        open_positions = [i for i in support if units[i] < cap]
        if not open_positions:
            return False
        units[open_positions[int(rng.integers(len(open_positions)))]] += 1
    return True


def tenths_row(
    rng: np.random.Generator,
    size: int,
    winner: int | None = None,
    fixed: Mapping[int, int] | None = None,
    tie_with: int | None = None,
) -> list[float]:
    """A probability row in tenths (exact sum 1) with the given fixed entries, in units of 0.1.

    With ``winner`` the row's largest entry is there alone, or shared with ``tie_with`` and nobody else;
    without it, any row whose maximum is unique.
    """
    # A pinned entry at the favourite is superseded by the favourite's own (larger) share.
    fixed = {p: v for p, v in (fixed or {}).items() if p not in (winner, tie_with)}
    fixed_total = sum(fixed.values())
    for _ in range(MAX_ROW_DRAWS):
        units = [0] * size
        for position, value in fixed.items():
            units[position] = value
        taken = set(fixed) | {p for p in (winner, tie_with) if p is not None}
        free = [p for p in range(size) if p not in taken]
        if winner is None:
            if _spread(rng, units, free, 10 - fixed_total, 10) and not has_tie_at_max(units):
                return [value / 10 for value in units]
            continue
        shares = 2 if tie_with is not None else 1
        lowest = max([3 if tie_with is not None else 4, *(v + 1 for v in fixed.values())])
        highest = (10 - fixed_total) // shares
        if lowest > highest:
            break
        top = int(rng.integers(lowest, highest + 1))
        units[winner] = top
        if tie_with is not None:
            units[tie_with] = top
        if _spread(rng, units, free, 10 - fixed_total - shares * top, top - 1):
            return [value / 10 for value in units]
    raise ValueError("no probability row satisfies these constraints")


def fill_table(
    rng: np.random.Generator,
    candidates: Sequence[str],
    successors: Mapping[str, str],
    fixed: Mapping[str, Mapping[str, int]] | None = None,
    tie: tuple[str, str] | None = None,
) -> dict[str, list[float]]:
    """A row for BOS and every candidate but EOS whose greedy favourite is ``successors[row]``.

    ``fixed`` pins entries (in tenths) per row; ``tie`` = (row, later candidate) makes that row's favourite
    share its maximum with the later candidate.
    """
    index = {token: i for i, token in enumerate(candidates)}
    table: dict[str, list[float]] = {}
    for previous in [BOS, *candidates[:-1]]:
        pinned = {index[token]: units for token, units in (fixed or {}).get(previous, {}).items()}
        tie_with = index[tie[1]] if tie is not None and tie[0] == previous else None
        table[previous] = tenths_row(rng, len(candidates), index[successors[previous]], pinned, tie_with)
    return table


def probability_text(value: float) -> str:
    """A table entry as the chapter prints it: 0.4, 0, 1."""
    return f"{value:g}"


def _columns(text: str) -> int:
    """How many monospace columns ``text`` takes: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def table_text(candidates: Sequence[str], table: Table, corner: str) -> str:
    """The probability table as aligned plain text, one row per previous token."""
    width = max(_columns(corner), *(len(previous) for previous in table)) + 2
    # At least one space before every header name: "yellow" filled a 6-wide column and read as "greenyellow".
    column = max(6, *(len(token) + 1 for token in candidates))
    # Padded by columns, not characters: "前一个 token" is 12 columns wide in a terminal, and padding it as 9
    # characters pushed the Chinese header three columns to the right of the numbers under it.
    header = corner + " " * (width - _columns(corner)) + "".join(token.rjust(column) for token in candidates)
    rows = [
        previous.ljust(width) + "".join(probability_text(p).rjust(column) for p in row)
        for previous, row in table.items()
    ]
    return "\n".join([header, *rows])


def table_block(variant: Variant, lang: str) -> str:
    """The variant's probability table as the prompts lay it out: their ``data_text``, a paragraph of its own."""
    data = variant.data
    return table_text(data["candidates"], data["table"], Text("前一个 token", "previous").get(lang))


def table_paragraph(variant: Variant, lang: str) -> str:
    """The prompts' opening: how the decoder reads the table, then the table as a paragraph of its own."""
    candidates, grid = ", ".join(variant.data["candidates"]), table_block(variant, lang)
    return Text(
        f"解码器只按前一个 token 选下表中的一行，行内是下一个 token 的概率，候选顺序为 [{candidates}]：\n\n{grid}\n\n",
        f"The decoder picks one row of this table by the previous token; the row holds the probabilities of the "
        f"next token, over the candidates [{candidates}]:\n\n{grid}\n\n",
    ).get(lang)
