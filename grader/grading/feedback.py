"""A submission's feedback in the reader's language, rendered from the messages stored with its result.

The worker stores each part's and each error's messages (ids and arguments) beside their texts; reading renders
them in the reader's language through the engine's catalogue. Nothing here grades again or generates a variant:
the stored result is the truth. Rows graded before the engine stored messages (before 1.11) keep the texts they
were graded with, in the language they were submitted in (no migration rewrites them; a regrade stores messages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from exercises import api as engine
from grader.models import Submission


@dataclass(frozen=True)
class Feedback:
    """A submission's per-part results and read errors, with texts in ``lang``."""

    parts: dict[str, Any]
    errors: list[Any]
    lang: str


def feedback_in(submission: Submission, lang: str) -> Feedback:
    """``submission``'s stored parts and errors with their texts in ``lang``, where their stored messages allow;
    otherwise every text in the submission's language (one language for the whole result)."""
    parts = {name: engine.texts_in(part, lang) for name, part in (submission.parts or {}).items()}
    errors = [engine.texts_in(error, lang) for error in submission.errors or []]
    if all(said for _, said in (*parts.values(), *errors)):
        return Feedback({name: part for name, (part, _) in parts.items()}, [error for error, _ in errors], lang)
    # In the submitted language a text with messages says what was stored, and one without is the stored text.
    original = submission.lang
    return Feedback(
        {name: engine.texts_in(part, original)[0] for name, part in (submission.parts or {}).items()},
        [engine.texts_in(error, original)[0] for error in submission.errors or []],
        original,
    )
