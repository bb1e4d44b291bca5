"""Golden tables and fuzzing for the per-kind input readers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exercises.engine_errors import ReadError
from exercises.readers import (
    READERS,
    display,
    read_bool,
    read_choice,
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
STOP_ALIASES = {"EOS": ["eos", "<eos>", "结束符"], "cap": ["max_steps", "上限", "步数上限"]}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("0.311199", 0.311199),
        ("1/3", 1 / 3),
        ("ln2", A),
        ("ln(2)", A),
        ("-a", -A),
        ("−a", -A),
        ("１/３", 1 / 3),
        ("sqrt(2)", math.sqrt(2)),
        ("exp(1)", math.e),
        ("pi", math.pi),
        (0.5, 0.5),
        (3, 3.0),
        ("  1e-3 ", 0.001),
    ],
)
def test_read_number(raw: object, expected: float) -> None:
    assert read_number(raw, SYMBOLS) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (True, "got true/false"),
        (None, "got null"),
        ({"x": 1}, "got an object"),
        ([1], "got a list"),
        (math.nan, "not a finite number"),
        (math.inf, "not a finite number"),
        (10**400, "not a finite number"),
        ("", "empty"),
        ("x" * 10_001, "too long"),
        ("ln(0)", "above 0"),
    ],
)
def test_read_number_errors(raw: object, fragment: str) -> None:
    with pytest.raises(ReadError, match=fragment.replace("(", r"\(")):
        read_number(raw, SYMBOLS)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("4", 4),
        (4, 4),
        (4.0, 4),
        (" ４ ", 4),
        ("-3", -3),
        ("64^2", 4096),
        ("603,979,776", 603979776),
        ("12288/96", 128),
        ("1e3", 1000),
    ],
)
def test_read_int(raw: object, expected: int) -> None:
    value = read_int(raw)
    assert value == expected and type(value) is int


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (4.5, "read 4.5"),
        ("4.5", "read 4.5"),
        (True, "got true/false"),
        ("four", "unknown name 'four'"),
        ("", "empty"),
        ("1" * 101, "too long"),
        (math.nan, "not a finite number"),
    ],
)
def test_read_int_errors(raw: object, fragment: str) -> None:
    with pytest.raises(ReadError, match=fragment):
        read_int(raw)


@pytest.mark.parametrize("raw", [None, "null", "None", "无", "没有", "不存在", "-", "—", "never", "N/A", " 无 "])
def test_read_optional_int_null(raw: object) -> None:
    assert read_optional_int(raw) is None


@pytest.mark.parametrize(("raw", "expected"), [("2", 2), (0, 0), ("０", 0)])
def test_read_optional_int_value(raw: object, expected: int) -> None:
    assert read_optional_int(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "x", True])
def test_read_optional_int_errors(raw: object) -> None:
    with pytest.raises(ReadError):
        read_optional_int(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (True, True),
        (False, False),
        ("true", True),
        ("FALSE", False),
        ("Yes", True),
        ("no", False),
        ("y", True),
        ("n", False),
        ("T", True),
        ("f", False),
        ("1", True),
        ("0", False),
        ("是", True),
        ("否", False),
        ("对", True),
        ("错", False),
        ("能", True),
        ("不能", False),
        ("会", True),
        ("不会", False),
        ("真", True),
        ("假", False),
        ("是。", True),
        ("ｔｒｕｅ", True),
    ],
)
def test_read_bool(raw: object, expected: bool) -> None:
    assert read_bool(raw) is expected


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (1, "got a number"),
        (0, "got a number"),
        ("maybe", "cannot read 'maybe'"),
        ("", "empty"),
        (None, "got null"),
    ],
)
def test_read_bool_errors(raw: object, fragment: str) -> None:
    with pytest.raises(ReadError, match=fragment):
        read_bool(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("door", "door"),
        (" Door ", "door"),
        ("。", "."),
        ("句号", "."),
        ("<eos>", "EOS"),
        ("ＥＯＳ", "EOS"),
        ("</s>", "EOS"),
        ("<s>", "BOS"),
        ("钥匙", "钥匙"),
        ('"key"', "key"),
    ],
)
def test_read_token(raw: str, expected: str) -> None:
    assert read_token(raw) == expected


@pytest.mark.parametrize(
    ("raw", "fragment", "interpreted"),
    [
        ("door.", "read 2", "door ."),
        ("blue door", "read 2", "blue door"),
        ("", "empty", None),
        (3, "got a number", None),
    ],
)
def test_read_token_errors(raw: object, fragment: str, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment) as caught:
        read_token(raw)
    assert caught.value.interpreted == interpreted


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("blue door . EOS", ["blue", "door", ".", "EOS"]),
        ("blue, door, 。, EOS", ["blue", "door", ".", "EOS"]),
        ("blue，door，。，EOS", ["blue", "door", ".", "EOS"]),
        ("blue、door；.；EOS", ["blue", "door", ".", "EOS"]),
        ("[blue, door, ., EOS]", ["blue", "door", ".", "EOS"]),
        ("［blue，door，．，ＥＯＳ］", ["blue", "door", ".", "EOS"]),
        ("blue door。EOS", ["blue", "door", ".", "EOS"]),
        ("blue door. EOS", ["blue", "door", ".", "EOS"]),
        ("blue door.<eos>", ["blue", "door", ".", "EOS"]),
        ("Blue Door . </s>", ["blue", "door", ".", "EOS"]),
        ("红色 钥匙 。", ["红色", "钥匙", "."]),
        ('["blue","door"]', ["blue", "door"]),
        (["blue", "<EOS>"], ["blue", "EOS"]),
        ("[]", []),
        ([], []),
    ],
)
def test_read_tokens(raw: object, expected: list[str]) -> None:
    assert read_tokens(raw) == expected


@pytest.mark.parametrize(
    ("raw", "fragment", "position", "interpreted"),
    [
        ("", "empty", 0, None),
        ("blue (door", "never closed", 5, "blue"),
        ("blue door]", "no matching", 9, "blue door"),
        ("blue (door)", "token 2", 5, "blue"),
        (["blue", 3], "item 2", None, "blue"),
        (["blue", "door key"], "item 2", None, "blue"),
        ({"tokens": []}, "got an object", None, None),
        (["x"] * 1001, "too long", None, None),
    ],
)
def test_read_tokens_errors(raw: object, fragment: str, position: int | None, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment) as caught:
        read_tokens(raw)
    assert caught.value.position == position
    assert caught.value.interpreted == interpreted
    if position is not None and raw:
        assert f"character {position + 1}" in caught.value.message.en


SHIFTED = [("BOS", "blue"), ("blue", "door"), ("door", "."), (".", "EOS")]


@pytest.mark.parametrize(
    "raw",
    [
        "BOS→blue, blue->door, door→., .→EOS",
        "BOS→blue\nblue→door\ndoor→.\n.→EOS",
        "BOS=>blue; blue⇒door; door⟶.; .→EOS",
        "BOS→blue；blue→door；door→。；。→EOS",
        "BOS→blue，blue→door，door→。，。→EOS",
        "<bos> → blue, blue → door, door → 。, 。 → <eos>",
        "BOS＞blue、blue＞door、door＞.、.＞EOS",
        "BOS: blue\nblue: door\ndoor: .\n.: EOS",
        "BOS：blue；blue：door；door：。；。：EOS",
        "(BOS, blue), (blue, door), (door, .), (., EOS)",
        "[(BOS, blue), (blue, door), (door, .), (., EOS)]",
        "[[BOS, blue], [blue, door], [door, .], [., EOS]]",
        "[BOS→blue, blue→door, door→., .→EOS]",
        '[["BOS","blue"],["blue","door"],["door","."],[".","EOS"]]',
        [["BOS", "blue"], ["blue", "door"], ["door", "."], [".", "EOS"]],
        ["BOS→blue", "blue→door", "door→.", ".→EOS"],
    ],
)
def test_read_pairs(raw: object) -> None:
    assert read_pairs(raw) == SHIFTED


@pytest.mark.parametrize(
    ("raw", "fragment", "interpreted"),
    [
        ("BOS→blue→door", "pair 2", "BOS→blue"),
        ("BOS→blue, blue door", "pair 2", "BOS→blue"),
        ("BOS→blue, blue→", "pair 2 is incomplete", "BOS→blue"),
        ("BOS→blue, door.→EOS", "period as its own token", "BOS→blue"),
        ("(BOS, blue), (blue door key)", "exactly two tokens, read 3", "BOS→blue"),
        ("", "empty", None),
        ([["BOS"]], "item 1", None),
        ([["BOS", "blue"], 5], "item 2", "BOS→blue"),
    ],
)
def test_read_pairs_errors(raw: object, fragment: str, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment) as caught:
        read_pairs(raw)
    assert caught.value.interpreted == interpreted


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("[0, 0.693]", [0.0, 0.693]),
        ("0, 0.693", [0.0, 0.693]),
        ("0 0.693", [0.0, 0.693]),
        ("(a, 0)", [A, 0.0]),
        ("[-a,a]", [-A, A]),
        ("［０，ａ］", [0.0, A]),
        ("［０．５，１］", [0.5, 1.0]),
        ([0, "ln2"], [0.0, A]),
        ('[0, "ln2"]', [0.0, A]),
        ("[−a, ln 2]", [-A, A]),
        ("1/3, 2/3", [1 / 3, 2 / 3]),
        ("1、2", [1.0, 2.0]),
        ("(1+2)*3, 4", [9.0, 4.0]),
        # A column or a single row written for a vector (the rnn prompt speaks of column vectors).
        ("[[1.25], [-0.75]]", [1.25, -0.75]),
        ([[1.25], [-0.75]], [1.25, -0.75]),
        ("[[1.25, -0.75]]", [1.25, -0.75]),
        ([[0, "ln2"]], [0.0, A]),
        ("[[ln2], [0]]", [A, 0.0]),
        ("[[a], [-a]]", [A, -A]),
        ("[(1), (2)]", [1.0, 2.0]),
        # The root sign stays with its argument in a list split at spaces, and works before a name.
        ("1 √2", [1.0, math.sqrt(2)]),
        ("√2 1/√2", [math.sqrt(2), 1 / math.sqrt(2)]),
        ("2√2, √e", [2 * math.sqrt(2), math.sqrt(math.e)]),
        ("√π √(4)", [math.sqrt(math.pi), 2.0]),
    ],
)
def test_read_vector(raw: object, expected: list[float]) -> None:
    assert read_vector(raw, SYMBOLS) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("raw", "fragment", "position", "interpreted"),
    [
        ("[0, foo]", "number 2: unknown name 'foo'", 4, "[0]"),
        ("[0,,1]", "number 2: missing", 3, "[0]"),
        ("[0, 1/0]", "number 2: division by zero", 5, "[0]"),
        ("[1, 2", "never closed", 0, None),
        ("[]", "empty", None, "[]"),
        ("", "empty", 0, None),
        ([0, True], "number 2", None, "[0]"),
        ([0, [1]], "number 2", None, "[0]"),
        ([math.nan], "number 1", None, None),
        ("[[1, 2], [3, 4]]", "expected here, but this reads as a 2×2 matrix", None, "[[1, 2], [3, 4]]"),
        ([[1, 2], [3]], "reads as 2 rows of different lengths", None, "[[1, 2], [3]]"),
    ],
)
def test_read_vector_errors(raw: object, fragment: str, position: int | None, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment) as caught:
        read_vector(raw, SYMBOLS)
    assert caught.value.position == position
    assert caught.value.interpreted == interpreted


@pytest.mark.parametrize(
    "raw",
    [
        "[[1,2],[3,4]]",
        "[1,2],[3,4]",
        "[1,2]; [3,4]",
        "[1,2] [3,4]",
        "1 2\n3 4",
        "1, 2\n3, 4",
        "1, 2; 3, 4",
        "［［１，２］，［３，４］］",
        [[1, 2], [3, 4]],
        [["1", "2"], [3, "4"]],
        "\n1 2\n\n3 4\n",
        "(1, 2), (3, 4)",
    ],
)
def test_read_matrix(raw: object) -> None:
    assert read_matrix(raw) == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize(("raw", "expected"), [("1, 2", [[1.0, 2.0]]), ("[1, 2]", [[1.0, 2.0]]), ("[[a]]", [[A]])])
def test_read_matrix_single_row(raw: str, expected: list[list[float]]) -> None:
    assert read_matrix(raw, SYMBOLS) == expected


@pytest.mark.parametrize(
    ("raw", "fragment", "interpreted"),
    [
        ("[1,2],[3,4,5]", "row 2 has 3 numbers but row 1 has 2", "[[1, 2]]"),
        ("1 2\n3", "row 2 has 1 numbers", "[[1, 2]]"),
        ("[1,2],[3,x]", "row 2, number 2: unknown name 'x'", "[3]"),
        ("[1,2] 5", "row 2 should be in brackets", "[1,2]"),
        ([[1, 2], 3], "row 2 should be a list", "[[1, 2]]"),
        ("[[]]", "row 1 is empty", None),
        ("", "empty", None),
    ],
)
def test_read_matrix_errors(raw: object, fragment: str, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment.replace("[", r"\[")) as caught:
        read_matrix(raw)
    assert caught.value.interpreted == interpreted


def test_read_vectors_allows_ragged_rows_for_the_comparator() -> None:
    assert read_vectors("[a,0], [0,a], [0,0,0]", SYMBOLS) == [[A, 0.0], [0.0, A], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("b", "b"),
        ("B", "b"),
        ("(b)", "b"),
        ("b.", "b"),
        ("b)", "b"),
        ("Ｂ", "b"),
        ("（Ｂ）", "b"),
        (" c ", "c"),
    ],
)
def test_read_choice(raw: str, expected: str) -> None:
    assert read_choice(raw) == expected


@pytest.mark.parametrize("raw", ["", "bb", "1", "ab", 2, None, "2b"])
def test_read_choice_errors(raw: object) -> None:
    with pytest.raises(ReadError):
        read_choice(raw)


@pytest.mark.parametrize(
    "raw", ["a, c, b", "a c b", "acb", "ACB", "a，c，b", "1a 2c 3b", "[a, c, b]", '["a","c","b"]', ["a", "C", "(b)"]]
)
def test_read_choices(raw: object) -> None:
    assert read_choices(raw) == ["a", "c", "b"]


@pytest.mark.parametrize(
    ("raw", "fragment", "interpreted"),
    [
        ("a, cc, b", "item 2", "a"),
        ("1a 3c", "should be numbered 2", "a"),
        (["a", 1], "item 2", "a"),
        ("", "empty", None),
    ],
)
def test_read_choices_errors(raw: object, fragment: str, interpreted: str | None) -> None:
    with pytest.raises(ReadError, match=fragment) as caught:
        read_choices(raw)
    assert caught.value.interpreted == interpreted


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("EOS", "EOS"), ("<eos>", "EOS"), ("结束符", "EOS"), ("CAP", "cap"), ("步数上限", "cap"), ("max_steps", "cap")],
)
def test_read_enum(raw: str, expected: str) -> None:
    assert read_enum(raw, STOP_ALIASES) == expected
    assert read_kind("enum", raw, aliases=STOP_ALIASES) == expected


def test_read_enum_error_lists_accepted_values() -> None:
    with pytest.raises(ReadError) as caught:
        read_enum("period", STOP_ALIASES)
    assert "EOS, cap" in caught.value.message.en and "EOS, cap" in caught.value.message.zh


@pytest.mark.parametrize(
    ("kind", "value", "lang", "shown"),
    [
        ("number", 1 / 3, "zh", "0.333333"),
        ("number", A, "en", "0.693147"),
        ("number", -0.0, "en", "0"),
        ("int", 4, "en", "4"),
        ("optional_int", None, "en", "null"),
        ("optional_int", None, "zh", "无"),
        ("bool", True, "en", "yes"),
        ("bool", False, "en", "no"),
        ("bool", True, "zh", "是"),
        ("bool", False, "zh", "否"),
        ("tokens", ["blue", "door", ".", "EOS"], "en", "blue door . EOS"),
        ("pairs", [("BOS", "blue"), ("blue", "door")], "en", "BOS→blue, blue→door"),
        ("vector", [0.0, A], "en", "[0, 0.693147]"),
        ("matrix", [[1.0, 2.0], [3.0, 4.0]], "en", "[[1, 2], [3, 4]]"),
        ("choices", ["a", "c", "b"], "en", "a, c, b"),
        ("token", "EOS", "zh", "EOS"),
    ],
)
def test_display(kind: str, value: object, lang: str, shown: str) -> None:
    assert display(kind, value, lang) == shown


@pytest.mark.parametrize(
    ("kind", "raw", "expected"),
    [
        ("number", "-a", -A),
        ("vector", "[a, 0]", [A, 0.0]),
        ("matrix", "[[a]]", [[A]]),
        ("int", "4", 4),
        ("tokens", "blue EOS", ["blue", "EOS"]),
        ("choice", "B", "b"),
    ],
)
def test_read_kind_dispatch(kind: str, raw: object, expected: object) -> None:
    assert read_kind(kind, raw, symbols=SYMBOLS) == expected


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=20,
)
READ_TEXT = st.text(
    alphabet=st.sampled_from(list("abBOSE<>/→-=,;，。.、 \n[](){}\"'0123456789+*^a是否ｂ")), max_size=40
)


@pytest.mark.parametrize("kind", sorted(READERS))
@settings(max_examples=150, deadline=None)
@given(raw=JSON_VALUES | st.text(max_size=60) | READ_TEXT)
def test_fuzz_every_reader_returns_or_raises_read_error(kind: str, raw: object) -> None:
    try:
        value = read_kind(kind, raw, symbols=SYMBOLS)
    except ReadError as error:
        assert error.message.zh and error.message.en
    else:
        assert isinstance(display(kind, value, "en"), str)


@pytest.mark.parametrize(
    ("kind", "raw", "message", "interpreted"),
    [
        ("choices", "b, e, a", "item 2: 'e' is not one of the options a, b, c, d", "b"),
        ("choices", "z", "item 1: 'z' is not one of the options a, b, c, d", None),
        ("choice", "(e)", "'e' is not one of the options a, b, c, d", None),
    ],
)
def test_a_letter_that_is_not_offered_cannot_be_read(
    kind: str, raw: str, message: str, interpreted: str | None
) -> None:
    with pytest.raises(ReadError) as caught:
        read_kind(kind, raw, options=("a", "b", "c", "d"))
    assert caught.value.message.en == message
    assert caught.value.interpreted == interpreted


def test_offered_letters_read_as_without_options() -> None:
    assert read_kind("choices", "b, d, a", options=("a", "b", "c", "d")) == read_kind("choices", "b, d, a")
    assert read_kind("choices", "e, f") == ["e", "f"]  # no options named: any letter reads
