"""Golden table and fuzzing for the safe arithmetic parser."""

from __future__ import annotations

import contextlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exercises.engine_errors import ReadError
from exercises.expr import MAX_DEPTH, MAX_LENGTH, evaluate

LN2 = math.log(2)
SYMBOLS = {"a": LN2}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.311199", 0.311199),
        ("4", 4.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e-3", 0.001),
        ("2.5E+2", 250.0),
        ("1/3", 1 / 3),
        ("１/３", 1 / 3),
        ("１．５", 1.5),
        ("ln2", LN2),
        ("ln 2", LN2),
        ("ln(2)", LN2),
        ("LN(2)", LN2),
        ("log(2)", LN2),
        ("log2", LN2),
        ("log2 8", 3.0),
        ("log2(8)", 3.0),
        ("log10(1000)", 3.0),
        ("a", LN2),
        ("-a", -LN2),
        ("−a", -LN2),
        ("–a", -LN2),
        ("－ａ", -LN2),
        ("2a", 2 * LN2),
        ("-2a", -2 * LN2),
        ("2(3)", 6.0),
        ("2sqrt(2)", 2 * math.sqrt(2)),
        ("2ln2", 2 * LN2),
        ("sqrt(2)", math.sqrt(2)),
        ("sqrt2", math.sqrt(2)),
        ("√2", math.sqrt(2)),
        ("exp(1)", math.e),
        ("e", math.e),
        ("2e", 2 * math.e),
        ("pi", math.pi),
        ("PI", math.pi),
        ("π", math.pi),
        ("2π", 2 * math.pi),
        ("abs(-3)", 3.0),
        ("2^3^2", 512.0),
        ("2**3", 8.0),
        ("2^-1", 0.5),
        ("-2^2", -4.0),
        ("3²", 9.0),
        ("2³", 8.0),
        ("10⁻³", 0.001),
        ("3×4÷2", 6.0),
        ("3·4", 12.0),
        ("½", 0.5),
        ("（1+2）*3", 9.0),
        ("1 - 2 - 3", -4.0),
        ("8 / 4 / 2", 1.0),
        ("-(0.4*ln(0.4))", -0.4 * math.log(0.4)),
        ("  ln(0.8)+ln(0.9)  ", math.log(0.8) + math.log(0.9)),
    ],
)
def test_evaluates(text: str, expected: float) -> None:
    assert evaluate(text, SYMBOLS) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("text", "position", "fragment", "interpreted"),
    [
        ("", 0, "empty", None),
        ("   ", 0, "empty", None),
        ("foo", 0, "unknown name 'foo'", None),
        ("1 + foo", 4, "unknown name 'foo'", "1 +"),
        ("A", 0, "accepted: a, pi, e, ln", None),
        ("(1+2", 0, "never closed", None),
        ("1+2)", 3, "unbalanced ')'", "1+2"),
        ("1+", 2, "missing at the end", "1+"),
        ("*2", 0, "missing before '*'", None),
        ("1 2", 2, "missing operator", "1"),
        ("1/0", 1, "division by zero", "1"),
        ("1/(2-2)", 1, "division by zero", "1"),
        ("ln0", 0, "above 0", None),
        ("ln(-1)", 0, "above 0", None),
        ("sqrt(-1)", 0, "at least 0", None),
        ("(-8)^(1/3)", 4, "no real value", "(-8)"),
        ("1e999", 0, "not a finite number", None),
        ("10^400", 2, "overflow", "10"),
        ("exp(1000)", 0, "overflows", None),
        ("1e308*10", 5, "not a finite number", "1e308"),
        ("nan", 0, "not a finite number", None),
        ("inf", 0, "not a finite number", None),
        ("∞", 0, "not a finite number", None),
        ("1/2a", 1, "ambiguous", "1"),
        ("ln", 0, "needs an argument", None),
        ("1,5", 1, "write decimals with '.'", "1"),
        ("1。5", 1, "unexpected character '。'", "1"),
        ("x" * (MAX_LENGTH + 1), MAX_LENGTH, "too long", None),
        ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), MAX_DEPTH, "nested more than", "(" * MAX_DEPTH),
        ("-" * (MAX_DEPTH + 5) + "1", MAX_DEPTH, "nested more than", "-" * MAX_DEPTH),
        ("１＋ｆｏｏ", 2, "unknown name 'foo'", "１＋"),
        ("2²ｘ", 2, "missing operator", "2²"),
    ],
)
def test_read_errors(text: str, position: int, fragment: str, interpreted: str | None) -> None:
    with pytest.raises(ReadError) as caught:
        evaluate(text, SYMBOLS)
    error = caught.value
    assert error.position == position
    assert fragment in error.message.en
    assert error.interpreted == interpreted
    assert error.message.zh and error.message.zh != error.message.en
    if text.strip() and len(text) <= MAX_LENGTH:
        assert f"character {position + 1}" in error.message.en
        assert f"第 {position + 1} 个字符" in error.message.zh


def test_symbols_are_case_sensitive_but_functions_are_not() -> None:
    assert evaluate("Ln(a)", {"a": 2.0}) == pytest.approx(LN2)
    with pytest.raises(ReadError, match="unknown name 'A'"):
        evaluate("A", {"a": 2.0})


def test_symbol_overrides_constant() -> None:
    assert evaluate("e", {"e": 5.0}) == 5.0


def test_never_uses_python_evaluation() -> None:
    for text in ("__import__('os')", "().__class__", "[1]", "1 if 1 else 0", "lambda: 1"):
        with pytest.raises(ReadError):
            evaluate(text)


@settings(max_examples=400)
@given(st.text(max_size=60))
def test_fuzz_text_gives_float_or_read_error(text: str) -> None:
    try:
        value = evaluate(text, SYMBOLS)
    except ReadError as error:
        assert error.message.zh and error.message.en
        assert error.position is None or 0 <= error.position <= len(text)
    else:
        assert math.isfinite(value)


@settings(max_examples=400)
@given(st.text(alphabet="0123456789.eE+-*/^()πa lnsqrtexpog２²−× ", max_size=40))
def test_fuzz_arithmetic_alphabet(text: str) -> None:
    with contextlib.suppress(ReadError):
        assert math.isfinite(evaluate(text, SYMBOLS))
