"""Readers audit: text as students type it with Chinese and English input methods, and the verdicts it gets."""

from __future__ import annotations

import math
from typing import Any

import pytest

from exercises import api
from exercises.comparators import DEFAULT_TOLERANCE, Tolerance, canonical_token, equal
from exercises.engine_errors import ReadError
from exercises.expr import evaluate
from exercises.readers import (
    read_bool,
    read_choices,
    read_enum,
    read_int,
    read_kind,
    read_matrix,
    read_number,
    read_optional_int,
    read_pairs,
    read_token,
    read_tokens,
    read_vector,
    read_vectors,
)

A = math.log(2)
SYMBOLS = {"a": A}
SHIFTED = [("BOS", "blue"), ("blue", "door"), ("door", "."), (".", "EOS")]
STOP_ALIASES = {"EOS": ["eos", "<eos>"], "cap": ["上限"]}
ZWSP, BOM, ZWJ = "\u200b", "\ufeff", "\u200d"


# Invisible format characters (pasted from chat apps and web pages) are dropped: the student sees "EOS", so it
# must not be read as a different token "eos\u200b" and marked wrong, nor rejected with an invisible character.
@pytest.mark.parametrize(
    ("reader", "raw", "expected"),
    [
        (read_tokens, f"blue key . EOS{ZWSP}", ["blue", "key", ".", "EOS"]),
        (read_tokens, f"{BOM}blue{ZWJ} key", ["blue", "key"]),
        (read_tokens, [f"EOS{ZWSP}"], ["EOS"]),
        (read_token, f"{ZWSP}red", "red"),
        (read_pairs, f"BOS→blue{ZWSP}", [("BOS", "blue")]),
        (read_bool, f"是{ZWSP}", True),
        (read_number, f"{ZWSP}0.5", 0.5),
        (read_number, f"1{ZWSP}2", 12.0),
        (read_vector, f"1{ZWSP}, 2", [1.0, 2.0]),
        (read_int, f"1,000{ZWSP}", 1000),
        (read_choices, f"b{ZWSP}, d", ["b", "d"]),
    ],
)
def test_invisible_characters_are_dropped(reader, raw: object, expected: object) -> None:
    assert reader(raw) == expected


def test_invisible_characters_in_enum_and_canonical_tokens() -> None:
    assert read_enum(f"EOS{ZWSP}", STOP_ALIASES) == "EOS"
    assert canonical_token(f"<eos>{ZWSP}") == "EOS"
    assert equal("token", f"red{ZWSP}", "red")


@pytest.mark.parametrize("raw", [ZWSP, f" {BOM} ", ZWSP * 3])
def test_only_invisible_characters_is_empty_input(raw: str) -> None:
    with pytest.raises(ReadError, match="empty input") as caught:
        read_number(raw)
    assert caught.value.message.zh == "输入为空"


# A Chinese IME types "<" ">" as the title marks 《 》, so "<eos>" arrives as "《eos》" and "->" as "-》";
# Shift+"-" gives an em dash, so "-->" may arrive as "——>".
@pytest.mark.parametrize(
    ("reader", "raw", "expected"),
    [
        (read_tokens, "blue key . 《eos》", ["blue", "key", ".", "EOS"]),
        (read_tokens, "《bos》 red", ["BOS", "red"]),
        (read_tokens, "door.《eos》", ["door", ".", "EOS"]),
        (read_tokens, ["blue", "《EOS》"], ["blue", "EOS"]),
        (read_token, "〈EOS〉", "EOS"),
        (read_pairs, "BOS-》blue，blue-》door，door-》。，。-》EOS", SHIFTED),
        (read_pairs, "《BOS》→blue，blue→door，door→。，。→《EOS》", SHIFTED),
        (read_pairs, "BOS—>blue, blue——>door, door–>., .—>EOS", SHIFTED),
        (read_pairs, "BOS》blue，blue》door，door》。，。》EOS", SHIFTED),
    ],
)
def test_chinese_ime_angle_brackets_and_dashes(reader, raw: object, expected: object) -> None:
    assert reader(raw) == expected


def test_chinese_ime_angle_brackets_in_words_and_comparisons() -> None:
    assert read_enum("《eos》", STOP_ALIASES) == "EOS"
    assert canonical_token("《bos》") == "BOS"
    assert equal("tokens", ["blue", "《eos》"], ["blue", "EOS"])


