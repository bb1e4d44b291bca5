"""A test LMS on lti1p3platform 0.1.8, served over real HTTP on 127.0.0.2: OIDC authorisation (it signs the
launch), its JWKS (with key rotation), and a token endpoint that adds the checks the library lacks (jti replay,
aud). Tests may re-sign a launch's claims with the platform key (or another) to build every refused launch."""

from __future__ import annotations

import functools
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, jsonify, request
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from werkzeug.serving import BaseWSGIServer, make_server

CLIENT_ID = "grader-tool"
DEPLOYMENT_ID = "deployment-1"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def new_private_pem() -> str:
    """A fresh RSA private key in PEM."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


# Reading a PEM checks its RSA key (~20 ms), and the library reads the platform's key again for every token it signs
# and every kid it names: ~4% of the whole suite's profile went to that (bench/README.md, 2026-12-03). Keys are read
# once per test process here; every value is still the library's own.
@functools.lru_cache(maxsize=64)
def _read(private_pem: str) -> Any:
    """The key a private PEM holds."""
    return serialization.load_pem_private_key(private_pem.encode(), password=None)


@functools.lru_cache(maxsize=64)
def public_pem(private_pem: str) -> str:
    """The public half of a private PEM."""
    return (
        _read(private_pem)
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@functools.lru_cache(maxsize=128)
def _jwk(pem: str) -> dict[str, Any]:
    """``Registration.get_jwk(pem)`` (callers copy it)."""
    return Registration.get_jwk(pem)


def jwk(pem: str) -> dict[str, Any]:
    """The library's public JWK of a PEM (private or public: the same public key, the same kid)."""
    return dict(_jwk(pem))


class _Registration(Registration):
    """The library's registration, signing with the platform key read once (see ``_read``)."""

    def get_platform_private_key(self) -> Any:
        """The key object, which PyJWT signs with as it would with the PEM."""
        pem = super().get_platform_private_key()
        return None if pem is None else _read(pem)

    def get_kid(self) -> str | None:
        """The library's kid of the platform key."""
        pem = super().get_platform_private_key()
        return None if pem is None else jwk(pem).get("kid")


@dataclass
class PlannedLaunch:
    """What the next launch for a message hint carries."""

    user: str
    roles: list[str]
    context_id: str = "ctx-1"
    resource_link_id: str | None = "link-1"
    custom: dict[str, str] = field(default_factory=dict)
    deep_linking: bool = False
    anonymous: bool = False


class _FlaskRequest(Request):
    def build_metadata(self, req: Any) -> TRequest:
        return {
            "method": req.method,
            "form_data": req.form.to_dict(),
            "get_data": req.args.to_dict(),
            "headers": req.headers,
            "content_type": req.content_type,
            "path": req.path,
            "json": req.get_json(silent=True, force=True),
        }


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return self._registration


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        # An auto-submitting form, as an LMS answers; tests read the fields from it.
        return (
            f'<form id="launch" method="post" action="{launch_data["launch_url"]}">'
            f'<input type="hidden" name="id_token" value="{launch_data["id_token"]}">'
            f'<input type="hidden" name="state" value="{launch_data["state"]}"></form>'
            '<script>document.getElementById("launch").submit()</script>'
        )

    def get_preflight_response(self) -> dict[str, Any]:
        return self._request.get_data or self._request.form_data  # type: ignore[union-attr]


