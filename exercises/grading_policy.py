"""How much credit a wrong part may still earn: an assignment's choice, passed to the engine with each answer."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FollowThrough(StrEnum):
    """The share of follow-through credit a part earns when it is right given the student's own earlier steps."""

    FULL = "full"
    HALF = "half"
    NONE = "none"


FOLLOW_THROUGH_SHARE = {FollowThrough.FULL: 1.0, FollowThrough.HALF: 0.5, FollowThrough.NONE: 0.0}


@dataclass(frozen=True)
class GradingPolicy:
    """``partial_credit``: a list, vector or matrix part earns the share of its entries that are right (off: all
    or nothing). ``follow_through``: what a part consistent with the student's own earlier steps earns. The
    defaults are the engine's verdicts before policies existed, which every stored score was graded under."""

    partial_credit: bool = True
    follow_through: FollowThrough = FollowThrough.FULL

    @property
    def follow_through_share(self) -> float:
        """The factor follow-through credit is multiplied by: 1, 0.5 or 0."""
        return FOLLOW_THROUGH_SHARE[self.follow_through]

    def own_score(self, score: float) -> float:
        """What a wrong part earns on its own entries: ``score`` with partial credit, else nothing."""
        return score if self.partial_credit else 0.0

    def follow_through_score(self, credited: float) -> float:
        """What a part earns from being consistent (``credited``: the share of its entries that are) with the
        student's own earlier steps; without partial credit only a wholly consistent part earns it."""
        whole = credited if self.partial_credit else (1.0 if credited >= 1.0 else 0.0)
        return whole * self.follow_through_share


DEFAULT_POLICY = GradingPolicy()