@pytest.mark.parametrize(
    ("raw", "character", "position", "interpreted"),
    [
        ("blue key . <EOS >", "<", 11, "blue key ."),
        ("< eos >", "<", 0, None),
        ("blue eos>", ">", 8, "blue"),
    ],
)
def test_a_stray_angle_bracket_is_invalid_not_a_token(
    raw: str, character: str, position: int, interpreted: str | None
) -> None:
    # Before: "<EOS >" read as the three tokens "<", "EOS", ">" and was graded wrong.
    with pytest.raises(ReadError) as caught:
        read_tokens(raw)
    assert f"stray '{character}'" in caught.value.message.en
    assert f"多余的「{character}」" in caught.value.message.zh
    assert caught.value.position == position
    assert caught.value.interpreted == interpreted


def test_whole_tags_stay_tokens() -> None:
    assert read_tokens("<s> blue <pad> </s>") == ["BOS", "blue", "<pad>", "EOS"]


@pytest.mark.parametrize("raw", ["blue - key - . - EOS", "blue — key", ["blue", "-", "key"], "blue -- key"])
def test_a_dash_between_tokens_is_invalid_not_the_token_none(raw: object) -> None:
    # Before: "blue - key" read as ["blue", "none", "key"] ("none" meaning "no such token") and was graded wrong.
    with pytest.raises(ReadError) as caught:
        read_tokens(raw)
    assert "only a dash" in caught.value.message.en and "短横线" in caught.value.message.zh
    assert caught.value.interpreted == "blue"


def test_a_lone_dash_still_means_no_token() -> None:
    assert read_token("-") == "none" and read_token("—") == "none"
    assert read_tokens("-") == ["none"]
    assert read_tokens("blue-door") == ["blue-door"]


@pytest.mark.parametrize(
    "raw",
    [
        "(BOS, blue), (blue, door), (door, .), (., EOS)。",
        "[(BOS, blue), (blue, door), (door, .), (., EOS)].",
        "BOS→blue, blue→door, door→., .→EOS。",
    ],
)
def test_pairs_typed_as_a_sentence(raw: str) -> None:
    assert read_pairs(raw) == SHIFTED


def test_a_stop_glued_to_a_pair_that_is_not_eos_stays_invalid() -> None:
    with pytest.raises(ReadError, match="should be one token"):
        read_pairs("BOS→blue。")


@pytest.mark.parametrize(
    ("reader", "raw", "expected"),
    [
        (read_vector, "[1, 2].", [1.0, 2.0]),
        (read_vector, "(a, 0) .", [A, 0.0]),
        (read_matrix, "[[1,2],[3,4]].", [[1.0, 2.0], [3.0, 4.0]]),
        (read_vectors, "[a,0],[0,a],[0,0].", [[A, 0.0], [0.0, A], [0.0, 0.0]]),
        (read_matrix, "{{1,2},{3,4}}", [[1.0, 2.0], [3.0, 4.0]]),
        (read_vectors, "{a,0},{0,a}", [[A, 0.0], [0.0, A]]),
    ],
)
def test_numbers_typed_as_a_sentence_and_curly_rows(reader, raw: str, expected: object) -> None:
    assert reader(raw, SYMBOLS) == expected


def test_a_full_stop_after_a_number_is_still_part_of_it() -> None:
    assert read_vector("1, 2.") == [1.0, 2.0]
    with pytest.raises(ReadError):
        read_vector("[1, 2]..")


@pytest.mark.parametrize("raw", ["[[1;2],[3;4]]", "[1;2],[3;4]", "[[1;2];[3;4]]", "[[1;2]]"])
def test_semicolon_inside_a_bracketed_matrix_row_is_ambiguous(raw: str) -> None:
    # Before: read as rows [1,2],[3,4]; in MATLAB [[1;2],[3;4]] is the transpose. Neither reading is safe.
    with pytest.raises(ReadError) as caught:
        read_matrix(raw)
    assert "ambiguous" in caught.value.message.en and "歧义" in caught.value.message.zh
    assert caught.value.position == raw.index(";")