class LmsPlatform:
    """The LMS: registration, users, planned launches, signing keys; ``url`` once started."""

    def __init__(self, host: str = "127.0.0.2") -> None:
        self.host = host
        self.keys: list[str] = [new_private_pem()]  # the first signs; all are published
        self.plans: dict[str, PlannedLaunch] = {}
        self.users: dict[str, dict[str, str]] = {}
        self.seen_jti: set[str] = set()
        self.token_requests = 0
        self.fault: Callable[[], tuple[str, int, dict[str, str]] | None] = lambda: None
        self.app = Flask("test-lms")
        self.tool_url = ""
        self._server: BaseWSGIServer | None = None
        self.extra_routes: list[Callable[[Flask, LmsPlatform], None]] = []
        self.deep_links: list[dict[str, Any]] = []  # what tools returned, signature checked

    # -- set-up -----------------------------------------------------------------------------------------------
    def start(self, tool_url: str) -> LmsPlatform:
        """Serve on a free port of ``host``, the tool being at ``tool_url`` (http://127.0.0.1:port)."""
        self.tool_url = tool_url.rstrip("/")
        self._routes()
        self._server = make_server(self.host, 0, self.app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()

    @property
    def url(self) -> str:
        """The platform's base URL (its issuer)."""
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_port}"

    def registration(self) -> Registration:
        """The library's registration of our tool, signing with the current platform key."""
        return (
            _Registration()
            .set_iss(self.url)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT_ID)
            .set_oidc_login_url(self.tool_url + "/lti/login")
            .set_launch_url(self.tool_url + "/lti/launch")
            .set_deeplink_launch_url(self.tool_url + "/lti/launch")
            .set_platform_private_key(self.keys[0])
            .set_platform_public_key(public_pem(self.keys[0]))
            .set_tool_key_set_url(self.tool_url + "/lti/jwks.json")
        )

    def add_platform_args(self) -> list[str]:
        """`grader lti add-platform` arguments for this LMS."""
        return [
            "--issuer",
            self.url,
            "--client-id",
            CLIENT_ID,
            "--auth-login-url",
            self.url + "/auth",
            "--auth-token-url",
            self.url + "/token",
            "--jwks-url",
            self.url + "/jwks",
            "--deployment-id",
            DEPLOYMENT_ID,
        ]

    def rotate_key(self) -> None:
        """A new platform key signs from now on; the old one stays published."""
        self.keys.insert(0, new_private_pem())

    def plan(self, launch: PlannedLaunch) -> str:
        """Remember a launch; its message hint."""
        hint = secrets.token_hex(8)
        self.plans[hint] = launch
        self.users.setdefault(launch.user, {"name": f"User {launch.user}", "email": f"{launch.user}@lms.test"})
        return hint

    def login_params(self, hint: str) -> dict[str, str]:
        """The third-party login initiation the LMS sends the tool for ``hint``."""
        return {
            "iss": self.url,
            "login_hint": self.plans[hint].user,
            "lti_message_hint": hint,
            "target_link_uri": self.tool_url + "/lti/launch",
            "client_id": CLIENT_ID,
            "lti_deployment_id": DEPLOYMENT_ID,
        }

    # -- signing as the platform ------------------------------------------------------------------------------
    def kid(self, private_pem: str) -> str:
        """The kid the library gives a key (its JWK thumbprint)."""
        return str(jwk(public_pem(private_pem))["kid"])

    def sign(
        self,
        claims: dict[str, Any],
        key: str | None = None,
        headers: dict[str, Any] | None = None,
        algorithm: str = "RS256",
    ) -> str:
        """``claims`` signed as the platform would (or with ``key``/``headers``/``algorithm`` to tamper)."""
        chosen = key or self.keys[0]
        head = {"kid": self.kid(chosen)} if headers is None else headers
        return jwt.encode(claims, chosen, algorithm=algorithm, headers=head)

    # -- HTTP ---------------------------------------------------------------------------------------------------
    def _routes(self) -> None:
        app, lms = self.app, self

        @app.before_request
        def _fault() -> Any:
            return lms.fault()

        @app.get("/jwks")
        def jwks() -> Any:
            return jsonify({"keys": [jwk(public_pem(k)) for k in lms.keys]})

        @app.get("/auth")
        def auth() -> Any:
            plan = lms.plans[request.args["lti_message_hint"]]
            if request.args.get("login_hint") != plan.user:
                return "wrong login_hint", 400
            launch = _Launch(_FlaskRequest(request), _Conf(registration=lms.registration()))
            person = lms.users[plan.user]
            if not plan.anonymous:
                launch.set_user_data(plan.user, plan.roles, person["name"], person["email"])
            else:
                launch.lti_claim_user_data = {"https://purl.imsglobal.org/spec/lti/claim/roles": plan.roles}
            launch.set_launch_context_claim(plan.context_id, context_title=f"LMS course {plan.context_id}")
            if plan.resource_link_id:
                launch.set_resource_link_claim(plan.resource_link_id)
            if plan.custom:
                launch.set_custom_parameters_claim(plan.custom)
            if plan.deep_linking:
                launch.set_dl(lms.url + "/deep_link_return", extra_data={"data": "opaque-123"})
            launch.set_ags(
                lineitems_url=f"{lms.url}/ags/{plan.context_id}/lineitems",
                lineitem_url=None,
                allow_creating_lineitems=True,
                results_service_enabled=True,
                scores_service_enabled=True,
            )
            launch.set_nrps(context_memberships_url=f"{lms.url}/nrps/{plan.context_id}/members")
            return launch.lti_launch()

        @app.post("/token")
        def token() -> Any:
            lms.token_requests += 1
            assertion = request.form.get("client_assertion", "")
            try:
                claims = jwt.decode(assertion, options={"verify_signature": False})
            except jwt.DecodeError:
                return jsonify({"error": "invalid_client"}), 401
            # What the library does not check: a replayed jti, the audience, iss/sub, exp.
            if claims.get("jti") in lms.seen_jti or claims.get("aud") not in (lms.url + "/token", [lms.url + "/token"]):
                return jsonify({"error": "invalid_grant"}), 400
            if claims.get("iss") != CLIENT_ID or claims.get("sub") != CLIENT_ID or "exp" not in claims:
                return jsonify({"error": "invalid_client"}), 401
            lms.seen_jti.add(str(claims["jti"]))
            conf = _Conf(registration=lms.registration())
            return jsonify(conf.get_access_token(request.form.to_dict()))

        @app.post("/deep_link_return")
        def deep_link_return() -> Any:
            conf = _Conf(registration=lms.registration())
            items = conf.validate_deeplinking_resp({"JWT": request.form["JWT"]})  # checks our signature by our JWKS
            claims = jwt.decode(request.form["JWT"], options={"verify_signature": False})
            lms.deep_links.append({"items": items, "claims": claims})
            return "deep link received"

        for extra in lms.extra_routes:
            extra(app, lms)


FORM_FIELD = re.compile(r'name="(id_token|state)" value="([^"]*)"')
FORM_ACTION = re.compile(r'action="([^"]*)"')


def read_launch_form(html: str) -> tuple[str, dict[str, str]]:
    """The action and the fields of the platform's auto-submitting launch form."""
    action = FORM_ACTION.search(html)
    assert action, html[:500]
    return action.group(1), dict(FORM_FIELD.findall(html))


def wait_until_serving(url: str) -> None:
    """Block until ``url`` answers (a server just started in a thread)."""
    import requests

    for _ in range(100):
        try:
            requests.get(url, timeout=1)
            return
        except requests.ConnectionError:
            time.sleep(0.05)
    raise AssertionError(f"{url} never answered")
