"""The Markdown summary of a run (``--report-md``; also appended to ``$GITHUB_STEP_SUMMARY`` when set)."""

from __future__ import annotations

from harness.reports.result import RunResult

__all__ = ["render_markdown"]

_COLUMNS = (
    ("passed", ("passed", "xpassed")),
    ("failed", ("failed", "error")),
    ("n/a", ("not_applicable",)),
    ("xfailed", ("xfailed",)),
    ("skipped", ("skipped",)),
)
_VERDICTS = {
    "passed": "✅ PASSED",
    "failed": "❌ FAILED",
    "unavailable": "❌ BACKEND UNAVAILABLE",
    "incomplete": "⚠️ INCOMPLETE",
}
_LISTED = 50


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(result: RunResult) -> str:
    """The run as a GitHub-flavoured Markdown document."""
    contract = result.header.get("contract", {})
    lines = [
        f"## vnext conformance: {_VERDICTS[result.verdict()]}",
        "",
        f"- backend: `{_cell(result.backend_label())}` (`{_cell(str(result.header.get('backend', {}).get('spec')))}`)",
        f"- contract: {contract.get('crate')} {contract.get('version')} `{contract.get('module')}`",
        f"- profile: `{result.header.get('profile')}`, seed: `{result.header.get('seed')}`",
    ]
    coverage = result.rule_coverage()
    if coverage is not None:
        exercised, reachable = coverage
        share = 100.0 * exercised / reachable if reachable else 0.0
        lines.append(f"- contract rules checked: {exercised}/{reachable} ({share:.1f}%)")
    stopped = result.stopped
    if stopped:
        lines.append(f"- **stopped early:** {_cell(str(stopped.get('reason')))}")
    lines += ["", "| suite | " + " | ".join(name for name, _ in _COLUMNS) + " |", "|---" * (len(_COLUMNS) + 1) + "|"]
    for suite in sorted(result.by_suite):
        counts = result.by_suite[suite]
        cells = [str(sum(counts[outcome] for outcome in outcomes)) for _, outcomes in _COLUMNS]
        lines.append(f"| {_cell(suite)} | " + " | ".join(cells) + " |")
    failures = result.failures
    if failures:
        lines += ["", f"### Failures ({len(failures)})", ""]
        for case in failures[:_LISTED]:
            message = (case.get("message") or case["outcome"]).splitlines()[0][:300]
            lines.append(f"- `{_cell(case['case_id'])}`: {_cell(message)}")
            if case.get("reproduce"):
                lines.append(f"  - reproduce: `{_cell(case['reproduce'])}`")
        if len(failures) > _LISTED:
            lines.append(f"- … and {len(failures) - _LISTED} more (see the JSON-lines or HTML report)")
    reasons = result.not_applicable_reasons()
    if reasons:
        lines += ["", "### Not applicable", ""]
        lines += [f"- {count} cases: {_cell(why)}" for why, count in reasons]
    return "\n".join(lines) + "\n"
