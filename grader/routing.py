"""URL rules' integer ids bounded to what the database's id columns hold."""

from __future__ import annotations

from werkzeug.routing import IntegerConverter, Map

# Primary keys are SQL INTEGER (32-bit on PostgreSQL); a larger id is refused by the driver, not merely not found.
ROW_ID_MAX = 2**31 - 1


class RowIdConverter(IntegerConverter):
    """``<int:...>`` limited to [0, ROW_ID_MAX]: a larger id fails to match (404) instead of raising in the driver."""

    # Werkzeug's ``\d+`` also matches other scripts' digits, which int() reads: /submissions/１ would be another
    # URL of submission 1. Ids are ASCII, as the query parameters' are (api.schemas_base.query_integer).
    regex = r"[0-9]+"

    def __init__(
        self,
        map: Map,
        fixed_digits: int = 0,
        min: int | None = None,
        max: int | None = ROW_ID_MAX,
        signed: bool = False,
    ) -> None:
        super().__init__(map, fixed_digits, min, max, signed)
