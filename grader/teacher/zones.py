"""Course time zones on the teacher pages: which names are accepted, and local form times to UTC instants and back.

A local time that a daylight-saving change skips (it never happens) or repeats (it happens twice) is refused with
an error naming the field, rather than guessed: a deadline an hour off is worse than asking again.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import available_timezones

from grader.models.courses import DEFAULT_TIME_ZONE, TIME_ZONE_MAX, zone_info

FORM_TIME = "%Y-%m-%dT%H:%M"  # what <input type="datetime-local"> sends and shows
# What the new-course form suggests: most classes are in China; a teacher may type any other IANA name.
SUGGESTED_TIME_ZONE = "Asia/Shanghai"
COMMON_TIME_ZONES = (
    "Asia/Shanghai",
    "Asia/Hong_Kong",
    "Asia/Taipei",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "Australia/Sydney",
    DEFAULT_TIME_ZONE,
)
# Names the zone database carries that are not places: the server's own setting, and a placeholder zone.
_NOT_PLACES = frozenset({"localtime", "Factory", "posixrules"})


class LocalTimeError(ValueError):
    """A local time the course's zone skips ("gap") or repeats ("repeated") at a daylight-saving change."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@lru_cache(maxsize=1)
def _known_zones() -> dict[str, str]:
    """Every IANA zone name this system knows, by its lower-case spelling."""
    return {name.lower(): name for name in available_timezones() - _NOT_PLACES}


def known_zone(text: str) -> str | None:
    """The IANA name ``text`` spells (case aside, e.g. asia/shanghai), or None if zoneinfo does not know it."""
    if not text or len(text) > TIME_ZONE_MAX:
        return None
    return _known_zones().get(text.strip().lower())


def to_utc(local: datetime, zone_name: str) -> datetime:
    """A naive wall-clock time in the zone as an aware UTC instant; LocalTimeError if the zone skips or repeats it."""
    zone = zone_info(zone_name)
    first, second = local.replace(tzinfo=zone, fold=0), local.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        # Either a gap (the wall clock never shows it) or a repeat (it shows it twice): a round trip tells which.
        skipped = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != local
        raise LocalTimeError("gap" if skipped else "repeated")
    return first.astimezone(UTC)


def form_time(moment: datetime | None, zone_name: str) -> str:
    """A stored UTC instant as the form shows it, in the course's zone ("" for none)."""
    return moment.astimezone(zone_info(zone_name)).strftime(FORM_TIME) if moment else ""


def offset_now(zone_name: str, now: datetime | None = None) -> timedelta:
    """The zone's offset from UTC at ``now`` (default: the current time)."""
    return (now or datetime.now(UTC)).astimezone(zone_info(zone_name)).utcoffset() or timedelta()
