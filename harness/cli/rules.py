"""``vnext-conformance rules``: the rule catalogue, what a backend can be checked on, and what a run checked.

Every rule of the catalogue (``conformance/rules/``, ``harness.rules``) is listed with its id, class, section,
a clipped statement and whether an operation of the protocol can expose a backend breaking it (else what it
``needs`` or why it is ``internal``). ``--sheet``, ``--rule`` (ids or ``fnmatch`` patterns), ``--class`` and
``--status`` select rules.

* ``--backend SPEC`` asks the backend's ``describe`` (through the connection a run opens) and says per rule
  whether the backend can be checked on it: it implements at least one operation the rule is observable
  through; otherwise which operations it could implement to be.
* ``--report REPORT.jsonl`` reads a run's JSON-lines report (bounded read, strict decoder, every record
  schema-checked) and shows each rule's status in that run and the cases that checked it; the last line is the
  run summary's rule line.
* ``--require-exercised`` (with ``--report``) is a CI gate: exit 1 when a reachable rule shown is
  ``not_exercised`` or ``failed`` in the report, or when a case checked a rule the catalogue marks as
  observable by no operation (the marking or the case's claim is wrong). Use it on the report of an
  unfiltered run: a run with ``--only``, ``--skip`` or ``--case`` leaves the rules of the cases it did not
  run not exercised.
* ``--json`` prints one JSON object per rule (``schemas/protocol/rules.json``) and nothing else on stdout.

On a terminal the listing is a ``rich`` table; elsewhere plain aligned columns. Exit status: 0 listed (and,
with ``--require-exercised``, no reachable rule shown is missing), 1 the gate failed, 2 usage error (an
unknown rule, an unreadable or malformed report), 3 backend unavailable.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.cli.describe import describe_backend
from harness.cli.exits import Exit
from harness.protocol.description import BackendDescription
from harness.reports.result import ReportError, RunResult
from harness.reports.summary import rule_coverage_line
from harness.rules import Rule, RuleCatalogue, RuleClass, RuleStatus, UnknownRule, sheets_in

__all__ = ["RULES_HELP", "RuleRow", "add_rules_arguments", "rules"]

RULES_HELP: Final = "list the contract rules: per backend (--backend) and per run (--report)"
SHEETS: Final = ("01", "02", "03", "04", "05")
#: Statuses ``--require-exercised`` refuses for a reachable rule.
GATED: Final = frozenset({RuleStatus.NOT_EXERCISED, RuleStatus.FAILED})
#: Statuses ``--require-exercised`` refuses for a rule no operation can observe: a case claimed it.
CLAIMED: Final = frozenset({RuleStatus.PASSED, RuleStatus.FAILED})
#: Run arguments that leave cases out (the report's header keeps the run's arguments).
_SELECTING: Final = ("--only", "--skip", "--case", "-k", "--deselect")
_STATEMENT: Final = 60
_WHY: Final = 48
_CASES_SHOWN: Final = 2
_PROG: Final = "vnext-conformance rules"
#: Columns of the terminal table that never wrap (short words).
_UNWRAPPED: Final = frozenset({"class", "section", "status"})


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "--require-exercised only makes sense on the report of an unfiltered run (no --only/--skip/--case).\n"
        "exit status: 0 listed (--require-exercised: no reachable rule shown is not_exercised or failed), "
        "1 the gate failed, 2 usage error, 3 backend unavailable"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--sheet",
        action="append",
        default=[],
        choices=SHEETS,
        metavar="NN",
        help="only this sheet, 01..05 (repeatable)",
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="PATTERN",
        help="only this rule id or fnmatch pattern (repeatable)",
    )
    parser.add_argument(
        "--class",
        dest="rule_class",
        action="append",
        default=[],
        choices=[value.value for value in RuleClass],
        metavar="CLASS",
        help=f"only rules of this class (repeatable): {', '.join(value.value for value in RuleClass)}",
    )
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        choices=[value.value for value in RuleStatus],
        metavar="STATUS",
        help=f"only rules with this status in the --report run (repeatable): "
        f"{', '.join(value.value for value in RuleStatus)}",
    )
    parser.add_argument(
        "--backend",
        dest="vnext_backend",
        default=None,
        metavar="SPEC",
        help="say per rule whether this backend can be checked on it: reference | python:MODULE:FACTORY | "
        "exec:COMMAND ...",
    )
    parser.add_argument("--report", default=None, metavar="REPORT.jsonl", help="a run's JSON-lines report")
    parser.add_argument(
        "--require-exercised",
        action="store_true",
        help="with --report: exit 1 when a reachable rule shown is not_exercised or failed (CI, on a full run)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per rule (schemas/protocol/rules.json)")


# --------------------------------------------------------------------------- the rows


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One rule as listed: the catalogue's, and what the backend and the run say of it when asked."""

    rule: Rule
    missing: tuple[str, ...] | None = None
    """With a backend: the operations it could implement to be checked on the rule (empty: it can be, or the
    rule is unreachable); ``None`` without a backend."""
    status: RuleStatus | None = None
    cases: tuple[str, ...] | None = None

    @property
    def checkable(self) -> bool:
        return self.rule.reachable and self.missing == ()

    def to_wire(self) -> dict[str, Any]:
        rule = self.rule
        return {
            "id": rule.id,
            "sheet": rule.sheet,
            "section": rule.section,
            "class": rule.rule_class.value,
            "kind": rule.kind,
            "fields": dict(rule.fields),
            "statement": rule.statement,
            "observable_through": list(rule.observable_through),
            "reachable": rule.reachable,
            "unreachable": None if rule.reachable else rule.why_unreachable(),
            "backend": None if self.missing is None else {"checkable": self.checkable, "missing": list(self.missing)},
            "status": None if self.status is None else self.status.value,
            "cases": None if self.cases is None else list(self.cases),
        }


