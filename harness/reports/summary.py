"""The readable end-of-run summary: per-suite counts, failures with reproduction commands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.protocol.operations import Level
from harness.reports.jsonl import CaseRecord, Totals
from harness.rules import RuleStatus, RuleTally

__all__ = ["render_summary", "rule_coverage_line"]

#: Failures listed one by one; the rest are counted (the reports hold all of them).
_LISTED_FAILURES = 12
_COLUMNS = (
    ("passed", ("passed", "xpassed")),
    ("failed", ("failed", "error")),
    ("n/a", ("not_applicable",)),
    ("xfailed", ("xfailed",)),
    ("skipped", ("skipped",)),
)


def rule_coverage_line(counts: Mapping[str, int], exercised: int, reachable: int) -> str:
    """The rule line of a run's summary: the share of reachable rules checked, then the rules per status."""
    share = 100.0 * exercised / reachable if reachable else 0.0
    return f"contract rules: {exercised}/{reachable} reachable rules checked ({share:.1f}%); " + ", ".join(
        f"{counts.get(status.value, 0)} {status.value.replace('_', ' ')}" for status in RuleStatus
    )


def render_summary(
    *,
    spec: str,
    description: Mapping[str, Any] | None,
    totals: Totals,
    failures: Sequence[CaseRecord],
    faults: Mapping[str, int],
    report_path: str | None,
    interrupted: bool = False,
    rules: RuleTally | None = None,
    required: Level = Level.PLANNING,
    stopped: tuple[str, str] | None = None,
    not_applicable: Mapping[str, int] | None = None,
    backend_stderr: str = "",
) -> list[str]:
    """The summary as lines of text."""
    lines: list[str] = []
    if description:
        impl = description["implementation"]
        contract = description["contract"]
        lines.append(
            f"backend: {spec} -> {impl['name']} {impl['version']} ({impl['language']}), "
            f"contract {contract['crate']} {contract['version']}"
        )
        reached = Level.reached(description["operations"])
        lines.append(
            f"conformance level: {reached.label if reached else 'none'} reached (the run requires {required.label})"
        )
    else:
        lines.append(f"backend: {spec}")
    suites = sorted(totals.by_suite)
    width = max([len("suite"), len("total"), *(len(name) for name in suites)])
    header = "suite".ljust(width) + "".join(f"{name:>9}" for name, _ in _COLUMNS)
    lines.append(header)
    lines.append("-" * len(header))

    def row(name: str, counts: Mapping[str, int]) -> str:
        return name.ljust(width) + "".join(f"{sum(counts.get(k, 0) for k in keys):>9}" for _, keys in _COLUMNS)

    for suite in suites:
        lines.append(row(suite, totals.by_suite[suite]))
    lines.append("-" * len(header))
    lines.append(row("total", totals.total()))
    if rules is not None and rules.cases:
        lines.append(rule_coverage_line(rules.counts(), *rules.coverage()))
        failed = [rule_id for rule_id, status in rules.statuses().items() if status == RuleStatus.FAILED]
        if failed:
            lines.append(
                f"  rules failed ({len(failed)}): " + ", ".join(failed[:20]) + (" ..." if len(failed) > 20 else "")
            )
    if not_applicable:
        total = sum(not_applicable.values())
        reasons = sorted(not_applicable.items(), key=lambda item: (-item[1], item[0]))
        lines.append(
            f"not applicable ({total}): " + "; ".join(f"{count} because {why[:120]}" for why, count in reasons[:5])
        )
    if faults:
        lines.append("backend faults: " + ", ".join(f"{kind} x{faults[kind]}" for kind in sorted(faults)))
    if failures:
        lines.append("")
        lines.append(f"failures ({len(failures)}):")
        for record in failures[:_LISTED_FAILURES]:
            message = record.message.splitlines()[0] if record.message else record.outcome
            lines.append(f"  {record.case_id} [{record.outcome}]: {message[:200]}")
            lines.append(f"    reproduce: {record.reproduce}")
        if len(failures) > _LISTED_FAILURES:
            lines.append(f"  ... and {len(failures) - _LISTED_FAILURES} more (every one is in the reports)")
    if report_path:
        lines.append(f"JSON-lines report: {report_path}")
    if stopped is not None:
        lines.append("")
        lines.append(f"STOPPED EARLY: {stopped[1]}")
        tail = [line for line in backend_stderr.splitlines() if line.strip()][-15:]
        if tail:
            lines.append("the backend's stderr ended with:")
            lines.extend(f"  | {line[:200]}" for line in tail)
    if interrupted:
        finished = sum(totals.total().values())
        lines.append(f"result: INTERRUPTED after {finished} finished cases (the reports say complete: false)")
        return lines
    if stopped is not None and stopped[0] == "unavailable":
        lines.append("result: BACKEND UNAVAILABLE (fix the cause above; see harness/PROTOCOL.md §4 and §6)")
        return lines
    verdict = "FAILED" if totals.failed() else "PASSED"
    partial = " of the cases that ran; the run stopped early" if stopped is not None else ""
    lines.append(f"result: {verdict}{partial} (not-applicable, skipped and xfailed cases do not fail a run)")
    return lines
