"""Safe arithmetic for typed answers: a recursive-descent parser over ``expr_tokens``, never ``eval``."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from exercises.engine_errors import ReadError
from exercises.expr_tokens import ErrorAt, Token, tokenize
from exercises.i18n import Text
from exercises.typed_chars import normalise_with_map, without_invisible

MAX_LENGTH = 200
MAX_DEPTH = 50

FUNCTIONS: dict[str, Callable[[float], float]] = {
    "ln": math.log,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "sqrt": math.sqrt,
    "abs": abs,
    "tanh": math.tanh,
}
CONSTANTS = {"pi": math.pi, "π": math.pi, "e": math.e}
_NOT_FINITE_NAMES = {"nan", "inf", "infinity", "∞"}


def _short(value: float) -> str:
    """A number as shown inside a message."""
    return f"{value:.6g}"


class _Parser:
    """Recursive descent over the token list, evaluating as it goes."""

    def __init__(self, tokens: list[Token], symbols: Mapping[str, float], error: ErrorAt, advertise: bool = True):
        self.advertise = advertise  # list the accepted names when refusing an unknown one
        self.tokens = tokens
        self.symbols = symbols
        self.error = error
        self.index = 0
        self.depth = 0

    @property
    def token(self) -> Token:
        """The token under the cursor."""
        return self.tokens[self.index]

    def advance(self) -> Token:
        """Consume and return the current token."""
        token = self.tokens[self.index]
        self.index = min(self.index + 1, len(self.tokens) - 1)
        return token

    def checked(self, value: float, at: int) -> float:
        """Reject an intermediate result that overflowed to infinity."""
        if not math.isfinite(value):
            raise self.error(at, "数值溢出，结果不是有限数", "overflow: the result is not a finite number")
        return value

    def enter(self, at: int) -> None:
        """Track nesting so deeply nested input is refused before Python's recursion limit."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(at, "嵌套超过 {m} 层", "nested more than {m} levels deep", m=MAX_DEPTH)

    def parse(self) -> float:
        """The whole input must be one expression."""
        value = self.sum()
        if self.token.kind == ")":
            raise self.error(self.token.start, "多余的右括号", "unbalanced ')' with no matching '('")
        if self.token.kind != "end":
            raise self.error(
                self.token.start, "「{t}」前缺少运算符", "missing operator before '{t}'", t=self.token.text
            )
        return value

    def sum(self) -> float:
        """sum := product (('+'|'-') product)*"""
        value = self.product()
        while self.token.kind == "op" and self.token.text in "+-":
            op = self.advance()
            right = self.product()
            value = self.checked(value + right if op.text == "+" else value - right, op.start)
        return value

    def product(self) -> float:
        """product := signed (('*'|'/') signed)*"""
        value, _ = self.signed()
        while self.token.kind == "op" and self.token.text in "*/":
            op = self.advance()
            right, implicit = self.signed()
            if op.text == "*":
                value = self.checked(value * right, op.start)
                continue
            if implicit:  # "1/2a" could mean 1/(2a) or (1/2)a; make the student say which
                raise self.error(
                    op.start,
                    "「/」后的隐式乘法有歧义，请加括号，例如 1/(2a) 或 (1/2)a",
                    "implicit multiplication after '/' is ambiguous; add parentheses, e.g. 1/(2a) or (1/2)a",
                )
            if right == 0:
                raise self.error(op.start, "除以零", "division by zero")
            value = self.checked(value / right, op.start)
        return value

    def signed(self) -> tuple[float, bool]:
        """signed := ('+'|'-') signed | implicit; also says whether it was an implicit product."""
        if self.token.kind == "op" and self.token.text in "+-":
            op = self.advance()
            self.enter(op.start)
            value, implicit = self.signed()
            self.depth -= 1
            return (-value if op.text == "-" else value), implicit
        return self.implicit()

    def implicit(self) -> tuple[float, bool]:
        """implicit := power [power], only when a bare number is followed by a name or '(' (``2a``, ``2(3)``)."""
        start = self.index
        value = self.power()
        bare_number = self.tokens[start].kind == "num" and self.index == start + 1
        if bare_number and self.token.kind in ("name", "("):
            at = self.token.start
            return self.checked(value * self.power(), at), True
        return value, False

    def power(self) -> float:
        """power := primary ['%'] [('^'|'**') exponent], right-associative; ``28.8%`` is 0.288."""
        base = self.primary()
        if self.token.kind == "%":
            self.advance()
            base /= 100
        if self.token.kind == "op" and self.token.text == "^":
            op = self.advance()
            self.enter(op.start)
            exponent = self.exponent()
            self.depth -= 1
            try:
                return self.checked(math.pow(base, exponent), op.start)
            except OverflowError:
                raise self.error(op.start, "数值溢出", "overflow") from None
            except ValueError:
                raise self.error(
                    op.start,
                    "{b} 的 {x} 次方没有实数结果",
                    "{b} to the power {x} has no real value",
                    b=_short(base),
                    x=_short(exponent),
                ) from None
        return base

    def exponent(self) -> float:
        """exponent := ('+'|'-') exponent | power (no implicit product: ``2^2a`` is refused)."""
        if self.token.kind == "op" and self.token.text in "+-":
            op = self.advance()
            value = self.exponent()
            return -value if op.text == "-" else value
        return self.power()

    def primary(self) -> float:
        """primary := number | constant | symbol | function argument | '(' sum ')'"""
        token = self.token
        if token.kind == "num":
            self.advance()
            return self.checked(token.value, token.start)
        if token.kind == "(":
            self.advance()
            self.enter(token.start)
            value = self.sum()
            self.depth -= 1
            if self.token.kind != ")":
                raise self.error(token.start, "左括号没有配对的右括号", "'(' is never closed")
            self.advance()
            return value
        if token.kind == "name":
            return self.name()
        if token.kind == "end":
            raise self.error(
                token.start, "表达式不完整，末尾缺少数字", "incomplete expression: a number is missing at the end"
            )
        raise self.error(token.start, "「{t}」前缺少数字", "a number is missing before '{t}'", t=token.text)

    def name(self) -> float:
        """A symbol, a constant or a function applied to ``(expr)`` or to a bare number/name."""
        token = self.advance()
        if token.text in self.symbols:
            return float(self.symbols[token.text])
        lowered = "sqrt" if token.text == "√" else token.text.lower()
        if lowered in CONSTANTS:
            return CONSTANTS[lowered]
        if lowered in _NOT_FINITE_NAMES:
            raise self.error(
                token.start,
                "「{t}」不是有限数，不能作为答案",
                "'{t}' is not a finite number and is not accepted",
                t=token.text,
            )
        if lowered not in FUNCTIONS:
            if not self.advertise:  # a whole number is asked for: listing pi, e and ln would mislead
                raise self.error(token.start, "未知名称「{t}」", "unknown name '{t}'", t=token.text)
            accepted = ", ".join([*sorted(self.symbols), "pi", "e", *FUNCTIONS])
            raise self.error(
                token.start, "未知名称「{t}」；可用：{a}", "unknown name '{t}'; accepted: {a}", t=token.text, a=accepted
            )
        if self.token.kind == "(":
            argument = self.primary()
        elif self.token.kind in ("num", "name"):
            self.enter(token.start)
            first = self.index
            argument = self.primary()
            self.depth -= 1
            follower = self.token
            # "ln 1/0.288" is ln(1/0.288) in one reading and ln(1)/0.288 in another (the root sign binds only what
            # follows it: √2/2 is (√2)/2).
            divided = follower.kind == "op" and follower.text == "/" and token.text != "√"
            if follower.kind == "%" or (follower.kind == "op" and follower.text == "^") or divided:
                # "ln2^2" is ln(4) in one reading and (ln 2)^2 in another; "ln50%" likewise. Make the student say.
                shown = "".join(item.text for item in self.tokens[first : self.index])
                rest = "…" if follower.kind == "op" else ""
                raise self.error(
                    follower.start,
                    "函数 {f} 的参数没有括号，后面的「{o}」有歧义；请写成 {f}({a}{o}{r}) 或 {f}({a}){o}{r}",
                    "'{o}' after {f} with an unbracketed argument is ambiguous; write {f}({a}{o}{r}) or {f}({a}){o}{r}",
                    f=lowered,
                    a=shown,
                    o=follower.text,
                    r=rest,
                )
        else:
            raise self.error(token.start, "函数 {f} 缺少参数", "function {f} needs an argument", f=lowered)
        return self.apply(lowered, argument, token.start)

    def apply(self, function: str, argument: float, at: int) -> float:
        """Call a math function, turning domain and range errors into read errors."""
        if function in ("ln", "log", "log2", "log10") and argument <= 0:
            raise self.error(
                at,
                "{f} 的参数必须大于 0，读到 {x}",
                "{f} needs an argument above 0, read {x}",
                f=function,
                x=_short(argument),
            )
        if function == "sqrt" and argument < 0:
            raise self.error(
                at,
                "sqrt 的参数不能为负，读到 {x}",
                "sqrt needs an argument of at least 0, read {x}",
                x=_short(argument),
            )
        try:
            return self.checked(FUNCTIONS[function](argument), at)
        except OverflowError:
            raise self.error(at, "{f} 的结果溢出", "{f} overflows", f=function) from None


