"""The capacity lab page and its small JSON endpoints (start a run; poll its progress and plot)."""

from __future__ import annotations

from flask import jsonify, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.api.body import read_json_object
from grader.api_errors import error_body
from grader.extensions import get_session
from grader.grading.labs import MAX_OPEN_RUNS_PER_USER
from grader.i18n import t
from grader.models import LabRun
from grader.routing import ROW_ID_MAX
from grader.ui.page_helpers import login_required, page_lang, render, signed_in
from grader.ui.routes import Routes
from grader.web.lab_service import (
    DEFAULT_DS,
    DEFAULT_T_RANGE,
    LAB_DS,
    LabFormError,
    first_below_rows,
    get_run,
    plot_for,
    read_lab_form,
    restrict,
    run_status,
    start_run,
)


def _t_min() -> int:
    """The lower end of the T range to show (query parameter), 1 by default."""
    return request.args.get("t_min", 1, type=int) or 1


def _lab_page(run: LabRun | None, status: int = 200, error: str | None = None) -> ResponseReturnValue:
    """The lab page, with a run's progress, plot and table when one is given."""
    lang, t_min = page_lang(), _t_min()
    shown = restrict(run.result, t_min) if run is not None and run.result else None
    return render(
        "lab.html",
        status,
        run=run,
        error=error,
        lab_ds=LAB_DS,
        chosen_ds=run.params["ds"] if run else DEFAULT_DS,
        t_range=(t_min, run.params["t_max"]) if run else DEFAULT_T_RANGE,
        plot=plot_for(run, lang, t_min) if run else None,
        first_below=first_below_rows(shown, lang) if shown else [],
    )


routes = Routes()


@routes.get("/lab")
@login_required
def lab() -> ResponseReturnValue:
    """The lab form; with ?run=<id> also that run's progress, plot and table."""
    run_id = request.args.get("run", 0, type=int)
    return _lab_page(get_run(get_session(), run_id) if 0 < run_id <= ROW_ID_MAX else None)


LAB_FIELDS = ("ds", "t_min", "t_max")


@routes.post("/lab/runs")
@login_required
def lab_start() -> ResponseReturnValue:
    """Start (or reuse) a run: JSON in, JSON out for the script; a form post redirects to the page."""
    wants_json = request.is_json
    # Malformed JSON, another shape or an unknown key: the API's own 400/422 naming it.
    values = read_json_object(LAB_FIELDS) if wants_json else {**request.form, "ds": request.form.getlist("ds")}
    try:
        ds, t_min, t_max = read_lab_form(values)
        run = start_run(get_session(), signed_in(), ds, t_max)
    except LabFormError as exc:
        message = t(exc.message_key, page_lang(), n=MAX_OPEN_RUNS_PER_USER)
        if wants_json:
            code = "rate_limited" if exc.status == 429 else "invalid_parameters"
            return jsonify(error_body(code, message, exc.field)), exc.status
        return _lab_page(None, exc.status, message)
    if wants_json:
        return jsonify(run_status(run, page_lang(), t_min)), 202
    return redirect(url_for("web.lab", run=run.id, t_min=t_min))


@routes.get("/lab/runs/<int:run_id>")
@login_required
def lab_poll(run_id: int) -> ResponseReturnValue:
    """A run's status and progress; once done, its SVG plot and 'first T below 90%' table."""
    run = get_run(get_session(), run_id)
    if run is None:
        return jsonify(error_body("not_found", t("lab.no_such_run", page_lang()))), 404
    return jsonify(run_status(run, page_lang(), _t_min()))
