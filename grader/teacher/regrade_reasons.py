"""A regrade change's reason in the page's language.

grader.grading.regrade stores each reason as English text with raw field ids ("causal_pairs: ✓ → ✗ 0.00; growth: ✓ → ✗
0.00 (kept: never lower)"), which the grade log keeps as it is. The report re-words it when shown: fields by their
labels, part scores as percentages, statuses and the kept reason in words. Anything it does not recognise (a reason
from an older format, say) is shown as stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from exercises import api as engine
from grader.grading import regrade
from grader.i18n import t
from grader.models import SubmissionStatus
from grader.percent import shown_percent
from grader.ui.exercise_catalogue import field_labels

STATUSES = frozenset(status.value for status in SubmissionStatus)
_KEPT = re.compile(
    re.escape(regrade.KEPT).replace(r"\{reason\}", "(?P<reason>.*)").replace(r"\{why\}", "(?P<why>.+)") + r"\Z",
    re.DOTALL,
)
_OVER_LIMIT = re.compile(re.escape(regrade.KEPT_OVER_LIMIT).replace(r"\{allowed\}", r"(?P<allowed>\d+)") + r"\Z")
_STATUS = re.compile(r"(?P<old>\w+) → (?P<new>\w+)\Z")
_PART = re.compile(r"(?P<field>[\w.-]+): (?P<before>.+?) → (?P<after>.+)\Z")
_VERDICT = re.compile(r"(?:(?P<wrong>✗ (?P<score>\d+(?:\.\d+)?)(?: \[(?P<tag>[^\]]+)\])?)|✓|—)\Z")


@dataclass(frozen=True)
class ShownReason:
    """What changed, and (for a change kept back) why it was not applied; None when applied or not recognised."""

    why: str
    kept: str | None = None


def _verdict(text: str, exercise_id: str, lang: str) -> str | None:
    """A stored part verdict (✓, —, or ✗ with its score and tag) with the score as a percentage and the tag by its
    short name; None if it is not one."""
    match = _VERDICT.match(text)
    if match is None:
        return None
    if not match["wrong"]:
        return text
    shown = f"✗ {shown_percent(float(match['score']))}%"
    tag = match["tag"]
    return f"{shown} [{engine.misconception_name(exercise_id, tag, lang) or tag}]" if tag else shown


def _segment(text: str, exercise_id: str, lang: str, labels: dict[str, str]) -> str:
    """One "; "-separated piece of a stored reason (a status change or a part's verdict change), re-worded."""
    status = _STATUS.match(text)
    if status and status["old"] in STATUSES and status["new"] in STATUSES:
        return t(
            "regrade.reason_status",
            lang,
            old=t(f"substatus.{status['old']}", lang),
            new=t(f"substatus.{status['new']}", lang),
        )
    part = _PART.match(text)
    if part:
        before, after = (_verdict(part[side], exercise_id, lang) for side in ("before", "after"))
        if before is not None and after is not None:
            label = labels.get(part["field"], part["field"])
            return t("regrade.reason_part", lang, label=label, before=before, after=after)
    return text


def _kept(why: str, lang: str) -> str | None:
    """Why a change was kept back, in ``lang``; None for a wording this module does not know."""
    if why == regrade.KEPT_NEVER_LOWER:
        return t("regrade.kept_never_lower", lang)
    over = _OVER_LIMIT.match(why)
    return t("regrade.kept_over_limit", lang, n=int(over["allowed"])) if over else None


def shown_reason(reason: str, exercise_id: str, lang: str, applied: bool) -> ShownReason:
    """A stored regrade reason for the report in ``lang`` (fields named by their labels for ``exercise_id``)."""
    body, kept = reason, None
    if not applied:
        match = _KEPT.match(reason)
        kept = _kept(match["why"], lang) if match else None
        if kept is None:  # an unknown kept wording: the whole reason as stored, so nothing of it is lost
            return ShownReason(reason)
        body = match["reason"] if match else reason
    if body == regrade.WEIGHTING_CHANGED:
        return ShownReason(t("regrade.reason_weighting", lang), kept)
    labels = field_labels(exercise_id, lang)
    pieces = [_segment(piece, exercise_id, lang, labels) for piece in body.split("; ")]
    return ShownReason(t("regrade.reason_separator", lang).join(pieces), kept)
