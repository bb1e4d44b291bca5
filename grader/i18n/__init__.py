"""The one string catalogue of the service (student pages, API, teacher pages), in Chinese and English, its lookup
helper ``t``, and the sticky language choice (a cookie).

The catalogue is kept in a few files by area (``student_strings``, ``teacher_strings``, ``assignment_strings``,
``course_strings``, ``account_strings``, ``export_strings``, ``policy_strings``, ``staff_strings``) only
to keep each file readable; the keys form one namespace, and a key defined twice is refused when this module loads.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import Request

from exercises.i18n import DEFAULT_LANG, LANGS, Text
from grader.i18n.account_strings import ACCOUNT_UI
from grader.i18n.assignment_strings import ASSIGNMENT_UI
from grader.i18n.course_strings import COURSE_UI
from grader.i18n.export_strings import EXPORT_UI
from grader.i18n.lti_strings import LTI_UI
from grader.i18n.policy_strings import GRADEBOOK_UI, POLICY_UI
from grader.i18n.staff_strings import STAFF_UI
from grader.i18n.student_strings import STUDENT_UI
from grader.i18n.teacher_strings import TEACHER_UI

LANG_COOKIE = "lang"
LANG_COOKIE_MAX_AGE = 365 * 24 * 3600

PARTS: tuple[Mapping[str, Text], ...] = (
    STUDENT_UI,
    TEACHER_UI,
    ASSIGNMENT_UI,
    COURSE_UI,
    LTI_UI,
    ACCOUNT_UI,
    EXPORT_UI,
    POLICY_UI,
    GRADEBOOK_UI,
    STAFF_UI,
)


def _merged(parts: tuple[Mapping[str, Text], ...]) -> dict[str, Text]:
    """The parts as one mapping; a key in two parts would give one of them the other's text, so it is refused."""
    merged: dict[str, Text] = {}
    for part in parts:
        twice = sorted(set(merged) & set(part))
        if twice:
            raise ValueError(f"string keys defined twice: {', '.join(twice)}")
        merged.update(part)
    return merged


UI: dict[str, Text] = _merged(PARTS)


def t(key: str, lang: str | None, **values: object) -> str:
    """The UI string ``key`` in ``lang`` with ``values`` filled in; an unknown key is a programming error."""
    text = UI[key]
    return (text.format(**values) if values else text).get(lang)


def lang_of(request: Request) -> str:
    """The language this browser chose (cookie), Chinese by default."""
    chosen = request.cookies.get(LANG_COOKIE)
    return chosen if chosen in LANGS else DEFAULT_LANG


def js_strings(lang: str) -> dict[str, str]:
    """The strings the page's JavaScript needs, already in ``lang`` (placeholders left for the script)."""
    keys = [k for k in UI if k.startswith(("exercise.", "lab.", "attempts.", "assignment.progress_text", "substatus."))]
    return {key: UI[key].get(lang) for key in keys}