def _missing(rule: Rule, operations: frozenset[str]) -> tuple[str, ...]:
    if not rule.reachable or operations.intersection(rule.observable_through):
        return ()
    return rule.observable_through


@dataclass(frozen=True, slots=True)
class _RunRules:
    """The rule records of a report, read against the catalogue of today."""

    statuses: Mapping[str, RuleStatus]
    cases: Mapping[str, tuple[str, ...]]
    absent: tuple[str, ...]
    """Catalogue rules the report has no record of (it was written with an older catalogue)."""
    retired: tuple[str, ...]
    """Rules of the report that are no longer in the catalogue."""


def _run_rules(result: RunResult, catalogue: RuleCatalogue) -> _RunRules:
    records = {record["rule_id"]: record for record in result.rules}
    statuses: dict[str, RuleStatus] = {}
    cases: dict[str, tuple[str, ...]] = {}
    absent: list[str] = []
    for rule in catalogue.rules:
        record = records.get(rule.id)
        if record is None:
            absent.append(rule.id)
            status, checked = RuleStatus.NOT_EXERCISED, ()
        else:
            status, checked = RuleStatus(record["status"]), tuple(record["cases"])
        # No case checked it: whether that is "not exercised" or "unreachable" is the catalogue's call today.
        if status in (RuleStatus.NOT_EXERCISED, RuleStatus.UNREACHABLE):
            status = RuleStatus.NOT_EXERCISED if rule.reachable else RuleStatus.UNREACHABLE
        statuses[rule.id], cases[rule.id] = status, checked
    retired = tuple(rule_id for rule_id in records if rule_id not in catalogue.by_id)
    return _RunRules(statuses, cases, tuple(absent), retired)


# --------------------------------------------------------------------------- the command


class _Usage(Exception):
    """A usage problem, already worded for the one-line message."""


@cache
def _catalogue() -> RuleCatalogue:
    return RuleCatalogue.load(sheets_in(Path(str(resources.files("conformance") / "rules"))))


def _selected(args: argparse.Namespace, catalogue: RuleCatalogue) -> list[Rule]:
    chosen: Iterable[Rule] = catalogue.rules
    if args.rule:
        try:
            ids = set(catalogue.expand(args.rule))
        except UnknownRule as exc:
            name = next(name for name in args.rule if not _matches(catalogue, name))
            close = difflib.get_close_matches(name, list(catalogue.by_id), n=3, cutoff=0.6)
            raise _Usage(f"{exc}" + (f"; did you mean {', '.join(close)}?" if close else "")) from None
        chosen = [rule for rule in chosen if rule.id in ids]
    if args.sheet:
        chosen = [rule for rule in chosen if rule.sheet in args.sheet]
    if args.rule_class:
        chosen = [rule for rule in chosen if rule.rule_class.value in args.rule_class]
    return list(chosen)


def _matches(catalogue: RuleCatalogue, name: str) -> bool:
    try:
        catalogue.expand([name])
    except UnknownRule:
        return False
    return True


def _read_report(path: str) -> RunResult:
    try:
        result = RunResult.read(path, validate=True)
    except OSError as exc:
        raise _Usage(f"cannot read {path}: {exc.strerror or exc}") from None
    except ReportError as exc:
        raise _Usage(f"{path} is not a JSON-lines report: {exc}") from None
    if not result.rules:
        raise _Usage(f"{path} has no rule records (its run finished no case, or wrote no footer)")
    return result