def test_semicolons_still_separate_matrix_rows_and_vector_entries() -> None:
    assert read_matrix("[1,2;3,4]") == [[1.0, 2.0], [3.0, 4.0]]
    assert read_matrix("[1,2]; [3,4]") == [[1.0, 2.0], [3.0, 4.0]]
    assert read_vectors("[a;0],[0;a]", SYMBOLS) == [[A, 0.0], [0.0, A]]  # a vector is a vector either way
    assert read_vector("[1;2]") == [1.0, 2.0]


@pytest.mark.parametrize("raw", [10**5000, -(10**100)], ids=["5001-digits", "minus-101-digits"])
def test_a_huge_json_integer_is_invalid_not_an_exception(raw: int) -> None:
    with pytest.raises(ReadError, match="too long"):
        read_int(raw)
    with pytest.raises(ReadError, match="too long"):
        read_optional_int(raw)


def test_a_huge_json_integer_through_the_api_is_an_invalid_answer() -> None:
    # Before: the reader returned it and echoing it raised ValueError (Python's int-to-text digit limit).
    answer = {"pairs": "BOS→blue", "bos_scored": False, "eos_scored": True, "scored_count": 10**5000}
    result = api.grade("ch13.shift-pairs", 0, answer, "en")
    assert result["status"] == "invalid"
    assert [error["field"] for error in result["errors"]] == ["scored_count"]
    assert api.validate("ch13.shift-pairs", answer, "zh")["errors"][0]["message"] == "整数过长（超过 100 位）"


def test_a_whole_number_too_large_for_a_float_says_so() -> None:
    with pytest.raises(ReadError) as caught:
        read_int("1e20")
    assert "too large to be read exactly" in caught.value.message.en and "太大" in caught.value.message.zh
    assert read_int("603979776") == 603979776


@pytest.mark.parametrize(
    ("student", "reference", "close"),
    [
        (1.0015, 1.0, True),  # exactly at 5e-4 + 1e-3*1; 1.0015 - 1.0 is 0.0015000000000000568 in binary
        (0.9985, 1.0, True),
        (-1.0015, -1.0, True),
        (1001.0005, 1000.0, True),
        (1.0015001, 1.0, False),
        (1001.0005001, 1000.0, False),
        (0.0005, 0.0, True),
        (0.0005000001, 0.0, False),
    ],
)
def test_exactly_at_the_tolerance_is_inside(student: float, reference: float, close: bool) -> None:
    assert DEFAULT_TOLERANCE.close(student, reference) is close
    assert equal("number", read_number(repr(student)), reference) is close


def test_rounding_slack_is_tiny_for_a_strict_tolerance() -> None:
    strict = Tolerance(rtol=0.0, atol=1e-9)
    assert strict.close(1e6 + 1e-9, 1e6)
    assert not strict.close(1e6 + 2e-9, 1e6)


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("ln2^2", 3),
        ("√2^2", 2),
        ("√2²", 2),
        ("ln 50%", 5),
        ("2ln2^2", 4),
        ("ln e^2", 4),
        ("log2 8^2", 6),
    ],
)
def test_power_after_an_unbracketed_function_argument_is_ambiguous(text: str, position: int) -> None:
    # Before: "ln2^2" read as (ln 2)^2 = 0.48 although ln(2^2) = 1.39 is an equally common reading.
    with pytest.raises(ReadError) as caught:
        evaluate(text)
    assert "ambiguous" in caught.value.message.en and "歧义" in caught.value.message.zh
    assert caught.value.position == position


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ln(2)^2", A**2),
        ("ln(2^2)", 2 * A),
        ("sqrt(2)^2", 2.0),
        ("(ln2)^2", A**2),
        ("2^ln2", 2**A),
        ("ln2*2", 2 * A),
        ("ln(50%)", math.log(0.5)),
        ("e^2", math.e**2),
        ("a^2", A**2),
    ],
)
def test_bracketed_function_powers_still_read(text: str, expected: float) -> None:
    assert evaluate(text, SYMBOLS) == pytest.approx(expected, rel=1e-12)


def test_hints_for_thousands_separators_and_the_chinese_full_stop() -> None:
    with pytest.raises(ReadError) as caught:
        evaluate("1,000")
    assert "thousands separators" in caught.value.message.en and "千位" in caught.value.message.zh
    with pytest.raises(ReadError) as caught:
        evaluate("0。5")
    assert "decimal point as '.'" in caught.value.message.en and "半角" in caught.value.message.zh


