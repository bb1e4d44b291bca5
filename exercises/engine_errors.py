"""Errors raised by the engine; each carries a bilingual message for the person who typed the input."""

from __future__ import annotations

from typing import Any

from exercises.i18n import Text


class ReadError(ValueError):
    """Raised when typed input cannot be read; says where, why and what could be read."""

    def __init__(self, message: Text, position: int | None = None, interpreted: str | None = None):
        super().__init__(message.en)
        self.message = message
        self.position = position
        self.interpreted = interpreted

    def to_dict(self, lang: str, field: str | None = None) -> dict[str, Any]:
        """JSON form used in an ``invalid`` result's ``errors`` list."""
        return {
            "field": field,
            "message": self.message.get(lang),
            "position": self.position,
            "interpreted": self.interpreted,
        }


class UnknownExercise(KeyError):
    """Raised for an exercise id that is not in the registry."""


class BadSeed(ValueError):
    """Raised for a seed that is not a non-negative integer below 2**63."""
