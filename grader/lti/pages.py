"""What the LTI view modules share: the refusal page, and the keys under which a launch leaves work for the next
page in the signed session cookie (the course to bind, the link to bind, the deep-linking request to answer)."""

from __future__ import annotations

from flask.typing import ResponseReturnValue

from grader.i18n import t
from grader.lti.refusals import Refusal
from grader.ui.page_helpers import render

DEEP_LINK_KEY = "lti_deep_link"
BIND_KEY = "lti_bind"
LINK_KEY = "lti_link"


def refusal_page(reason: Refusal, status: int = 400) -> ResponseReturnValue:
    """The error page of a refused login or launch, in both languages (it is read by the LMS administrator)."""
    return render("lti/refused.html", status, reason=reason, zh=t(reason.key, "zh"), en=t(reason.key, "en"))
