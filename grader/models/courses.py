"""Courses, who is enrolled in them, and the assignments set in them."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import JSON, CheckConstraint, ForeignKey, String, UniqueConstraint, false, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow
from grader.models.users import User

# Courses made without a choice (the CLI, the API, rows older than the column) keep times in UTC; the teacher
# pages' course form suggests Asia/Shanghai instead.
DEFAULT_TIME_ZONE = "UTC"
TIME_ZONE_MAX = 64  # the longest IANA name is 32 characters
SHOWN_TIME = "%Y-%m-%d %H:%M"


def zone_info(name: str) -> ZoneInfo:
    """The IANA zone called ``name``; UTC if this system's time-zone data does not (or no longer) know it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIME_ZONE)


def utc_offset_label(offset: timedelta | None) -> str:
    """An offset as people write it: UTC+8, UTC+5:30, UTC-3, UTC+0."""
    minutes = int((offset or timedelta()).total_seconds() // 60)
    sign, minutes = ("-", -minutes) if minutes < 0 else ("+", minutes)
    hours, rest = divmod(minutes, 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def shown_time(moment: datetime, zone_name: str) -> str:
    """A stored UTC instant as pages show it in a course's zone: "2026-12-01 23:59 (Asia/Shanghai, UTC+8)";
    a course kept in UTC shows "2026-12-01 15:59 UTC"."""
    local = moment.astimezone(zone_info(zone_name))
    if zone_name == DEFAULT_TIME_ZONE:
        return f"{local.strftime(SHOWN_TIME)} UTC"
    return f"{local.strftime(SHOWN_TIME)} ({zone_name}, {utc_offset_label(local.utcoffset())})"


class ScorePolicy(StrEnum):
    """Which of a student's graded attempts counts."""

    BEST = "best"
    LAST = "last"


class AnswerKeyPolicy(StrEnum):
    """When students may see the answer key of an assignment's exercises."""

    AFTER_DUE = "after_due"
    AFTER_ATTEMPTS = "after_attempts"
    NEVER = "never"
    ALWAYS = "always"


class FollowThroughCredit(StrEnum):
    """What a part right given the student's own earlier steps earns (exercises.grading_policy.FollowThrough)."""

    FULL = "full"
    HALF = "half"
    NONE = "none"


class EnrolmentRole(StrEnum):
    """A person's part in one course."""

    STUDENT = "student"
    TEACHER = "teacher"


class Course(Base):
    """A course: a group of students and teachers sharing assignments."""

    __tablename__ = "courses"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The IANA zone in which teachers enter, and everyone sees, opening and due times (stored as UTC instants).
    time_zone: Mapped[str] = mapped_column(
        String(TIME_ZONE_MAX), default=DEFAULT_TIME_ZONE, server_default=DEFAULT_TIME_ZONE
    )
    # Set while the course is archived: read-only for students (results stay visible, nothing can be submitted).
    archived_at: Mapped[datetime | None]
    # At most this many hours from signing in, a member's sign-in ends (a lab or exam course on shared computers);
    # None: only the site's idle limit (GRADER_SESSION_HOURS). A member of several courses gets the shortest.
    session_hours: Mapped[int | None]

    enrolments: Mapped[list[Enrolment]] = relationship(back_populates="course", cascade="all, delete-orphan")
    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="course", cascade="all, delete-orphan", order_by="Assignment.id"
    )

    @property
    def archived(self) -> bool:
        """True while the course is archived."""
        return self.archived_at is not None

    def show_time(self, moment: datetime) -> str:
        """``moment`` in the course's zone, with the zone named (see ``shown_time``)."""
        return shown_time(moment, self.time_zone)


class Enrolment(Base):
    """One user's membership of one course, as student or teacher."""

    __tablename__ = "enrolments"
    __table_args__ = (
        UniqueConstraint("course_id", "user_id"),
        CheckConstraint(one_of("role", tuple(r.value for r in EnrolmentRole)), name="role"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16), default=EnrolmentRole.STUDENT)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    course: Mapped[Course] = relationship(back_populates="enrolments")
    user: Mapped[User] = relationship()


class Assignment(Base):
    """A list of exercises with a window, an attempt limit, a scoring rule and an answer-key rule."""

    __tablename__ = "assignments"
    __table_args__ = (
        CheckConstraint(one_of("score_policy", tuple(p.value for p in ScorePolicy)), name="score_policy"),
        CheckConstraint(one_of("answer_key_policy", tuple(p.value for p in AnswerKeyPolicy)), name="answer_key_policy"),
        CheckConstraint("attempts_allowed IS NULL OR attempts_allowed > 0", name="attempts_allowed_positive"),
        CheckConstraint("late_penalty_per_day >= 0 AND late_penalty_per_day <= 100", name="late_penalty_percent"),
        CheckConstraint("late_cap IS NULL OR (late_cap >= 0 AND late_cap <= 100)", name="late_cap_percent"),
        CheckConstraint(
            one_of("follow_through_credit", tuple(c.value for c in FollowThroughCredit)), name="follow_through_credit"
        ),
        # AUTOINCREMENT: an assignment can be deleted; SQLite must never give its id (an LMS's link) to another one.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    title_zh: Mapped[str] = mapped_column(String(200))
    title_en: Mapped[str] = mapped_column(String(200))
    exercise_ids: Mapped[list[str]] = mapped_column(JSON)
    opens_at: Mapped[datetime | None]
    due_at: Mapped[datetime | None]
    attempts_allowed: Mapped[int | None]  # None: unlimited
    score_policy: Mapped[str] = mapped_column(String(16), default=ScorePolicy.BEST)
    answer_key_policy: Mapped[str] = mapped_column(String(16), default=AnswerKeyPolicy.AFTER_DUE)
    # Late work (grader.grading.terms.LatePolicy): taken until late_until (None: none after the due date, as before
    # late policies), its counted score lowered by a percent per started day late and/or capped at a percent.
    late_until: Mapped[datetime | None]
    late_penalty_per_day: Mapped[float] = mapped_column(default=0.0, server_default="0")
    late_cap: Mapped[float | None]
    # Points per exercise id (grader.grading.points); an exercise not named here is worth 1, as before points.
    exercise_points: Mapped[dict[str, float]] = mapped_column(JSON, default=dict, server_default="{}")
    # True: each student's variants are this assignment's own (grader.grading.variant_seeds), so no other
    # assignment's key answers them. False (assignments made before fresh variants): shared with every other
    # assignment that shares. Fixed at creation, since changing it would change the students' variants.
    fresh_variants: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The grading policy (grader.grading.grading_rules): whether a list, vector or matrix part earns the share of its
    # entries that are right, and what follow-through earns. The defaults are how every score was graded before.
    partial_credit: Mapped[bool] = mapped_column(default=True, server_default=true())
    follow_through_credit: Mapped[str] = mapped_column(
        String(8), default=FollowThroughCredit.FULL, server_default=FollowThroughCredit.FULL.value
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Any change of its settings: an LMS re-reads the gradebook when it moves, since a new score policy or exercise
    # list changes every student's counted total without a grade-log entry.
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    course: Mapped[Course] = relationship(back_populates="assignments")

    def title(self, lang: str | None) -> str:
        """The title in ``lang`` (Chinese unless English is asked for)."""
        return self.title_en if lang == "en" else self.title_zh
