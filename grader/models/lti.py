"""LTI 1.3: registered platforms and their deployments, our signing keys, launch states, who is who in the LMS,
which LMS context and resource link is which course and assignment, line items, and the score outbox."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Float, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow


class KeyState(StrEnum):
    """Where one of our signing keys is in its rotation: published ahead, signing, or published until what it
    signed has expired."""

    NEXT = "next"
    CURRENT = "current"
    RETIRED = "retired"


class OutboxStatus(StrEnum):
    """Where one score change stands on its way to the LMS gradebook."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"  # refused for good (line item gone, user not in the course): needs attention
    SUPERSEDED = "superseded"  # a newer score of the same student and line item was written before this one went


class LtiPlatform(Base):
    """An LMS registration, keyed by (issuer, client_id)."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(1000))
    auth_token_url: Mapped[str] = mapped_column(String(1000))
    jwks_url: Mapped[str] = mapped_column(String(1000))
    # Canvas mints a new deployment id per course install; such a registration records them on first launch.
    accept_new_deployments: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    deployments: Mapped[list[LtiDeployment]] = relationship(
        back_populates="platform", cascade="all, delete-orphan", order_by="LtiDeployment.id"
    )


class LtiDeployment(Base):
    """One deployment id of a platform (an install of the tool in the LMS)."""

    __tablename__ = "lti_deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    platform: Mapped[LtiPlatform] = relationship(back_populates="deployments")


class LtiKey(Base):
    """One of our RSA signing keys (client assertions, deep-linking responses), published at /lti/jwks.json."""

    __tablename__ = "lti_keys"
    __table_args__ = (CheckConstraint(one_of("state", tuple(s.value for s in KeyState)), name="state"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retire_after: Mapped[datetime | None]  # a retired key leaves the key set after this


class LtiLaunchState(Base):
    """An OIDC login in progress: the state we handed out, its nonce, and the login's parameters; used once."""

    __tablename__ = "lti_launch_states"

    state: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64))
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    login_params: Mapped[dict[str, Any]] = mapped_column(JSON)  # to offer the same login in a new window
    expires_at: Mapped[datetime] = mapped_column(index=True)


class LtiIdentity(Base):
    """An LMS user (issuer, sub) and the user they are here."""

    __tablename__ = "lti_identities"
    __table_args__ = (UniqueConstraint("issuer", "sub"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiContext(Base):
    """An LMS course (context) of a platform, and the course it is bound to here (None until an instructor binds
    it)."""

    __tablename__ = "lti_contexts"
    __table_args__ = (UniqueConstraint("platform_id", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    context_id: Mapped[str] = mapped_column(String(255))
    title: Mapped[str] = mapped_column(String(255), default="")
    course_id: Mapped[int | None] = mapped_column(ForeignKey("courses.id", ondelete="SET NULL"), index=True)
    # The NRPS memberships URL and the AGS line-items URL the latest launch carried.
    memberships_url: Mapped[str | None] = mapped_column(String(1000))
    lineitems_url: Mapped[str | None] = mapped_column(String(1000))
    # The latest roster sync (on demand or the nightly one) and, if it failed, why (shown to the teacher).
    roster_synced_at: Mapped[datetime | None]
    roster_requested_at: Mapped[datetime | None]  # when the sweeper last sent its sync task (not sent twice)
    roster_error: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    platform: Mapped[LtiPlatform] = relationship()


class MemberStatus(StrEnum):
    """A person's standing in an LMS course as its roster (NRPS) said last."""

    ACTIVE = "active"
    INACTIVE = "inactive"  # the LMS lists them as Inactive (e.g. a student who dropped)
    DELETED = "deleted"  # the LMS lists them as Deleted
    GONE = "gone"  # no longer on a roster read in full


class LtiMember(Base):
    """One person of an LMS course's roster: active, or left (when, and how the LMS said so)."""

    __tablename__ = "lti_members"
    __table_args__ = (
        UniqueConstraint("context_id", "user_id"),
        CheckConstraint(one_of("status", tuple(s.value for s in MemberStatus)), name="status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    staff: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(16), default=MemberStatus.ACTIVE)
    left_at: Mapped[datetime | None]  # when a sync first found them no longer active
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)  # the latest sync that listed them


class LtiResourceLink(Base):
    """A link placed in an LMS context, and the assignment it opens (None until bound)."""

    __tablename__ = "lti_resource_links"
    __table_args__ = (UniqueConstraint("context_id", "resource_link_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"))
    resource_link_id: Mapped[str] = mapped_column(String(255))
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="SET NULL"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiLineItem(Base):
    """The LMS gradebook column of one assignment in one context."""

    __tablename__ = "lti_line_items"
    __table_args__ = (UniqueConstraint("context_id", "assignment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"))
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    url: Mapped[str | None] = mapped_column(String(1000))  # None until found or created at the LMS
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiScoreOutbox(Base):
    """One counted-score change of one student in one assignment and context, to be sent to the LMS once."""

    __tablename__ = "lti_score_outbox"
    __table_args__ = (CheckConstraint(one_of("status", tuple(s.value for s in OutboxStatus)), name="status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    context_id: Mapped[int] = mapped_column(ForeignKey("lti_contexts.id", ondelete="CASCADE"), index=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # What was sent (the sender reads the counted score when it sends); None before, or for no graded attempt.
    score_given: Mapped[float | None] = mapped_column(Float)
    score_maximum: Mapped[float | None] = mapped_column(Float)
    changed_at: Mapped[datetime]  # the score's timestamp at the LMS: when the change was made here
    submitted_at: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(16), default=OutboxStatus.PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    lease_until: Mapped[datetime | None]  # a sender holds the row until then (two deliveries: one sends)
    dispatched_at: Mapped[datetime | None]  # when its task was last sent (not sent again while that one waits)
    last_error: Mapped[str | None] = mapped_column(String(1000))
    sent_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiAccessToken(Base):
    """An LMS access token, shared by every worker until it expires; keyed by a hash of (token URL, client id,
    scopes) so that two registrations of one issuer (Canvas cloud tenants) never share one."""

    __tablename__ = "lti_access_tokens"

    cache_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    access_token: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime]
