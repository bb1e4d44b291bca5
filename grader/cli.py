"""The `grader` command: serve, sweeper, db, token, user and course administration, and `grader exercises ...`."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import logging
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from flask import Flask
from kombu.exceptions import OperationalError as BrokerUnavailable
from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from exercises import cli as exercises_cli
from grader import create_app
from grader.config import ConfigError
from grader.extensions import get_db
from grader.grading import progress, sweeper
from grader.lti.cli import LtiCliError
from grader.lti.cli import add_commands as add_lti_commands
from grader.migrate import upgrade
from grader.models import Course, Enrolment, EnrolmentRole, Role, User
from grader.models.courses import DEFAULT_TIME_ZONE
from grader.security import RoleMismatch, ensure_user, issue_token, revoke_token, tokens_of
from grader.serve import serve
from grader.teacher.zones import known_zone
from grader.whole_numbers import whole_number

ROLES = [role.value for role in Role]


class CliError(Exception):
    """A command that cannot be carried out; printed without a traceback."""


def _with_session(app: Flask, action: Callable[[Session], str]) -> str:
    """Run ``action`` in an app context with a session; return what it prints."""
    with app.app_context(), get_db(app).session() as session:
        return action(session)


def _ensure_user(
    session: Session, username: str, role: str, display_name: str | None = None, password: str | None = None
) -> User:
    """ensure_user, with a role clash reported as a CLI error."""
    try:
        return ensure_user(session, username, role, display_name, password)
    except RoleMismatch as exc:
        raise CliError(str(exc)) from exc


def _positive_days(text: str) -> int:
    """A whole number of days from 1 to 3650 (argparse type)."""
    days = whole_number(text, 3650)
    if days is None or days < 1:
        raise argparse.ArgumentTypeError("give a whole number of days from 1 to 3650")
    return days


def cmd_token_create(args: argparse.Namespace, app: Flask) -> str:
    """Print a new API token for the owner (``--user``, default: ``--name``), creating the owner if needed."""

    def action(session: Session) -> str:
        user = _ensure_user(session, args.user or args.name, args.role)
        expires_in = timedelta(days=args.expires_in_days) if args.expires_in_days is not None else None
        raw = issue_token(session, user, name=args.name, role=args.role, expires_in=expires_in)
        session.commit()
        return raw

    return _with_session(app, action)


def cmd_token_list(args: argparse.Namespace, app: Flask) -> str:
    """One line per token: id, name, owner, role, created, last used, expires, revoked (never the token itself)."""

    def action(session: Session) -> str:
        rows = [
            f"{'id':>5}  {'name':<20} {'owner':<20} {'role':<8} {'created':<16} {'last used':<16} "
            f"{'expires':<16} revoked"
        ]
        for token in tokens_of(session, args.user):
            rows.append(
                f"{token.id:>5}  {token.name[:20]:<20} {token.user.username[:20]:<20} {token.role:<8} "
                f"{_minute(token.created_at):<16} {_minute(token.last_used_at):<16} "
                f"{_minute(token.expires_at):<16} {_minute(token.revoked_at)}"
            )
        return "\n".join(rows)

    return _with_session(app, action)


def cmd_token_revoke(args: argparse.Namespace, app: Flask) -> str:
    """Revoke a token by id (see `grader token list`); it is refused from the next request on."""

    def action(session: Session) -> str:
        token = revoke_token(session, args.id)
        if token is None:
            raise CliError(f"no token with id {args.id}")
        session.commit()
        return f"revoked token {token.id} ({token.name}, owner {token.user.username}) at {_minute(token.revoked_at)}"

    return _with_session(app, action)


def _minute(moment: datetime | None) -> str:
    """A timestamp to the minute (UTC), or "-"."""
    return moment.strftime("%Y-%m-%d %H:%M") if moment is not None else "-"


def cmd_user_create(args: argparse.Namespace, app: Flask) -> str:
    """Create a user; the password comes from --password, stdin (--password-stdin) or a prompt."""
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = args.password or getpass.getpass(f"password for {args.username}: ")

    def action(session: Session) -> str:
        if session.scalar(select(User.id).where(User.username == args.username)) is not None:
            raise CliError(f"user {args.username!r} already exists")
        user = _ensure_user(session, args.username, args.role, args.display_name, password)
        session.commit()
        return f"created {user.role} {user.username} (id {user.id})"

    return _with_session(app, action)


def cmd_course_create(args: argparse.Namespace, app: Flask) -> str:
    """Create a course with a unique code, its times entered and shown in an IANA time zone (default UTC)."""
    zone = known_zone(args.time_zone)
    if zone is None:
        raise CliError(f"unknown time zone {args.time_zone!r} (use an IANA name such as Asia/Shanghai)")

    def action(session: Session) -> str:
        if session.scalar(select(Course.id).where(Course.code == args.code)) is not None:
            raise CliError(f"course {args.code!r} already exists")
        course = Course(code=args.code, title=args.title, time_zone=zone)
        session.add(course)
        session.commit()
        return f"created course {course.code} (id {course.id})"

    return _with_session(app, action)


def cmd_course_enrol(args: argparse.Namespace, app: Flask) -> str:
    """Enrol an existing user in a course (idempotent)."""

    def action(session: Session) -> str:
        course = session.scalar(select(Course).where(Course.code == args.code))
        user = session.scalar(select(User).where(User.username == args.username))
        if course is None or user is None:
            raise CliError("no such course" if course is None else "no such user")
        if not any(e.user_id == user.id for e in course.enrolments):
            course.enrolments.append(Enrolment(user=user, role=args.role))
            session.commit()
        return f"{user.username} is enrolled in {course.code}"

    return _with_session(app, action)


def cmd_db_upgrade(args: argparse.Namespace, app: Flask) -> str:
    """Apply migrations to DATABASE_URL."""
    upgrade(app.config["DATABASE_URL"], args.revision)
    return f"database at revision {args.revision}"


def cmd_sweeper(args: argparse.Namespace, app: Flask) -> str:
    """Run the sweeper loop (or one pass with --once)."""
    if args.once:
        return repr(sweeper.sweep(app))
    # Its re-sends and give-ups are INFO lines: what an operator reads after an outage.
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        sweeper.run_forever(app)
    return "sweeper stopped"


def cmd_health(_args: argparse.Namespace, app: Flask) -> str:
    """Check that the database and the broker answer (container health checks)."""
    try:
        with get_db(app).session() as session:
            session.execute(text("SELECT 1"))
        with app.extensions["celery"].connection_for_write() as connection:
            connection.ensure_connection(max_retries=1)
    except (OperationalError, BrokerUnavailable) as exc:
        raise CliError(f"unhealthy: {exc}") from exc
    return "ok"


def cmd_check_progress(args: argparse.Namespace, app: Flask) -> str:
    """Recompute every progress row from the submissions; each difference is printed and fails the command
    (``--repair`` rebuilds what differs, and still reports it)."""
    with app.app_context(), get_db(app).session() as session:
        found = progress.check_all(session, repair=args.repair)
    if found:
        repaired = " (repaired)" if args.repair else ""
        raise CliError(f"{len(found)} progress difference(s){repaired}:\n" + "\n".join(found))
    return "progress rows agree with the submissions"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand except `exercises` (handed to the engine's CLI)."""
    parser = argparse.ArgumentParser(prog="grader", description="Auto-grading service for seq2seq and attention.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="web app + worker + sweeper on SQLite (embedded default)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=5000)
    sweep = commands.add_parser("sweeper", help="re-send lost or abandoned jobs")
    sweep.add_argument("--once", action="store_true", help="one pass, then exit")
    sweep.set_defaults(handler=cmd_sweeper)
    commands.add_parser("health", help="check database and broker").set_defaults(handler=cmd_health)
    check = commands.add_parser("check-progress", help="recompute progress rows from the submissions; 1 if differ")
    check.add_argument("--repair", action="store_true", help="rebuild the assignments that differ")
    check.set_defaults(handler=cmd_check_progress)
    db = commands.add_parser("db", help="database schema").add_subparsers(dest="db_command", required=True)
    db_upgrade = db.add_parser("upgrade", help="apply migrations")
    db_upgrade.add_argument("revision", nargs="?", default="head")
    db_upgrade.set_defaults(handler=cmd_db_upgrade)
    token = commands.add_parser("token", help="API tokens").add_subparsers(dest="token_command", required=True)
    token_create = token.add_parser("create", help="print a new API token")
    token_create.add_argument("--role", choices=ROLES, required=True)
    token_create.add_argument("--name", required=True, help="token name; also the owner's username unless --user")
    token_create.add_argument("--user", help="owner's username (created if missing)")
    token_create.add_argument(
        "--expires-in-days",
        type=_positive_days,
        metavar="DAYS",
        help="the token stops working after this many days (default: when revoked)",
    )
    token_create.set_defaults(handler=cmd_token_create)
    token_list = token.add_parser("list", help="list tokens (never their values)")
    token_list.add_argument("--user", help="only this owner's tokens")
    token_list.set_defaults(handler=cmd_token_list)
    token_revoke = token.add_parser("revoke", help="revoke a token by id")
    token_revoke.add_argument("id", type=int)
    token_revoke.set_defaults(handler=cmd_token_revoke)
    user = commands.add_parser("user", help="users").add_subparsers(dest="user_command", required=True)
    user_create = user.add_parser("create", help="create a user with a password")
    user_create.add_argument("--username", required=True)
    user_create.add_argument("--role", choices=ROLES, default=Role.STUDENT.value)
    user_create.add_argument("--display-name")
    user_create.add_argument("--password")
    user_create.add_argument("--password-stdin", action="store_true")
    user_create.set_defaults(handler=cmd_user_create)
    course = commands.add_parser("course", help="courses").add_subparsers(dest="course_command", required=True)
    course_create = course.add_parser("create")
    course_create.add_argument("--code", required=True)
    course_create.add_argument("--title", required=True)
    course_create.add_argument(
        "--time-zone",
        default=DEFAULT_TIME_ZONE,
        help="IANA zone of the course's opening and due times, e.g. Asia/Shanghai (default UTC)",
    )
    course_create.set_defaults(handler=cmd_course_create)
    course_enrol = course.add_parser("enrol")
    course_enrol.add_argument("--code", required=True)
    course_enrol.add_argument("--username", required=True)
    course_enrol.add_argument("--role", choices=[r.value for r in EnrolmentRole], default=EnrolmentRole.STUDENT.value)
    course_enrol.set_defaults(handler=cmd_course_enrol)
    add_lti_commands(commands)
    commands.add_parser("exercises", help="engine commands (see `grader exercises --help`)", add_help=False)
    return parser


def run_exercises_cli(argv: Sequence[str]) -> int:
    """Hand `grader exercises ...` to the engine's own CLI (exercises.cli.main)."""
    return exercises_cli.main(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `grader` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["exercises"]:
        return run_exercises_cli(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args.host, args.port)
        print(args.handler(args, create_app()))
    except ConfigError as exc:
        # Settings that cannot work: one line naming them, not a traceback.
        print(f"grader: configuration refused: {exc}", file=sys.stderr)
        return 2
    except (CliError, LtiCliError) as exc:
        print(f"grader: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