def evaluate(text: str, symbols: Mapping[str, float] | None = None, advertise: bool = True) -> float:
    """Read an arithmetic expression such as ``1/3``, ``ln2``, ``-a`` or ``2.5E+2`` into a finite float; without
    ``advertise``, an unknown name is refused without listing the math names (a whole number is asked for)."""
    return evaluate_within(text, symbols, text, lambda index: index, advertise)


def evaluate_within(
    text: str,
    symbols: Mapping[str, float] | None,
    full_text: str,
    to_full: Callable[[int], int],
    advertise: bool = True,
) -> float:
    """Evaluate ``text``, a piece of a longer input ``full_text``; error positions are mapped by ``to_full``."""
    stripped = text.strip()
    offset = len(text) - len(text.lstrip())
    if not stripped:
        if not full_text.strip():
            raise ReadError(Text("输入为空", "empty input"), 0, None)
        position = to_full(0)
        raise ReadError(
            Text("此处缺少数字（第 {n} 个字符处）", "a number is missing here (at character {n})").format(
                n=position + 1
            ),
            position,
            full_text[:position].strip() or None,
        )
    if len(stripped) > MAX_LENGTH:
        raise ReadError(
            Text("表达式过长：{n} 个字符，最多 {m} 个", "expression too long: {n} characters, at most {m}").format(
                n=len(stripped), m=MAX_LENGTH
            ),
            to_full(offset + MAX_LENGTH),
            None,
        )
    normalised, origin = normalise_with_map(stripped)
    if not normalised.strip():  # nothing but invisible characters
        if not without_invisible(full_text).strip():
            raise ReadError(Text("输入为空", "empty input"), 0, None)
        position = to_full(offset)
        raise ReadError(
            Text("此处缺少数字（第 {n} 个字符处）", "a number is missing here (at character {n})").format(
                n=position + 1
            ),
            position,
            full_text[:position].strip() or None,
        )

    def error(position: int, zh: str, en: str, **values: object) -> ReadError:
        original = to_full(offset + (origin[position] if position < len(origin) else len(stripped)))
        where = Text("（第 {n} 个字符处）", " (at character {n})").format(n=original + 1)
        message = Text(zh.format(**values) + where.zh, en.format(**values) + where.en)
        return ReadError(message, original, without_invisible(full_text[:original]).strip() or None)

    parser = _Parser(tokenize(normalised, error), symbols or {}, error, advertise)
    value = parser.parse()
    if not math.isfinite(value):
        raise error(len(normalised), "结果不是有限数", "the result is not a finite number")
    return value
