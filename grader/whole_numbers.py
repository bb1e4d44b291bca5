"""Reading a whole number someone typed (a form field, a path segment, a header, a custom LTI parameter)."""

from __future__ import annotations


def whole_number(text: str, most: int) -> int | None:
    """``text`` as a whole number from 0 to ``most``, if it is written in ASCII digits only (leading zeros
    allowed); None for anything else: a sign, spaces, a decimal point, or another script's digits, which
    ``str.isdigit`` accepts and ``int`` may refuse (``"²"``).

    The digits are counted before ``int()`` is called: Python refuses to convert a string of thousands of
    digits, and converting a long one costs time the answer does not need.
    """
    if not text.isascii() or not text.isdigit():
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(most)):
        return None
    value = int(digits)
    return value if value <= most else None