def test_traditional_chinese_full_stop_word() -> None:
    assert read_tokens("blue key 句號 EOS") == ["blue", "key", ".", "EOS"]


def _ime_tokens(tokens: list[str]) -> str:
    """A token answer as typed in Chinese punctuation mode: 《eos》 for EOS, 。for the period, ，between."""
    return "，".join("《eos》" if token == "EOS" else "。" if token == "." else token for token in tokens)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_greedy_decode_typed_with_a_chinese_ime_scores_full_marks(seed: int) -> None:
    key = api.answer_key("ch13.greedy-decode", seed)
    answer = {"tokens": _ime_tokens(key["tokens"]), "stopped_by": "《eos》" if key["stopped_by"] == "EOS" else "上限"}
    result = api.grade("ch13.greedy-decode", seed, answer, "zh")
    assert result["status"] == "graded" and result["score"] == 1.0


def test_shift_pairs_typed_with_a_chinese_ime_scores_full_marks() -> None:
    key = api.answer_key("ch13.shift-pairs", 0)
    pairs = "，".join(f"{'《bos》' if a == 'BOS' else a}-》{_ime_tokens([b])}" for a, b in key["pairs"])
    answer = {
        "pairs": pairs,
        "bos_scored": "是" if key["bos_scored"] else "否",
        "eos_scored": "是" if key["eos_scored"] else "否",
        "scored_count": f"{key['scored_count']}。",
    }
    result = api.grade("ch13.shift-pairs", 0, answer, "zh")
    assert result["status"] == "graded" and result["score"] == 1.0


def test_read_kind_passes_every_new_notation_through() -> None:
    assert read_kind("tokens", "red 《eos》") == ["red", "EOS"]
    assert read_kind("matrix", "{{a}}", symbols=SYMBOLS) == [[A]]


@pytest.mark.parametrize(
    ("typed", "value"), [("1000²", 1_000_000), ("2⁷", 128), ("24576²", 603_979_776), ("１０", 10), ("12", 12)]
)
def test_whole_numbers_with_superscripts_are_powers_not_digits(typed: str, value: int) -> None:
    # NFKC turns "²" into "2": "1000²" used to be read as 10002, so the right answer scored 0.
    assert read_int(typed) == value


def test_enum_aliases_keep_the_first_key_that_lists_a_name() -> None:
    aliases = {"EOS": ("stop", "end"), "cap": ("END", "limit")}
    assert read_enum(" End. ", aliases) == "EOS" and read_enum("LIMIT", aliases) == "cap"
    assert read_enum("cap", aliases) == "cap"
    with pytest.raises(ReadError):
        read_enum("neither", aliases)


def test_a_one_field_answer_may_be_a_matrix_in_curly_brackets_but_not_broken_json_elsewhere() -> None:
    graded = api.grade("ch13.encoder-states", 0, "{{a,0},{0,a},{0,0}}", "en")
    assert graded["status"] == "graded" and graded["score"] == 1.0
    [error] = api.grade("ch13.shift-pairs", 0, "{x", "en")["errors"]
    assert error["message"] == "The answer starts with '{' but is not a valid JSON object."


@pytest.mark.parametrize(
    "typed",
    ["BOS➡blue, blue➡door, door➡., .➡EOS", "BOS➝blue, blue➝door, door➝., .➝EOS", "BOS⇨blue; blue↦door; door➞.; .➞EOS"],
)
def test_more_arrow_characters_separate_pairs(typed: str) -> None:
    assert read_pairs(typed) == SHIFTED


@pytest.mark.parametrize("typed", ["blue key full stop EOS", "blue, key, Full Stop, EOS", "blue key full  stop EOS"])
def test_full_stop_in_two_words_is_the_period_token(typed: str) -> None:
    assert read_tokens(typed) == ["blue", "key", ".", "EOS"]
    graded = api.grade("ch13.greedy-decode", 0, {"tokens": typed, "stopped_by": "EOS"}, "en")
    assert graded["parts"]["tokens"]["correct"]


def test_a_numbered_list_of_tokens_is_unreadable_not_graded() -> None:
    with pytest.raises(ReadError) as refused:
        read_tokens("1. blue 2. key 3. . 4. EOS")
    assert "numbered" in refused.value.message.en and "编了号" in refused.value.message.zh
    assert (
        api.grade("ch13.greedy-decode", 0, {"tokens": "1. blue 2. key 3. . 4. EOS", "stopped_by": "EOS"}, "en")[
            "status"
        ]
        == "invalid"
    )


