"""Case outcomes from pytest phase reports (setup, call, teardown)."""

from __future__ import annotations

from typing import Any, Final

from harness.plugin.records import NOT_APPLICABLE

__all__ = ["combine", "phase_outcome", "report_message"]


def report_message(report: Any) -> str:
    """A one-line message for a pytest report (skip reason, crash line or xfail reason)."""
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    wasxfail = getattr(report, "wasxfail", None)
    if report.skipped and wasxfail is not None:
        return f"xfail: {wasxfail}"
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message).strip()
    text = str(longrepr or "").strip()
    return text.splitlines()[-1] if text else ""


def phase_outcome(report: Any, not_applicable: bool | None = None) -> str | None:
    """The case outcome a phase report implies (``None``: the phase passed quietly).

    ``not_applicable`` says whether the phase raised *not applicable*; by default it is read from
    the report's properties.
    """
    wasxfail = getattr(report, "wasxfail", None)
    if report.when == "call":
        if report.passed:
            return "xpassed" if wasxfail is not None else "passed"
        if report.failed:
            return "failed"
    elif report.failed:
        return "error"
    if report.skipped:
        if wasxfail is not None:
            return "xfailed"
        if not_applicable is None:
            not_applicable = any(name == NOT_APPLICABLE for name, _ in report.user_properties)
        return "not_applicable" if not_applicable else "skipped"
    return None


_PRECEDENCE: Final = {
    name: rank
    for rank, name in enumerate(("passed", "xpassed", "skipped", "not_applicable", "xfailed", "failed", "error"))
}


def combine(current: str | None, new: str | None) -> str | None:
    """Merge phase outcomes: failures win over everything, then xfail/na/skip, then passes."""
    if new is None:
        return current
    if current is None:
        return new
    return new if _PRECEDENCE[new] > _PRECEDENCE[current] else current
