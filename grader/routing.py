"""URL converters: integer ids bounded to what the database's id columns hold, and a seed kept as text."""

from __future__ import annotations

from werkzeug.routing import IntegerConverter, Map, UnicodeConverter

# Primary keys are SQL INTEGER (32-bit on PostgreSQL); a larger id is refused by the driver, not merely not found.
ROW_ID_MAX = 2**31 - 1


class RowIdConverter(IntegerConverter):
    """``<int:...>`` limited to [0, ROW_ID_MAX]: a larger id fails to match (404) instead of raising in the driver."""

    # Werkzeug's ``\d+`` also matches other scripts' digits, which int() reads: /submissions/１ would be another
    # URL of submission 1. Ids are ASCII, as the query parameters' are (api.schemas_base.query_integer). The pattern itself
    # stops at ROW_ID_MAX (2147483647): an id refused only after matching (by ``max``) made Werkzeug answer a
    # 405 instead of a 404 when another method's rule shares the path (GET and PUT on one URL, each its own view).
    regex = (
        r"(?:[0-9]{1,9}|[01][0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}"
        r"|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])"
    )

    def __init__(
        self,
        map: Map,
        fixed_digits: int = 0,
        min: int | None = None,
        max: int | None = ROW_ID_MAX,
        signed: bool = False,
    ) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


class SeedConverter(UnicodeConverter):
    """``<seed:...>``: a variant's seed, matched as any path segment and handed to the view as text. The view reads
    it (``grader.api.body.path_seed``) after authentication, so a bad seed from a caller not signed in is still a
    401, and a bad one from a signed-in caller a 400 naming ``seed`` rather than a 404; the OpenAPI document shows
    the seeds it accepts (``grader.api.openapi_common.CONVERTER_SCHEMAS``)."""