def rules(args: argparse.Namespace) -> int:
    try:
        if args.status and args.report is None:
            raise _Usage("--status needs --report (the statuses are a run's)")
        if args.require_exercised and args.report is None:
            raise _Usage("--require-exercised needs --report")
        catalogue = _catalogue()
        selected = _selected(args, catalogue)
        result = _read_report(args.report) if args.report is not None else None
    except _Usage as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return Exit.USAGE
    description: BackendDescription | None = None
    if args.vnext_backend is not None:
        answer = describe_backend(args, "rules")
        if isinstance(answer, Exit):
            return answer
        description = answer
    run = _run_rules(result, catalogue) if result is not None else None
    rows = _rows(selected, description, run)
    if args.status:
        rows = [row for row in rows if row.status is not None and row.status.value in args.status]
    try:
        return _show(args, rows, catalogue, description, result, run)
    except BrokenPipeError:  # the reader stopped early (| head): the listing is not a failure
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return Exit.PASSED


def _rows(selected: Sequence[Rule], description: BackendDescription | None, run: _RunRules | None) -> list[RuleRow]:
    operations = frozenset(description.operations) if description is not None else None
    return [
        RuleRow(
            rule,
            None if operations is None else _missing(rule, operations),
            None if run is None else run.statuses[rule.id],
            None if run is None else run.cases[rule.id],
        )
        for rule in selected
    ]


