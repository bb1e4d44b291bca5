"""The shortcuts for plain ASCII text read it exactly as the character-by-character path does.

Most answers are typed in ASCII, so the reader skips its per-character normalisation for them; a shortcut that
read one character differently would change what a student's answer means. Each case here puts the same ASCII text
through the shortcut and, with one non-ASCII character appended (``é``, which NFKC and lower case leave alone),
through the general path, and compares everything but that last character.
"""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest

from exercises.engine_errors import ReadError
from exercises.text_input import ALLOWED_CONTROLS, BIDI_CONTROLS, refuse_unreadable
from exercises.typed_chars import normalise_with_map
from exercises.unit_text import view

MARK = "é"
ALPHABET = [chr(code) for code in range(128)]


def _texts(count: int) -> list[str]:
    """Every ASCII character alone, then ``count`` random ASCII strings (slashes and spaces among them)."""
    rng = random.Random(20261203)
    common = list("aB /x1.\t:-=,[]()^*") * 4
    return ALPHABET + ["".join(rng.choice(common + ALPHABET) for _ in range(rng.randint(0, 16))) for _ in range(count)]


@pytest.mark.parametrize("arithmetic", [True, False])
def test_normalising_ascii_matches_the_character_path(arithmetic: bool) -> None:
    for text in _texts(3000):
        shortcut = normalise_with_map(text, arithmetic)
        general, origin = normalise_with_map(text + MARK, arithmetic)
        assert shortcut == (general[:-1], origin[:-1]), repr(text)


def test_the_view_of_ascii_matches_the_character_path() -> None:
    for text in _texts(3000):
        # The mark goes after a letter so that no space is dropped beside it.
        general, origin = view(text + "q" + MARK)
        assert view(text + "q") == (general[:-1], origin[:-1]), repr(text)


def test_printable_text_never_holds_what_refuse_unreadable_refuses() -> None:
    refused = [
        char
        for char in map(chr, range(sys.maxunicode + 1))
        if char.isprintable()
        and (char in BIDI_CONTROLS or (unicodedata.category(char) == "Cc" and char not in ALLOWED_CONTROLS))
    ]
    assert refused == []
    refuse_unreadable("0.5 nats")  # printable: nothing to refuse
    with pytest.raises(ReadError):
        refuse_unreadable("0.5\u202enats")
