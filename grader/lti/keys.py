"""Our RSA signing keys: one signs, the next is already published, a retired one stays published until what it
signed has expired; the public key set served at /lti/jwks.json."""

from __future__ import annotations

import functools
import secrets
from datetime import datetime, timedelta
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from grader.models import KeyState, LtiKey, utcnow

# Our tokens (client assertions, deep-linking responses) live 5 minutes; a retired key is kept well past that,
# and past the hour a platform may cache our key set.
SIGNED_TOKEN_LIFETIME = timedelta(minutes=5)
RETIRED_KEY_KEPT = timedelta(hours=1)


def _new_key(state: KeyState) -> LtiKey:
    """A fresh 2048-bit RSA key in ``state``."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return LtiKey(kid=secrets.token_hex(16), private_pem=pem, state=state)


def ensure_keys(session: Session) -> LtiKey:
    """The signing key, creating it (and the next one, published ahead) on first use. Keys it creates are committed
    at once: a platform fetching our key set to check a token signed with a new key must find it."""
    current = session.scalar(select(LtiKey).where(LtiKey.state == KeyState.CURRENT))
    created = False
    if current is None:
        current = _new_key(KeyState.CURRENT)
        session.add(current)
        created = True
    if session.scalar(select(LtiKey.id).where(LtiKey.state == KeyState.NEXT)) is None:
        session.add(_new_key(KeyState.NEXT))
        created = True
    if created:
        session.commit()
    return current


def rotate(session: Session, now: datetime | None = None) -> LtiKey:
    """Make the published next key the signing one, retire the signing one (kept published for a while) and
    publish a new next key; drop retired keys past their time. Returns the new signing key."""
    now = now or utcnow()
    ensure_keys(session)
    session.execute(delete(LtiKey).where(LtiKey.state == KeyState.RETIRED, LtiKey.retire_after < now))
    old = session.scalars(select(LtiKey).where(LtiKey.state == KeyState.CURRENT)).one()
    new = session.scalars(select(LtiKey).where(LtiKey.state == KeyState.NEXT)).one()
    old.state, old.retire_after = KeyState.RETIRED, now + RETIRED_KEY_KEPT
    new.state = KeyState.CURRENT
    session.flush()  # a single CURRENT at a time is what signing relies on
    session.add(_new_key(KeyState.NEXT))
    session.flush()
    return new


@functools.lru_cache(maxsize=8)  # the next, current and retired keys, with room for a rotation or two
def _private_key(pem: str) -> rsa.RSAPrivateKey:
    """The key ``pem`` holds, read once per process: reading a PEM checks the RSA key (~20 ms here), and every
    signature and every key-set request needs the key."""
    private = serialization.load_pem_private_key(pem.encode(), password=None)
    assert isinstance(private, rsa.RSAPrivateKey)
    return private


def public_jwk(key: LtiKey) -> dict[str, Any]:
    """The public half of ``key`` as a JWK with its kid."""
    jwk: dict[str, Any] = jwt.algorithms.RSAAlgorithm.to_jwk(_private_key(key.private_pem).public_key(), as_dict=True)
    return {**jwk, "kid": key.kid, "alg": "RS256", "use": "sig"}


def key_set(session: Session, now: datetime | None = None) -> dict[str, list[dict[str, Any]]]:
    """Every key a platform may see a signature of: next, current and retired keys not yet past their time."""
    now = now or utcnow()
    keys = session.scalars(select(LtiKey).order_by(LtiKey.id)).all()
    live = [k for k in keys if k.state != KeyState.RETIRED or (k.retire_after is not None and k.retire_after > now)]
    return {"keys": [public_jwk(key) for key in live]}


def sign(session: Session, claims: dict[str, Any], now: datetime | None = None) -> str:
    """``claims`` signed RS256 with our current key (kid in the header), with iat and exp set."""
    key = ensure_keys(session)
    moment = int((now or utcnow()).timestamp())
    payload = {**claims, "iat": moment, "exp": moment + int(SIGNED_TOKEN_LIFETIME.total_seconds())}
    return jwt.encode(payload, _private_key(key.private_pem), algorithm="RS256", headers={"kid": key.kid})
