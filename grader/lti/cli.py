"""`grader lti ...`: register, list, show and remove LMS platforms, and rotate our signing key."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from flask import Flask
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.lti import platform_keys
from grader.lti.keys import ensure_keys, key_set, rotate
from grader.lti.registration import (
    PlatformInput,
    RegistrationError,
    add_platform,
    canvas_developer_key,
    find_platform,
    platforms,
    tool_values,
)


class LtiCliError(Exception):
    """A command that cannot be carried out; printed without a traceback."""


def _run(app: Flask, action: Callable[[Session], str]) -> str:
    """Run ``action`` with a session in an app context."""
    with app.app_context(), get_db(app).session() as session:
        return action(session)


def cmd_add(args: argparse.Namespace, app: Flask) -> str:
    """Register a platform (or add deployments to it) and make sure our keys exist."""
    given = PlatformInput(
        args.issuer,
        args.client_id,
        args.auth_login_url,
        args.auth_token_url,
        args.jwks_url,
        tuple(args.deployment_id or ()),
        args.accept_new_deployments,
    )

    def action(session: Session) -> str:
        try:
            platform = add_platform(session, given)
        except RegistrationError as exc:
            raise LtiCliError(str(exc)) from exc
        ensure_keys(session)
        session.commit()
        platform_keys.forget(platform.jwks_url)
        return f"registered platform {platform.id}: {platform.issuer} (client id {platform.client_id})"

    return _run(app, action)


def cmd_list(_args: argparse.Namespace, app: Flask) -> str:
    """One line per platform: id, issuer, client id, deployments."""

    def action(session: Session) -> str:
        rows = [f"{'id':>4}  {'issuer':<40} {'client id':<24} deployments"]
        for p in platforms(session):
            deployments = ",".join(d.deployment_id for d in p.deployments) or "-"
            more = " (+ new ones recorded)" if p.accept_new_deployments else ""
            rows.append(f"{p.id:>4}  {p.issuer[:40]:<40} {p.client_id[:24]:<24} {deployments}{more}")
        return "\n".join(rows)

    return _run(app, action)


def cmd_remove(args: argparse.Namespace, app: Flask) -> str:
    """Remove a platform with its deployments, contexts and launch states."""

    def action(session: Session) -> str:
        platform = find_platform(session, args.issuer, args.client_id)
        if platform is None:
            raise LtiCliError(f"no platform {args.issuer!r} with client id {args.client_id!r}")
        session.delete(platform)
        session.commit()
        return f"removed platform {args.issuer} (client id {args.client_id})"

    return _run(app, action)


def cmd_show(args: argparse.Namespace, app: Flask) -> str:
    """The values to paste into the LMS (and Canvas's developer-key JSON) for the tool at --base-url."""
    del app
    values = tool_values(args.base_url)
    lines = [f"{name}: {value}" for name, value in values.items() if name != "scopes"]
    lines += [
        "scopes:",
        *(f"  {scope}" for scope in values["scopes"]),
        "",
        "Canvas developer key (Paste JSON):",
        json.dumps(canvas_developer_key(args.base_url), indent=2),
    ]
    return "\n".join(lines)


def cmd_rotate(_args: argparse.Namespace, app: Flask) -> str:
    """Rotate our signing key: the published next key signs from now on, the old one stays published a while."""

    def action(session: Session) -> str:
        key = rotate(session)
        session.commit()
        published = ", ".join(k["kid"] for k in key_set(session)["keys"])
        return f"signing with {key.kid}; published: {published}"

    return _run(app, action)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `lti` group to the `grader` parser."""
    group = commands.add_parser("lti", help="LTI 1.3 platforms and keys").add_subparsers(
        dest="lti_command", required=True
    )
    add = group.add_parser("add-platform", help="register an LMS (or add deployments to it)")
    for flag in ("--issuer", "--client-id", "--auth-login-url", "--auth-token-url", "--jwks-url"):
        add.add_argument(flag, required=True)
    add.add_argument("--deployment-id", action="append", help="a known deployment id (repeatable)")
    add.add_argument(
        "--accept-new-deployments",
        action="store_true",
        help="record deployment ids first seen in a launch (Canvas: one per course install)",
    )
    add.set_defaults(handler=cmd_add)
    group.add_parser("list", help="list platforms").set_defaults(handler=cmd_list)
    remove = group.add_parser("remove", help="remove a platform")
    remove.add_argument("--issuer", required=True)
    remove.add_argument("--client-id", required=True)
    remove.set_defaults(handler=cmd_remove)
    show = group.add_parser("show", help="the values to paste into the LMS")
    show.add_argument("--base-url", required=True, help="where the grader is served, e.g. https://grader.example.edu")
    show.set_defaults(handler=cmd_show)
    group.add_parser("rotate-key", help="rotate our signing key (with overlap)").set_defaults(handler=cmd_rotate)
