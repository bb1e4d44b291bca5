"""The grading-policy fields of the assignment form: element-wise partial credit and follow-through credit.

A field left out of the post keeps the assignment's setting (the default for a new one), so that a form or client
written before policies existed changes nothing; a value that is not one of the choices is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.models import Assignment, FollowThroughCredit

PARTIAL_CHOICES = ("on", "off")
FOLLOW_THROUGH_CHOICES = tuple(c.value for c in FollowThroughCredit)


@dataclass(frozen=True)
class PolicySettings:
    """Checked policy settings, ready to store on an Assignment."""

    partial_credit: bool = True
    follow_through_credit: str = FollowThroughCredit.FULL.value


def policy_texts(assignment: Assignment | None) -> tuple[str, str]:
    """The two fields as the form shows them for ``assignment`` (the defaults for a new one)."""
    if assignment is None:
        return "on", FollowThroughCredit.FULL.value
    return ("on" if assignment.partial_credit else "off"), assignment.follow_through_credit


def check_policy(partial: str, follow_through: str, errors: dict[str, str]) -> PolicySettings:
    """The settings from the form's ``partial_credit`` ("on"/"off") and ``follow_through`` texts; a bad one gets
    an error key in ``errors``."""
    if partial not in PARTIAL_CHOICES:
        errors["partial_credit"] = "gpolicy.err_choice"
    if follow_through not in FOLLOW_THROUGH_CHOICES:
        errors["follow_through"] = "gpolicy.err_choice"
    return PolicySettings(partial != "off", follow_through if follow_through in FOLLOW_THROUGH_CHOICES else "full")
