"""What runs before a request model (``grader/api/schemas_base.py``): the JSON body read strictly (media type, size,
UTF-8, duplicate keys, NaN, surrogates, NUL, unknown fields) and the query string checked for unknown, repeated or
empty parameters; and the headers and path segments no model reads. Every failure is an ApiError naming the field."""

from __future__ import annotations

import json
import math
from collections.abc import Collection
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from exercises.api import SEED_LIMIT
from grader.api_errors import ApiError
from grader.whole_numbers import whole_number

# Beyond this a JSON number read as a float may not be the integer its sender wrote: such floats are refused.
FLOAT_EXACT_LIMIT = 2**53
LANGS = ("zh", "en")


class _NonFinite:
    """Stands in for NaN/Infinity while parsing, so the field holding it can be named afterwards."""

    def __init__(self, text: str) -> None:
        self.text = text


class _Repeated(dict):  # type: ignore[type-arg]
    """A JSON object that named one key more than once (kept: the first key repeated), so that the field can be named
    afterwards; JSON parsers disagree on which value wins, so the body is refused rather than read one way."""

    repeated: str = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object from its key-value pairs, as a ``_Repeated`` when a key comes twice."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    repeated, seen = _Repeated(value), set()
    for key, _ in pairs:
        if key in seen:
            repeated.repeated = key
            break
        seen.add(key)
    return repeated


def _parse_float(text: str) -> float | _NonFinite:
    """Decimal literals that overflow to infinity (1e999) are refused like the NaN/Infinity constants."""
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def _find_bad_value(value: Any, path: str) -> tuple[str, str] | None:
    """The (field path, reason) of the first value that the service must not accept, or None."""
    if isinstance(value, _NonFinite):
        return path, f"{value.text} is not a finite number (NaN and Infinity are not JSON)"
    if isinstance(value, str):
        return _bad_text(value, path)
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _find_bad_value(item, f"{path}[{index}]")
            if found:
                return found
    if isinstance(value, _Repeated):
        return _printable(
            (f"{path}.{value.repeated}" if path else value.repeated, "the key is given more than once; send it once")
        )
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            found = _bad_text(key, child) or _find_bad_value(item, child)
            if found:
                return _printable(found)
    return None


def _printable(found: tuple[str, str]) -> tuple[str, str]:
    """Make a field path safe to echo back (a bad key would otherwise put the bad text into the error)."""
    path, reason = found
    return path.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00"), reason


def _bad_text(text: str, path: str) -> tuple[str, str] | None:
    """Lone surrogates cannot be stored as UTF-8 and NUL bytes break PostgreSQL text: both are refused."""
    if "\x00" in text:
        return path, "text contains a NUL character"
    if any("\ud800" <= char <= "\udfff" for char in text):
        return path, "text contains a lone surrogate (not valid Unicode)"
    return None


def _cut_at_the_limit(read: int) -> bool:
    """True if a body sent without Content-Length (chunked) goes on past MAX_CONTENT_LENGTH.

    Werkzeug's limited stream then stops at the limit without an error, and the JSON cut there would be answered
    as malformed; one byte more from the server's (terminated) input stream tells a body of exactly the limit from
    a longer one.
    """
    limit = request.max_content_length
    if request.content_length is not None or limit is None or read < limit:
        return False
    # Reached only for a server that terminates the stream (wsgi.input_terminated): werkzeug reads nothing otherwise.
    return bool(request.environ["wsgi.input"].read(1))


def read_json_object(allowed: Collection[str]) -> dict[str, Any]:
    """The request body as a JSON object with only ``allowed`` keys; 415/413/400/422 otherwise."""
    if request.mimetype != "application/json":
        raise ApiError(
            415,
            "unsupported_media_type",
            "Send the body as JSON with Content-Type: application/json.",
            field="Content-Type",
        )
    raw = request.get_data(cache=True)  # werkzeug raises 413 beyond MAX_CONTENT_LENGTH when Content-Length says so
    if _cut_at_the_limit(len(raw)):
        raise RequestEntityTooLarge()  # answered as the Content-Length case is (413 payload_too_large)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(400, "invalid_json", f"The body is not UTF-8 (byte {exc.start}).") from None
    try:
        body = json.loads(text, parse_constant=_NonFinite, parse_float=_parse_float, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise ApiError(
            400, "invalid_json", f"Malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}."
        ) from None
    except (ValueError, RecursionError) as exc:  # integers beyond Python's digit limit, absurd nesting
        raise ApiError(400, "invalid_json", f"The JSON cannot be read: {type(exc).__name__}.") from None
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", "The body must be a JSON object.")
    found = _find_bad_value(body, "")
    if found:
        raise ApiError(422, "invalid_value", f"Field '{found[0]}': {found[1]}.", field=found[0])
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(
            422,
            "unknown_field",
            f"Unknown field '{unknown[0]}'; allowed: {', '.join(sorted(allowed))}.",
            field=unknown[0],
        )
    return body


def check_query(allowed: Collection[str]) -> None:
    """Before a route's query model: 400 for a query parameter not in ``allowed``, given twice or given empty: a typo (the body's
    ``assignment_id`` for the listing's ``assignment``) would otherwise be ignored and answer with the unfiltered
    rows, and of a repeated one only the first would count."""
    for name in request.args:
        shown = _shown(name)
        if name not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            hint = f" (did you mean '{name[:-3]}'?)" if name.endswith("_id") and name[:-3] in allowed else ""
            raise ApiError(
                400, "unknown_parameter", f"Unknown query parameter '{shown}'{hint}; allowed: {known}.", field=shown
            )
        if len(request.args.getlist(name)) > 1:
            raise ApiError(
                400,
                "repeated_parameter",
                f"Query parameter '{shown}' is given more than once; send it once.",
                field=shown,
            )
        if request.args[name] == "":
            # An empty filter (an LMS whose course setting is blank) would otherwise answer with every course's rows.
            raise ApiError(
                400,
                "invalid_parameter",
                f"Query parameter '{shown}' is empty: give it a value, or leave it out.",
                field=shown,
            )


def _shown(name: str) -> str:
    """A query parameter's name, safe and short enough to echo back in an error."""
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in name[:64])
    return text + ("..." if len(name) > 64 else "")


def path_seed(raw: str) -> int:
    """A seed given in the URL path: a decimal integer in [0, 2**63)."""
    seed = whole_number(raw, SEED_LIMIT - 1)
    if seed is None:
        raise ApiError(400, "invalid_parameter", f"The seed must be an integer in [0, {SEED_LIMIT}).", field="seed")
    return seed


def prefer_wait(raw: str | None, maximum: float) -> float:
    """Seconds asked for by ``Prefer: wait=N`` (RFC 7240), capped at ``maximum``; 0 without that preference.

    Other preferences are ignored, as the RFC asks; only the first ``wait`` counts. A ``wait`` that is not a
    whole number of seconds is a 400 naming the header, so a client's typo is not silently an immediate reply.
    """
    if raw is None:
        return 0.0
    for preference in raw.split(","):
        name, _, value = preference.split(";", 1)[0].partition("=")
        if name.strip().lower() != "wait":
            continue
        seconds = whole_number(value.strip().strip('"'), 10**12 - 1)
        if seconds is None:
            raise ApiError(
                400, "invalid_header", "Prefer: wait=N needs N as a whole number of seconds.", field="Prefer"
            )
        return min(float(seconds), maximum)
    return 0.0
