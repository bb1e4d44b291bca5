"""Bilingual text: every string a student or teacher reads exists in Chinese and English."""

from __future__ import annotations

from dataclasses import dataclass

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"


def normalise_lang(lang: str | None) -> str:
    """Return a supported language code, falling back to Chinese."""
    return lang if lang in LANGS else DEFAULT_LANG


@dataclass(frozen=True)
class Text:
    """One message in both languages; ``format`` fills both the same way."""

    zh: str
    en: str

    def get(self, lang: str | None) -> str:
        """The message in ``lang`` (Chinese when the language is unknown)."""
        return self.en if normalise_lang(lang) == "en" else self.zh

    def format(self, **values: object) -> Text:
        """Both languages with the same placeholders filled in."""
        return Text(self.zh.format(**values), self.en.format(**values))

    def __add__(self, other: Text) -> Text:
        return Text(self.zh + other.zh, self.en + " " + other.en)
