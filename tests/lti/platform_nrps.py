"""The test LMS's roster: NRPS on lti1p3platform's service (it checks our access token and scope), paged two
members at a time with the next page in a Link header (the library puts it in the body)."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, request
from lti1p3platform.membership import Context
from lti1p3platform.service_connector import NamesRoleProvisioningService

from tests.lti.platform import LmsPlatform, _Conf, _FlaskRequest

PAGE_SIZE = 2


def add_roster(lms: LmsPlatform, members: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Serve ``members`` (by context id; change the lists to change the roster) on ``lms`` (before ``start``); the
    list of the contexts whose roster was asked for, one entry per page served."""
    asked: list[str] = []

    def routes(app: Flask, platform: LmsPlatform) -> None:
        @app.get("/nrps/<context>/members")
        def memberships(context: str) -> Response:
            asked.append(context)

            class Service(NamesRoleProvisioningService):
                def get_member_data_page(
                    self, page: Any = 1, limit: Any = None, role: Any = None, since: Any = None
                ) -> Any:
                    start = (int(page) - 1) * PAGE_SIZE
                    everyone = members.get(context, [])
                    return {
                        "content": [dict(m) for m in everyone[start : start + PAGE_SIZE]],
                        "has_next": start + PAGE_SIZE < len(everyone),
                    }

                def get_context_by_id(self) -> Context:
                    return Context(id=context, label=context, title=f"LMS course {context}")

            wrapped = _FlaskRequest(request)
            # The library pages only when asked for a limit, and adds 1 to the page as given (a string).
            wrapped.request["get_data"] = {
                **request.args.to_dict(),
                "limit": PAGE_SIZE,
                "page": int(request.args.get("page", 1)),
            }
            service = Service(
                wrapped,
                _Conf(registration=platform.registration()),
                context_memberships_url=f"{platform.url}/nrps/{context}/members",
            )
            result = service.handle_resp(service.handle_get_members)
            body = dict(result.result) if isinstance(result.result, dict) else {"message": result.message}
            following = body.pop("next", None)
            response = jsonify(body)
            if following:
                response.headers["Link"] = f'<{following}>; rel="next"'
            response.status_code = result.code
            return response

    lms.extra_routes.append(routes)
    return asked
