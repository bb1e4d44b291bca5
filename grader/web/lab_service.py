"""The capacity lab for the web page: read the form, start (or reuse) a run, report progress and the plot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from sqlalchemy.orm import Session

from grader.grading.labs import request_lab_run
from grader.grading.refusals import LabParametersRejected, LabRunsBusy
from grader.i18n import t
from grader.models import LabRun, LabStatus, User
from grader.web.plot import by_d, render_plot
from grader.whole_numbers import whole_number

LAB_DS = (32, 64, 128, 256)
LAB_T_MIN, LAB_T_MAX = 1, 64
DEFAULT_DS = (32, 64, 128, 256)
DEFAULT_T_RANGE = (1, 48)
THRESHOLD = 0.9
LAB_TRIALS = 200  # trials per (d, T): enough for a smooth curve, a few seconds on one worker


class LabFormError(ValueError):
    """The lab form asked for something outside the page's choices; carries the UI message key and the field."""

    def __init__(self, message_key: str, field: str | None, status: int = 422) -> None:
        super().__init__(message_key)
        self.message_key = message_key
        self.field = field
        self.status = status


def _whole_number(raw: Any) -> int | None:
    """``raw`` as a non-negative int if it is one (form text or JSON number), else None."""
    if isinstance(raw, bool):
        return None
    text = str(raw).strip() if raw is not None else ""
    return whole_number(text, 99_999)


def read_lab_form(values: Mapping[str, Any]) -> tuple[list[int], int, int]:
    """The chosen d values (subset of 32/64/128/256) and the T range (1 <= t_min < t_max <= 64)."""
    raw_ds = values.get("ds") or []
    raw_ds = raw_ds if isinstance(raw_ds, list) else [raw_ds]
    whole = [_whole_number(d) for d in raw_ds]  # 32.7 is no d, not 32
    ds = sorted({d for d in whole if d is not None})
    if not ds or None in whole or any(d not in LAB_DS for d in ds):
        raise LabFormError("lab.pick_d", "ds")
    t_min, t_max = _whole_number(values.get("t_min", LAB_T_MIN)), _whole_number(values.get("t_max"))
    if t_min is None or not LAB_T_MIN <= t_min < LAB_T_MAX:
        raise LabFormError("lab.bad_t", "t_min")
    if t_max is None or not t_min < t_max <= LAB_T_MAX:
        raise LabFormError("lab.bad_t", "t_max")
    return ds, t_min, t_max


def restrict(result: Mapping[str, Any], t_min: int) -> dict[str, Any]:
    """The result limited to T >= t_min (runs always start at T = 1 so that they can be shared and cached)."""
    ts = [int(x) for x in result["ts"]]
    keep = [i for i, x in enumerate(ts) if x >= t_min] or list(range(len(ts)))
    shown_ts = [ts[i] for i in keep]

    def cut(series: Mapping[str, list[float]]) -> dict[str, list[float]]:
        return {str(k): [v[i] for i in keep] for k, v in series.items()}

    fixed = cut(result["fixed_accuracy"])
    first = {d: next((x for x, acc in zip(shown_ts, row) if acc < THRESHOLD), None) for d, row in fixed.items()}
    return {
        "ds": result["ds"],
        "ts": shown_ts,
        "fixed_accuracy": fixed,
        "attention_accuracy": cut(result["attention_accuracy"]),
        "first_below_90": first,
    }


def start_run(session: Session, user: User, ds: list[int], t_max: int) -> LabRun:
    """The cached or newly queued run for these parameters (runs are shared by everyone who asks the same)."""
    try:
        return request_lab_run(session, ds=ds, t_max=t_max, trials=LAB_TRIALS, user=user)
    except LabParametersRejected:
        raise LabFormError("lab.bad_t", "t_max") from None
    except LabRunsBusy:
        raise LabFormError("lab.busy", None, 429) from None


@dataclass(frozen=True)
class FirstBelow:
    """One row of the 'first T under 90%' table."""

    d: int
    t: int | None
    text: str


def first_below_rows(result: Mapping[str, Any], lang: str) -> list[FirstBelow]:
    """Per d: the first T whose fixed-vector accuracy is under 90%, or a note that it never drops."""
    t_last = max(int(x) for x in result["ts"])
    rows = []
    for d in (int(x) for x in result["ds"]):
        first = by_d(result["first_below_90"], d)
        rows.append(FirstBelow(d, first, str(first) if first is not None else t("lab.never_below", lang, t=t_last)))
    return rows


def run_status(run: LabRun, lang: str, t_min: int) -> dict[str, Any]:
    """JSON for the page's poller: status, progress, and when done the SVG plot and the table."""
    body: dict[str, Any] = {"id": run.id, "status": run.status, "progress": run.progress, "params": run.params}
    if run.status == LabStatus.DONE and run.result:
        shown = restrict(run.result, t_min)
        body["svg"] = str(render_plot(shown, lang))
        body["first_below_90"] = [{"d": r.d, "t": r.t, "text": r.text} for r in first_below_rows(shown, lang)]
    if run.status == LabStatus.ERROR:
        body["message"] = t("lab.failed", lang)
    return body


def plot_for(run: LabRun, lang: str, t_min: int) -> Markup | None:
    """The plot of a finished run (from T = t_min), or None."""
    return render_plot(restrict(run.result, t_min), lang) if run.status == LabStatus.DONE and run.result else None


def get_run(session: Session, run_id: int) -> LabRun | None:
    """The lab run with this id, freshly read from the database."""
    return session.get(LabRun, run_id, populate_existing=True)
