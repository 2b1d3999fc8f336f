"""A self-contained HTML report of a run (``--report-html``): per-suite tables, failures with their
reproduce lines, details and the backend's stderr. One file, no external resources."""

from __future__ import annotations

from html import escape
from typing import Any

from harness.reports.result import RunResult

__all__ = ["render_html"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:72rem}
h1{font-size:1.4rem} h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0} th,td{border:1px solid #ccc;padding:.25rem .6rem;text-align:right}
th:first-child,td:first-child{text-align:left} .passed{color:#176f2c} .failed{color:#b3261e}
.unavailable,.incomplete{color:#8a6d00} pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
details{margin:.4rem 0} summary{cursor:pointer} code{background:#f0f0f0;padding:0 .2rem}
"""
_OUTCOMES = ("passed", "failed", "error", "not_applicable", "xfailed", "xpassed", "skipped")
_LISTED = 200


def _pre(title: str, text: str) -> str:
    if not text:
        return ""
    return f"<p>{escape(title)}</p><pre>{escape(text[-20_000:])}</pre>"


def _failure(case: dict[str, Any] | Any) -> str:
    faults = "".join(
        f"<li><code>{escape(f['kind'])}</code>: {escape(f['detail'])}</li>" for f in case.get("faults", [])
    )
    parts = [
        f"<details><summary><code>{escape(case['case_id'])}</code> [{escape(case['outcome'])}]: "
        f"{escape((case.get('message') or '').splitlines()[0][:300] if case.get('message') else '')}</summary>",
        f"<p>reproduce: <code>{escape(case.get('reproduce', ''))}</code></p>" if case.get("reproduce") else "",
        f"<ul>{faults}</ul>" if faults else "",
        _pre("details", case.get("details", "")),
        _pre("backend stderr during the case", case.get("backend_stderr", "")),
        "</details>",
    ]
    return "".join(parts)


def render_html(result: RunResult) -> str:
    """The run as one HTML document."""
    verdict = result.verdict()
    contract = result.header.get("contract", {})
    rows = []
    for suite in sorted(result.by_suite):
        counts = result.by_suite[suite]
        rows.append(
            f"<tr><td>{escape(suite)}</td>" + "".join(f"<td>{counts[outcome]}</td>" for outcome in _OUTCOMES) + "</tr>"
        )
    coverage = result.rule_coverage()
    coverage_text = (
        f"<p>contract rules checked: {coverage[0]}/{coverage[1]}</p>" if coverage is not None and coverage[1] else ""
    )
    stopped = result.stopped
    stopped_text = f"<p class='failed'>stopped early: {escape(str(stopped.get('reason')))}</p>" if stopped else ""
    failures = result.failures
    failure_text = "".join(_failure(case) for case in failures[:_LISTED])
    if len(failures) > _LISTED:
        failure_text += f"<p>… and {len(failures) - _LISTED} more in the JSON-lines report</p>"
    reasons = "".join(f"<li>{count} cases: {escape(why)}</li>" for why, count in result.not_applicable_reasons())
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>vnext conformance: {escape(verdict)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>vnext conformance: <span class='{escape(verdict)}'>{escape(verdict.upper())}</span></h1>"
        f"<p>backend: <code>{escape(result.backend_label())}</code> "
        f"(<code>{escape(str(result.header.get('backend', {}).get('spec')))}</code>); contract "
        f"{escape(str(contract.get('crate')))} {escape(str(contract.get('version')))}; profile "
        f"<code>{escape(str(result.header.get('profile')))}</code></p>{coverage_text}{stopped_text}"
        "<h2>Suites</h2><table><tr><th>suite</th>"
        + "".join(f"<th>{escape(outcome.replace('_', ' '))}</th>" for outcome in _OUTCOMES)
        + "</tr>"
        + "".join(rows)
        + "</table>"
        + (f"<h2>Failures ({len(failures)})</h2>{failure_text}" if failures else "")
        + (f"<h2>Not applicable</h2><ul>{reasons}</ul>" if reasons else "")
        + "</body></html>\n"
    )