def _show(
    args: argparse.Namespace,
    rows: Sequence[RuleRow],
    catalogue: RuleCatalogue,
    description: BackendDescription | None,
    result: RunResult | None,
    run: _RunRules | None,
) -> int:
    notes = _notes(args, result, run)
    gate = _gate(rows) if args.require_exercised else None
    if args.json:
        for row in rows:
            sys.stdout.write(json.dumps(row.to_wire(), ensure_ascii=False, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        for line in notes + (gate[1] if gate else []):
            print(line, file=sys.stderr)
    else:
        whole = len(rows) == len(catalogue.rules) and not args.status
        lines = _summary(args, rows, catalogue, description, result, whole)
        _render(rows, description is not None, run is not None, sys.stdout)
        for line in lines + (gate[1] if gate else []):
            print(line)
        sys.stdout.flush()
        for line in notes:
            print(line, file=sys.stderr)
    return gate[0] if gate else Exit.PASSED


def _gate(rows: Sequence[RuleRow]) -> tuple[Exit, list[str]]:
    missing = [row for row in rows if row.rule.reachable and row.status in GATED]
    claimed = [row for row in rows if not row.rule.reachable and row.status in CLAIMED]
    if not missing and not claimed:
        checked = sum(row.rule.reachable for row in rows)
        return Exit.PASSED, [f"require-exercised: passed ({checked} reachable rules shown, none missing)"]
    lines = []
    if missing:
        counts = Counter(row.status.value for row in missing if row.status is not None)
        lines.append(
            f"require-exercised: FAILED: {len(missing)} reachable rules are not exercised or failed in the report ("
            + ", ".join(f"{counts[name]} {name}" for name in sorted(counts))
            + ")"
        )
        lines += [f"  {row.rule.id} [{row.status.value if row.status else '?'}]" for row in missing]
    if claimed:
        lines.append(
            f"require-exercised: FAILED: {len(claimed)} rules the catalogue marks as observable by no operation were "
            "checked by a case (the marking or the case's claim is wrong)"
        )
        lines += [f"  {row.rule.id} [{row.rule.why_unreachable()}]" for row in claimed]
    return Exit.FAILED, lines


def _notes(args: argparse.Namespace, result: RunResult | None, run: _RunRules | None) -> list[str]:
    if result is None or run is None:
        return []
    notes = []
    if run.absent:
        notes.append(
            f"{_PROG}: note: {len(run.absent)} rules of the catalogue have no record in {args.report} (a run of an "
            "older catalogue); no case of that run checked them"
        )
    if run.retired:
        notes.append(f"{_PROG}: note: {len(run.retired)} rules of {args.report} are no longer in the catalogue")
    if args.require_exercised:
        argv = [str(arg) for arg in result.header.get("argv", [])]
        selecting = sorted({arg.split("=")[0] for arg in argv if arg.split("=")[0] in _SELECTING})
        if selecting:
            notes.append(
                f"{_PROG}: note: the run of {args.report} was filtered ({', '.join(selecting)}): the rules of the "
                "cases it left out count as not exercised"
            )
        if not result.complete:
            notes.append(f"{_PROG}: note: the run of {args.report} did not complete (its footer says so)")
    return notes


def _summary(
    args: argparse.Namespace,
    rows: Sequence[RuleRow],
    catalogue: RuleCatalogue,
    description: BackendDescription | None,
    result: RunResult | None,
    whole: bool,
) -> list[str]:
    reachable = [row for row in rows if row.rule.reachable]
    lines = [
        f"{len(rows)} of the catalogue's {len(catalogue.rules)} rules shown: {len(reachable)} reachable, "
        f"{len(rows) - len(reachable)} unreachable"
    ]
    if description is not None:
        impl = description.implementation
        checkable = [row for row in reachable if row.checkable]
        waiting = [row for row in reachable if not row.checkable]
        line = f"backend: {args.vnext_backend} -> {impl.name} {impl.version} ({impl.language}): "
        line += f"{len(checkable)} rules checkable with this backend"
        if waiting:
            wanted = Counter(operation for row in waiting for operation in row.missing or ())
            ranked = sorted(wanted.items(), key=lambda item: (-item[1], item[0]))
            line += f", {len(waiting)} wait for operations " + ", ".join(f"{op} ({n})" for op, n in ranked)
        lines.append(line)
    if result is not None:
        footer_rules = (result.footer or {}).get("rules")
        if whole and footer_rules:  # the run's own line, as its summary printed it
            lines.append(
                rule_coverage_line(footer_rules["by_status"], footer_rules["exercised"], footer_rules["reachable"])
            )
        else:
            counts = Counter(row.status.value for row in rows if row.status is not None)
            exercised = sum(row.status in (RuleStatus.PASSED, RuleStatus.FAILED) for row in reachable)
            lines.append(rule_coverage_line(counts, exercised, len(reachable)) + " (of the rules shown)")
    return lines


# --------------------------------------------------------------------------- rendering


def _clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _backend_cell(row: RuleRow) -> str:
    if not row.rule.reachable:
        return "-"
    if row.checkable:
        return "checkable"
    missing = row.missing or ()
    return f"needs {missing[0]}" if len(missing) == 1 else f"needs one of {', '.join(missing)}"


def _cases_cell(row: RuleRow) -> str:
    cases = row.cases or ()
    if not cases:
        return ""
    shown = ", ".join(cases[:_CASES_SHOWN])
    return shown + (f" (+{len(cases) - _CASES_SHOWN} more)" if len(cases) > _CASES_SHOWN else "")


def _columns(with_backend: bool, with_run: bool) -> list[tuple[str, Callable[[RuleRow], str]]]:
    columns: list[tuple[str, Callable[[RuleRow], str]]] = [
        ("rule", lambda row: row.rule.id),
        ("class", lambda row: row.rule.rule_class.value),
        ("section", lambda row: row.rule.section),
        ("statement", lambda row: _clip(row.rule.statement, _STATEMENT)),
        ("reach", lambda row: "reachable" if row.rule.reachable else _clip(row.rule.why_unreachable(), _WHY)),
    ]
    if with_backend:
        columns.append(("backend", _backend_cell))
    if with_run:
        columns.append(("status", lambda row: row.status.value if row.status else ""))
        columns.append(("cases", _cases_cell))
    return columns


def _render(rows: Sequence[RuleRow], with_backend: bool, with_run: bool, out: TextIO) -> None:
    columns = _columns(with_backend, with_run)
    cells = [[cell(row) for _, cell in columns] for row in rows]
    console = Console(file=out, highlight=False, soft_wrap=False)
    if console.is_terminal:
        table = Table(show_edge=False, pad_edge=False)
        for name, _ in columns:
            if name in _UNWRAPPED:
                table.add_column(name, no_wrap=True)
            else:  # ids and texts wrap onto more lines rather than lose characters
                table.add_column(name, overflow="fold", min_width=16 if name == "rule" else None)
        for values in cells:
            table.add_row(*(Text(value) for value in values))
        console.print(table)
        return
    out.write(plain_table([name for name, _ in columns], cells))


def plain_table(header: Sequence[str], cells: Sequence[Sequence[str]]) -> str:
    """Aligned columns (two spaces apart, the last one unpadded), a header and a rule under it."""
    widths = [max([len(name), *(len(values[index]) for values in cells)]) for index, name in enumerate(header)]

    def line(values: Sequence[str]) -> str:
        padded = [value.ljust(width) for value, width in zip(values[:-1], widths[:-1], strict=True)]
        return "  ".join([*padded, values[-1]]).rstrip()

    top = line(header)
    return "\n".join([top, "-" * len(top), *(line(values) for values in cells)]) + "\n"