@pytest.mark.parametrize(("typed", "value"), [("≈1.2448", 1.2448), ("约 1.2448", 1.2448), ("大约0.5", 0.5)])
def test_approximately_before_a_number_is_the_number(typed: str, value: float) -> None:
    assert read_number(typed) == value


@pytest.mark.parametrize("typed", ["1≈2", "≈", "≈ x"])
def test_approximately_is_not_a_wildcard(typed: str) -> None:
    with pytest.raises(ReadError):
        read_number(typed)


@pytest.mark.parametrize(
    "typed", ["b/d/a", "b|d|a", "1-b 2-d 3-a", "1 - b, 2 - d, 3 - a", "1b2d3a", "1=b 2=d 3=a", "1–b 2—d 3-a"]
)
def test_option_letters_in_more_notations(typed: str) -> None:
    assert read_choices(typed) == ["b", "d", "a"]


@pytest.mark.parametrize(
    "typed", ["(1)B (2)D (3)A", "（1）B（2）D（3）A", "[1]b [2]d [3]a", "(1) b, (2) d, (3) a", "（1）b、（2）d、（3）a"]
)
def test_option_letters_after_bracketed_item_numbers(typed: str) -> None:
    # Found by an audit: "(1)B (2)C …" was refused and the message quoted "(1.B(2.C…", text nobody typed.
    assert read_choices(typed) == ["b", "d", "a"]


@pytest.mark.parametrize("typed", ["1b3d", "a-b", "1b2", "(1)B (3)D", "(1)(2)B"])
def test_option_letters_still_refuse_what_they_cannot_place(typed: str) -> None:
    with pytest.raises(ReadError):
        read_choices(typed)


@pytest.mark.parametrize("typed", ["没有", "没", "不全是", "并非", "并不是"])
def test_chinese_negations_read_as_no(typed: str) -> None:
    assert read_bool(typed) is False


@pytest.mark.parametrize(
    "typed",
    ["h1=[a,0], h2=[0,a], h3=[0,0]", "h_1 = [a, 0]; h_2 = [0, a]; h_3 = [0, 0]", "s1: [a, 0] s2: [0, a] s3: [0, 0]"],
)
def test_rows_named_in_order_are_read_as_the_rows(typed: str) -> None:
    assert read_vectors(typed, SYMBOLS) == [[A, 0.0], [0.0, A], [0.0, 0.0]]
    assert api.grade("ch13.encoder-states", 0, {"states": typed}, "en")["score"] == 1.0


def test_rows_named_out_of_order_are_refused_not_reordered() -> None:
    with pytest.raises(ReadError) as refused:
        read_vectors("h2=[a,0], h1=[0,a]", SYMBOLS)
    assert "read 2, 1" in refused.value.message.en


@pytest.mark.parametrize(("typed", "value"), [("4倍", 4.0), ("4 倍。", 4.0), ("≈2.5倍", 2.5)])
def test_times_after_a_factor_is_the_factor(typed: str, value: float) -> None:
    assert read_number(typed) == value


@pytest.mark.parametrize(
    ("reader", "typed", "value"),
    [
        (read_int, "100万", 1_000_000),
        (read_int, "1.5亿", 150_000_000),
        (read_int, "4×1万", 40_000),
        (read_int, "100 万", 1_000_000),
        (read_number, "2万", 20_000.0),
        (read_number, "1/100万", 1e-6),
        (read_int, "1 000 000", 1_000_000),
        (read_int, "12 345", 12_345),
        (read_int, "1\u2009000", 1_000),
    ],
)
def test_chinese_large_number_units_and_spaced_thousands(reader: Any, typed: str, value: float) -> None:
    # Found by an audit: "100万" and "1 000 000" were unreadable; 万 and 亿 bind to the number before them, so
    # "1/100万" is one over a million.
    assert reader(typed) == value


@pytest.mark.parametrize("typed", ["万", "万100", "1 00 000", "1000 000", "12 34"])
def test_large_number_units_and_spaced_thousands_stay_strict(typed: str) -> None:
    with pytest.raises(ReadError):
        read_int(typed)
