"""Tables and statements of the required-work floor (bench/floor/required.py), as bare SQL for psycopg.

The tables carry what the issue asks of every submission (owner, variant, raw and parsed answer, status with a
timestamp per stage, lease, attempts, result, engine version; an append-only grade log; hashed API tokens) and
the indexes the grader needs for its own reads of them (a student's attempts, the sweeper's queue, an
assignment's listing, the idempotency key), so that writing a row costs what it costs the grader.
"""
from __future__ import annotations

import hashlib

import psycopg

SCHEMA = """
CREATE TABLE IF NOT EXISTS required_tokens (
    id bigserial PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    user_id bigint NOT NULL,
    role text NOT NULL,
    revoked_at timestamptz,
    expires_at timestamptz
);
CREATE TABLE IF NOT EXISTS required_submissions (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL,
    assignment_id bigint,
    exercise_id varchar(64) NOT NULL,
    seed bigint NOT NULL,
    lang varchar(8) NOT NULL,
    raw_answer json NOT NULL,
    parsed_answer json,
    idempotency_key varchar(128),
    status varchar(16) NOT NULL,
    score double precision,
    parts json,
    errors json,
    engine_version varchar(32),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    lease_owner varchar(200),
    lease_until timestamptz,
    error_message text,
    created_at timestamptz NOT NULL,
    queued_at timestamptz NOT NULL,
    dispatched_at timestamptz,
    started_at timestamptz,
    finished_at timestamptz,
    UNIQUE (user_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS ix_required_user_exercise ON required_submissions (user_id, exercise_id);
CREATE INDEX IF NOT EXISTS ix_required_status_dispatched ON required_submissions (status, dispatched_at);
CREATE INDEX IF NOT EXISTS ix_required_assignment_id ON required_submissions (assignment_id, id);
CREATE TABLE IF NOT EXISTS required_grade_log (
    id bigserial PRIMARY KEY,
    submission_id bigint NOT NULL REFERENCES required_submissions (id) ON DELETE CASCADE,
    old_score double precision,
    new_score double precision,
    new_engine_version varchar(32),
    reason text NOT NULL,
    actor varchar(200) NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_required_grade_log_submission ON required_grade_log (submission_id);
"""

TOKEN = """
SELECT user_id, role FROM required_tokens
WHERE token_hash = %s AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
"""
INSERT = """
INSERT INTO required_submissions (user_id, exercise_id, seed, lang, raw_answer, parsed_answer, status, attempts,
                                  max_attempts, created_at, queued_at, dispatched_at)
VALUES (%s, %s, %s, %s, %s, %s, 'queued', 0, 3, now(), now(), now()) RETURNING id
"""
READ = """
SELECT status, score, parts, errors, engine_version, created_at, started_at, finished_at FROM required_submissions
WHERE id = %s AND (user_id = %s OR %s)
"""
CLAIM = """
UPDATE required_submissions
SET status = 'grading', lease_owner = %(owner)s, lease_until = now() + interval '60 seconds',
    attempts = attempts + 1, started_at = now()
WHERE id = %(id)s AND attempts < max_attempts
  AND (status = 'queued' OR (status = 'grading' AND lease_until < now()))
RETURNING attempts, exercise_id, seed, raw_answer, lang
"""
# The lease-guarded write and its grade-log row, one statement (the log row only if the lease still held).
WRITE = """
WITH finished AS (
    UPDATE required_submissions
    SET status = %(status)s, lease_owner = NULL, lease_until = NULL, finished_at = now(), score = %(score)s,
        parts = %(parts)s, errors = %(errors)s, parsed_answer = %(parsed)s, engine_version = %(engine_version)s,
        error_message = NULL
    WHERE id = %(id)s AND status = 'grading' AND lease_owner = %(owner)s AND attempts = %(attempt)s
    RETURNING id
)
INSERT INTO required_grade_log (submission_id, new_score, new_engine_version, reason, actor, created_at)
SELECT id, %(score)s, %(engine_version)s, 'graded', %(owner)s, now() FROM finished
"""


def hash_token(raw_token: str) -> str:
    """How tokens are stored: their SHA-256, never the token."""
    return hashlib.sha256(raw_token.encode("utf-8")).hexdigest()


def create_tables(url: str, raw_token: str, role: str = "teacher") -> None:
    """Create the tables in ``url`` (idempotent) and store ``raw_token`` (hashed) for user 1 with ``role``."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(SCHEMA)
        connection.execute("INSERT INTO required_tokens (token_hash, user_id, role) VALUES (%s, 1, %s) "
                           "ON CONFLICT (token_hash) DO NOTHING", (hash_token(raw_token), role))
