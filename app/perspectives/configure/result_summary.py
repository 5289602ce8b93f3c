"""The last run at a glance: optimum levels, information loss, effort."""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from app.widgets.progress_status import format_loss


def headline(proven_optimal: bool, cancelled: bool, algorithm: str) -> str:
    """What to call a run's best transformation: "Optimum found" only when a complete
    search proved it (``AnonymizationResult.proven_optimal``); a heuristic's or a
    cancelled search's result is the best found, and says so."""
    if proven_optimal:
        return "Optimum found"
    if cancelled:
        return "Best found before cancelling (not proven optimal)"
    if algorithm == "safepub":
        return "Transformation chosen by SafePub (differentially private, not the optimum)"
    return f"Best found by the {algorithm or 'heuristic'} search (not proven optimal)"


def summary_text(summary: dict | None) -> tuple[str, str]:
    """(headline, details) for a result dict (``AnonymizationResult.to_dict()``)."""
    if not summary:
        return "No result yet", "Configure the attributes and models, then press Anonymize."
    opt = summary.get("optimum")
    effort = (f"{summary.get('transformations_checked', 0):,} of "
              f"{summary.get('lattice_size', 0):,} transformations checked in "
              f"{summary.get('elapsed_s', 0):.2f} s")
    if summary.get("cancelled"):
        effort += " (cancelled: best found so far)"
    if opt is None:
        return "No transformation meets the privacy models", effort
    levels = ", ".join(f"{k} {v}" for k, v in opt["levels"].items())
    pct = opt.get("information_loss_percent")
    loss = f"Information loss {pct:.2f} %" if pct is not None else "Information loss"
    loss += f" (raw {format_loss(opt.get('information_loss'))})"
    supp = f"{opt.get('suppressed_records', 0):,} records suppressed"
    cells = summary.get("cell_suppression")
    if cells:  # sdcMicro's local suppression: cells instead of records
        supp = (f"{cells['cells_suppressed']:,} cells suppressed in "
                f"{cells['records_with_suppressed_cells']:,} records (no record suppressed)")
    person = summary.get("person")  # [data] person: whom the suppression hit
    if person:
        supp += (f" ({person['suppressed_persons']:,} of {person['persons']:,} persons "
                 f"affected; classes count persons)")
    lines = [f"Levels: {levels}", loss, supp]
    pert = (summary.get("perturbation") or {}).get("attributes") or {}
    for name, p in pert.items():
        changed = p.get("changed_records")
        lines.append(f"{name}: {p['method']}" + (f" ({p['noise_method']})"
                                                 if p.get("noise_method") else "")
                     + ("" if changed is None else f", {changed:,} records changed"))
    local = summary.get("local_recoding")
    if local:
        lines.append(f"Local recoding: {local['suppressed_before']:,} \u2192 "
                     f"{local['suppressed_after']:,} records suppressed, loss "
                     f"{format_loss(local.get('information_loss_before'))} \u2192 "
                     f"{format_loss(local.get('information_loss_after'))} "
                     f"({local.get('iterations', 0)} iterations)")
    for name, m in (summary.get("microaggregation") or {}).items():
        if m.get("sse") is not None:
            lines.append(f"{name}: {m['function']}, squared error {m['sse']:,.4g}")
    method = summary.get("method")
    if method:
        lines.insert(0, f"Method: {method}")
    proven = summary.get("proven_optimal")
    if proven is None:  # a result saved before the key existed
        proven = (summary.get("algorithm") in ("optimal", "exhaustive")
                  and not summary.get("cancelled"))
    title = headline(bool(proven), bool(summary.get("cancelled")), summary.get("algorithm", ""))
    return title, "\n".join(lines + [effort])


class ResultSummary(QFrame):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("resultCard")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        self.headline = QLabel()
        self.headline.setObjectName("resultHeadline")
        self.details = QLabel()
        self.details.setObjectName("resultDetails")
        self.details.setWordWrap(True)
        lay.addWidget(self.headline)
        lay.addWidget(self.details)
        self._summary: dict | None = None
        self.stale = False
        self.show_summary(None)

    def show_summary(self, summary: dict | None) -> None:
        self._summary = summary
        self.stale = False
        head, details = summary_text(summary)
        self.headline.setText(head)
        self.details.setText(details)
        self._set_state("none" if not summary else "ok" if summary.get("optimum") else "bad")

    def mark_stale(self) -> None:
        """The configuration changed since this result: say so until the next run."""
        if not self._summary or self.stale:
            return
        self.stale = True
        head, details = summary_text(self._summary)
        self.headline.setText(f"{head} (out of date)")
        self.details.setText("The configuration changed after this run: press Anonymize "
                             "to update.\n" + details)
        self._set_state("stale")

    def _set_state(self, state: str) -> None:
        self.setProperty("state", state)
        self.style().unpolish(self)
        self.style().polish(self)
