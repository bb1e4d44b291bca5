"""LTI 1.3: platforms and deployments, our signing keys, launch states, LMS identities, contexts, resource links,
line items, the score outbox and the shared access-token cache.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 20:26:23.264360
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "lti_access_tokens",
        sa.Column("cache_key", sa.String(length=64), nullable=False),
        sa.Column("access_token", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("cache_key", name=op.f("pk_lti_access_tokens")),
    )
    op.create_table(
        "lti_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retire_after", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("state IN ('next', 'current', 'retired')", name=op.f("ck_lti_keys_state")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_lti_keys_kid")),
    )
    op.create_table(
        "lti_platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("auth_login_url", sa.String(length=1000), nullable=False),
        sa.Column("auth_token_url", sa.String(length=1000), nullable=False),
        sa.Column("jwks_url", sa.String(length=1000), nullable=False),
        sa.Column("accept_new_deployments", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name=op.f("uq_lti_platforms_issuer_client_id")),
    )
    op.create_table(
        "lti_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.String(length=255), nullable=False),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=True),
        sa.Column("memberships_url", sa.String(length=1000), nullable=True),
        sa.Column("lineitems_url", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["course_id"], ["courses.id"], name=op.f("fk_lti_contexts_course_id_courses"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_contexts_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_contexts")),
        sa.UniqueConstraint("platform_id", "context_id", name=op.f("uq_lti_contexts_platform_id_context_id")),
    )
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_contexts_course_id"), ["course_id"], unique=False)

    op.create_table(
        "lti_deployments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_deployments_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_deployments")),
        sa.UniqueConstraint("platform_id", "deployment_id", name=op.f("uq_lti_deployments_platform_id_deployment_id")),
    )
    op.create_table(
        "lti_identities",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_identities_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_identities")),
        sa.UniqueConstraint("issuer", "sub", name=op.f("uq_lti_identities_issuer_sub")),
    )
    with op.batch_alter_table("lti_identities", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_identities_user_id"), ["user_id"], unique=False)

    op.create_table(
        "lti_launch_states",
        sa.Column("state", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("login_params", sa.JSON(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["lti_platforms.id"],
            name=op.f("fk_lti_launch_states_platform_id_lti_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("state", name=op.f("pk_lti_launch_states")),
    )
    with op.batch_alter_table("lti_launch_states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_launch_states_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "lti_line_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_lti_line_items_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["lti_contexts.id"],
            name=op.f("fk_lti_line_items_context_id_lti_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_line_items")),
        sa.UniqueConstraint("context_id", "assignment_id", name=op.f("uq_lti_line_items_context_id_assignment_id")),
    )
    with op.batch_alter_table("lti_line_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_line_items_assignment_id"), ["assignment_id"], unique=False)

    op.create_table(
        "lti_resource_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_lti_resource_links_assignment_id_assignments"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["lti_contexts.id"],
            name=op.f("fk_lti_resource_links_context_id_lti_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_resource_links")),
        sa.UniqueConstraint(
            "context_id", "resource_link_id", name=op.f("uq_lti_resource_links_context_id_resource_link_id")
        ),
    )
    with op.batch_alter_table("lti_resource_links", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_resource_links_assignment_id"), ["assignment_id"], unique=False)

    op.create_table(
        "lti_score_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("score_given", sa.Float(), nullable=True),
        sa.Column("score_maximum", sa.Float(), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'sent', 'failed', 'superseded')", name=op.f("ck_lti_score_outbox_status")
        ),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_lti_score_outbox_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["lti_contexts.id"],
            name=op.f("fk_lti_score_outbox_context_id_lti_contexts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_score_outbox_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_score_outbox")),
    )
    with op.batch_alter_table("lti_score_outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_score_outbox_assignment_id"), ["assignment_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_lti_score_outbox_context_id"), ["context_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_lti_score_outbox_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("lti_score_outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_score_outbox_user_id"))
        batch_op.drop_index(batch_op.f("ix_lti_score_outbox_context_id"))
        batch_op.drop_index(batch_op.f("ix_lti_score_outbox_assignment_id"))

    op.drop_table("lti_score_outbox")
    with op.batch_alter_table("lti_resource_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_resource_links_assignment_id"))

    op.drop_table("lti_resource_links")
    with op.batch_alter_table("lti_line_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_line_items_assignment_id"))

    op.drop_table("lti_line_items")
    with op.batch_alter_table("lti_launch_states", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_launch_states_expires_at"))

    op.drop_table("lti_launch_states")
    with op.batch_alter_table("lti_identities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_identities_user_id"))

    op.drop_table("lti_identities")
    op.drop_table("lti_deployments")
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_contexts_course_id"))

    op.drop_table("lti_contexts")
    op.drop_table("lti_platforms")
    op.drop_table("lti_keys")
    op.drop_table("lti_access_tokens")
