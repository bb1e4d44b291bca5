"""Strict reading of JSON request bodies and query parameters; every failure is an ApiError naming the field."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Mapping
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from exercises.api import SEED_LIMIT
from grader.api_errors import ApiError
from grader.routing import ROW_ID_MAX

P = ParamSpec("P")
R = TypeVar("R")
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


def required_string(body: Mapping[str, Any], name: str, max_length: int = 200) -> str:
    """A required non-empty string field."""
    if name not in body or body[name] is None:
        raise ApiError(422, "missing_field", f"Field '{name}' is required.", field=name)
    return _string(body[name], name, max_length)


def optional_string(body: Mapping[str, Any], name: str, max_length: int = 200) -> str | None:
    """An optional string field (absent or null gives None)."""
    return None if body.get(name) is None else _string(body[name], name, max_length)


def _string(value: Any, name: str, max_length: int) -> str:
    """``value`` if it is a non-empty string of at most ``max_length`` characters."""
    if not isinstance(value, str):
        raise ApiError(422, "invalid_type", f"Field '{name}' must be a string.", field=name)
    if not value or len(value) > max_length:
        raise ApiError(422, "invalid_value", f"Field '{name}' must have 1 to {max_length} characters.", field=name)
    return value


def optional_int(body: Mapping[str, Any], name: str, minimum: int = 0, limit: int = 2**63) -> int | None:
    """An optional integer field in [minimum, limit); null is absent. A number with no fraction (``1.0``) is an
    integer, as JSON Schema says, if a float holds it exactly; booleans, other floats and strings are refused."""
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) <= FLOAT_EXACT_LIMIT:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(422, "invalid_type", f"Field '{name}' must be an integer.", field=name)
    if not minimum <= value < limit:
        raise ApiError(422, "invalid_value", f"Field '{name}' must be in [{minimum}, {limit}).", field=name)
    return value


def required_object(body: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A required JSON-object field."""
    if name not in body or body[name] is None:
        raise ApiError(422, "missing_field", f"Field '{name}' is required.", field=name)
    if not isinstance(body[name], dict):
        raise ApiError(422, "invalid_type", f"Field '{name}' must be a JSON object {{field: value}}.", field=name)
    value: dict[str, Any] = body[name]
    return value


def language(value: Any, name: str = "lang", default: str = "zh") -> str:
    """A supported language code, ``default`` when absent."""
    if value is None:
        return default
    if value not in LANGS:
        raise ApiError(422, "invalid_value", f"Field '{name}' must be one of {', '.join(LANGS)}.", field=name)
    return str(value)


def query_parameters(*allowed: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """View decorator: the query parameters a route reads (none, for the POST routes), declared next to it; 400 for
    any other one or one sent more than once (kept on the view as ``query_parameters``, which the OpenAPI test
    compares with the document)."""

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            _check_query(allowed)
            return view(*args, **kwargs)

        wrapper.query_parameters = frozenset(allowed)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def _check_query(allowed: Collection[str]) -> None:
    """400 for a query parameter not in ``allowed``, given twice or given empty: a typo (the body's
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


def query_int(name: str, default: int | None, minimum: int, maximum: int) -> int | None:
    """An integer query parameter within [minimum, maximum]; 400 naming it otherwise."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    # One minus sign at most: int() refuses "--5", which would otherwise escape as a 500.
    if not raw.isascii() or not raw.removeprefix("-").isdigit() or len(raw) > 20:
        raise ApiError(400, "invalid_parameter", f"Query parameter '{name}' must be an integer.", field=name)
    value = int(raw)
    if not minimum <= value <= maximum:
        raise ApiError(
            400, "invalid_parameter", f"Query parameter '{name}' must be in [{minimum}, {maximum}].", field=name
        )
    return value


def query_cursor(offset: int) -> tuple[int | None, int | None]:
    """The listing's ``before_id`` and ``after_id``: at most one of them, and not with a non-zero ``offset``."""
    before_id = query_int("before_id", None, 1, ROW_ID_MAX)
    after_id = query_int("after_id", None, 0, ROW_ID_MAX)
    if before_id is not None and after_id is not None:
        raise ApiError(
            400,
            "invalid_parameter",
            "Query parameters 'before_id' (newest first) and 'after_id' (oldest first) cannot be combined; send one.",
            field="after_id",
        )
    if offset and (before_id is not None or after_id is not None):
        name = "before_id" if before_id is not None else "after_id"
        raise ApiError(
            400,
            "invalid_parameter",
            f"Query parameter 'offset' cannot be combined with '{name}': "
            "the cursor already says where the page starts.",
            field="offset",
        )
    return before_id, after_id


def query_number(name: str, default: float, minimum: float, maximum: float) -> float:
    """A finite number query parameter within [minimum, maximum]; 400 naming it otherwise."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not minimum <= value <= maximum:
        raise ApiError(
            400,
            "invalid_parameter",
            f"Query parameter '{name}' must be a number in [{minimum:g}, {maximum:g}].",
            field=name,
        )
    return value


def query_choice(name: str, choices: Collection[str]) -> str | None:
    """An optional query parameter restricted to ``choices``."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if raw not in choices:
        raise ApiError(
            400, "invalid_parameter", f"Query parameter '{name}' must be one of {', '.join(choices)}.", field=name
        )
    return raw


def query_text(name: str, max_length: int = 200) -> str | None:
    """An optional short text query parameter."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if len(raw) > max_length or "\x00" in raw:
        raise ApiError(400, "invalid_parameter", f"Query parameter '{name}' is not acceptable.", field=name)
    return raw


def path_seed(raw: str) -> int:
    """A seed given in the URL path: a decimal integer in [0, 2**63)."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19 or int(raw) >= SEED_LIMIT:
        raise ApiError(400, "invalid_parameter", f"The seed must be an integer in [0, {SEED_LIMIT}).", field="seed")
    return int(raw)


def query_lang() -> str:
    """The ``lang`` query parameter (zh or en; Chinese by default)."""
    return query_choice("lang", LANGS) or "zh"


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
        seconds = value.strip().strip('"')
        if not seconds.isascii() or not seconds.isdigit() or len(seconds) > 12:
            raise ApiError(
                400, "invalid_header", "Prefer: wait=N needs N as a whole number of seconds.", field="Prefer"
            )
        return min(float(seconds), maximum)
    return 0.0
