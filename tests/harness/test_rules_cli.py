"""``vnext-conformance rules``: the catalogue listed and filtered, per backend, per run's report, as a CI gate.

Most cases call the command line's ``main`` in this process with captured output; the ones about the real
process (a malformed report on the real command line, a reader that stops early) start it. One real run (the
``describe`` and ``weights`` suites against the reference) writes the report the ``--report`` cases read;
the gate's passing and failing reports are copies of it with rule records changed.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import schemas
from conformance.rules import catalogue
from harness.cli import main
from harness.cli.exits import Exit
from harness.cli.rules import plain_table
from harness.reports import result as result_module
from harness.rules import Rule, RuleStatus
from tests.harness.helpers import PYTHON, ROOT, env, fake_spec, read_jsonl, run_cli

DESCRIBE_ONLY = "python:tests.harness.fake_backends:make_describe_only"


def _rules(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``vnext-conformance rules ARGS`` in this process: (status, stdout, stderr)."""
    status = main(["rules", *args])
    out, err = capsys.readouterr()
    return status, out, err


def _json_rows(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    status, out, err = _rules(capsys, "--json", *args)
    assert status == Exit.PASSED, err
    rows = [json.loads(line) for line in out.splitlines()]
    validator = schemas.validator("protocol/rules.json")
    for row in rows:
        validator.validate(row)
    return rows


def _one_line_error(status: int, out: str, err: str, expected: Exit = Exit.USAGE) -> str:
    assert status == expected, out + err
    assert "Traceback" not in out + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("vnext-conformance rules: "), err
    return lines[0]


def _table_rows(out: str) -> dict[str, list[str]]:
    """The plain table's rows by rule id, split into its columns at the header's column starts."""
    lines = out.splitlines()
    header, rule = lines[0], lines[1]
    assert set(rule) == {"-"}, out[:500]
    starts = [match.start() for match in re.finditer(r"\S+", header)]
    rows: dict[str, list[str]] = {}
    for line in lines[2:]:
        if not re.match(r"^\d\d\.", line):
            break
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
        rows[cells[0]] = cells
    return rows


# --------------------------------------------------------------------------- the catalogue


def test_every_rule_is_listed_with_its_class_section_and_reach(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _rules(capsys)
    assert status == Exit.PASSED and err == "", err
    assert out.splitlines()[0].split() == ["rule", "class", "section", "statement", "reach"]
    rows = _table_rows(out)
    rules = catalogue().rules
    assert list(rows) == [rule.id for rule in rules]
    for rule in rules:
        _, klass, section, statement, reach = rows[rule.id]
        assert klass == rule.rule_class.value and section == rule.section
        flat = " ".join(rule.statement.split())
        assert statement == flat if len(flat) <= 60 else (len(statement) == 60 and flat.startswith(statement[:-3]))
        if rule.reachable:
            assert reach == "reachable", rule.id
        else:
            assert rule.why_unreachable().startswith(reach.removesuffix("...")), rule.id
            assert reach.startswith(("needs ", "internal: ")), rule.id
    reachable = sum(rule.reachable for rule in rules)
    summary = f"{len(rules)} of the catalogue's {len(rules)} rules shown: {reachable} reachable, "
    assert summary + f"{len(rules) - reachable} unreachable" in out.splitlines()


def test_json_lines_are_schema_valid_and_say_what_the_catalogue_says(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json_rows(capsys)
    rules = catalogue().rules
    assert [row["id"] for row in rows] == [rule.id for rule in rules]
    for row, rule in zip(rows, rules, strict=True):
        assert row["statement"] == rule.statement and row["class"] == rule.rule_class.value
        assert row["kind"] == rule.kind and row["fields"] == dict(rule.fields)
        assert row["observable_through"] == list(rule.observable_through) and row["sheet"] == rule.sheet
        assert row["reachable"] is rule.reachable
        assert row["unreachable"] == (None if rule.reachable else rule.why_unreachable())
        assert row["backend"] is None and row["status"] is None and row["cases"] is None


def test_the_schema_knows_every_status() -> None:
    enum = schemas.load("protocol/rules.json")["properties"]["status"]["enum"]
    assert set(enum) == {None, *(status.value for status in RuleStatus)}


def _ids(rules: list[Rule]) -> list[str]:
    return [rule.id for rule in rules]


@pytest.mark.parametrize(
    ("args", "keep"),
    [
        (["--sheet", "02"], lambda rule: rule.sheet == "02"),
        (["--sheet", "01", "--sheet", "05"], lambda rule: rule.sheet in ("01", "05")),
        (["--class", "limit"], lambda rule: rule.rule_class.value == "limit"),
        (["--class", "order", "--sheet", "04"], lambda rule: rule.rule_class.value == "order" and rule.sheet == "04"),
        (["--rule", "05.9.1/*"], lambda rule: rule.id.startswith("05.9.1/")),
        (
            ["--rule", "01.1.1/identity_empty", "--rule", "02.8.*"],
            lambda rule: rule.id.startswith(("01.1.1/identity_empty", "02.8.")),
        ),
        (
            ["--rule", "0?.1.1/*", "--class", "rejection"],
            lambda rule: rule.id[2:7] == ".1.1/" and rule.rule_class.value == "rejection",
        ),
    ],
)
def test_filters_select_exactly_their_rules(capsys: pytest.CaptureFixture[str], args: list[str], keep: Any) -> None:
    expected = [rule.id for rule in catalogue().rules if keep(rule)]
    assert expected and len(expected) < len(catalogue().rules)
    assert [row["id"] for row in _json_rows(capsys, *args)] == expected
    status, out, _ = _rules(capsys, *args)
    assert status == Exit.PASSED and list(_table_rows(out)) == expected


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (["--rule", "05.9.1/step2_not_jsn"], "did you mean 05.9.1/step2_not_json"),
        (["--rule", "99.*"], "no rule '99.*'"),
        (["--status", "passed"], "--status needs --report"),
        (["--require-exercised"], "--require-exercised needs --report"),
        (["--backend", "ssh:host"], "unknown backend spec"),
        (["--backend", "python:nosuchmod:f"], "nosuchmod"),
    ],
)
def test_usage_mistakes_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], phrase: str
) -> None:
    assert phrase in _one_line_error(*_rules(capsys, *args))


def test_argparse_mistakes_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["--sheet", "06"], ["--class", "nonsense"], ["--status", "green", "--report", "x"]):
        with pytest.raises(SystemExit) as stopped:
            main(["rules", *args])
        assert stopped.value.code == Exit.USAGE
        _, err = capsys.readouterr()
        assert len(err.strip().splitlines()) == 1, err


def test_the_table_of_a_terminal_is_a_rich_table(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.delenv("TERM", raising=False)
    assert main(["rules", "--rule", "01.1.1/identity_empty"]) == Exit.PASSED
    text = screen.getvalue()
    assert "━" in text and "│" in text, text  # the rich table's rules
    assert "01.1.1/identity_empty" in text and "A stable identity of 0 bytes" in text


def test_plain_columns_are_aligned() -> None:
    text = plain_table(["a", "bb", "c"], [["xxx", "y", "z z"], ["x", "yyyy", ""]])
    assert text.splitlines() == ["a    bb    c", "------------", "xxx  y     z z", "x    yyyy"]


# --------------------------------------------------------------------------- per backend


def test_every_reachable_rule_is_checkable_with_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json_rows(capsys, "--backend", "reference")
    for row in rows:
        assert row["backend"] == {"checkable": row["reachable"], "missing": []}, row["id"]
    status, out, _ = _rules(capsys, "--backend", "reference")
    reachable = sum(row["reachable"] for row in rows)
    assert status == Exit.PASSED
    assert re.search(
        rf"^backend: reference -> vnext-conformance-reference \S+ \(python\): {reachable} rules checkable with this "
        r"backend$",
        out,
        re.MULTILINE,
    ), out[-1000:]


def test_a_describe_only_backend_waits_for_the_operations_of_each_rule(capsys: pytest.CaptureFixture[str]) -> None:
    rows = {row["id"]: row for row in _json_rows(capsys, "--backend", DESCRIBE_ONLY)}
    waiting: Counter[str] = Counter()
    checkable = 0
    for rule in catalogue().rules:
        backend = rows[rule.id]["backend"]
        if not rule.reachable:
            assert backend == {"checkable": False, "missing": []}, rule.id
        elif "describe" in rule.observable_through:
            assert backend == {"checkable": True, "missing": []}, rule.id
            checkable += 1
        else:
            assert backend == {"checkable": False, "missing": list(rule.observable_through)}, rule.id
            waiting.update(rule.observable_through)
    assert checkable >= 1 and waiting["build_plan"] > waiting["revalidate"] > 0
    status, out, _ = _rules(capsys, "--backend", DESCRIBE_ONLY)
    assert status == Exit.PASSED
    table = _table_rows(out)
    assert table["01.1.1/identity_empty"][5] == "needs one of " + ", ".join(
        catalogue().by_id["01.1.1/identity_empty"].observable_through
    )
    ranked = sorted(waiting.items(), key=lambda item: (-item[1], item[0]))
    waits = sum(1 for row in rows.values() if row["reachable"] and not row["backend"]["checkable"])
    expected = (
        f"backend: {DESCRIBE_ONLY} -> fake-full 1.0.0 (python): {checkable} rules checkable with this backend, "
        f"{waits} wait for operations " + ", ".join(f"{op} ({n})" for op, n in ranked)
    )
    assert expected in out.splitlines(), out[-2000:]


def test_a_backend_that_cannot_start_is_exit_3_with_the_usual_banner(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _rules(capsys, "--backend", fake_spec("exit-at-handshake"))
    assert status == Exit.UNAVAILABLE and out == "", out
    assert "Traceback" not in err
    first, *rest = err.splitlines()
    assert first.startswith("vnext-conformance rules: ") and "handshake_failed" in first, err
    assert rest[:1] == ["backend stderr (last lines):"] and "refusing the handshake" in err, err


# --------------------------------------------------------------------------- per run


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``(report, the run's stdout)`` of one ``run --only describe --only weights`` against the reference."""
    root = tmp_path_factory.mktemp("ran")
    report = root / "r.jsonl"
    done = run_cli(
        "run", "--profile", "ci", "--only", "describe", "--only", "weights", "--report-json", str(report),
        "--cache-dir", str(root / "cache"), cwd=root,
    )  # fmt: skip
    assert done.returncode == Exit.PASSED, done.stdout[-3000:] + done.stderr[-3000:]
    return report, done.stdout


def _records(report: Path) -> list[dict[str, Any]]:
    return read_jsonl(report)


def _rewritten(report: Path, target: Path, status_of: Any) -> Path:
    """A copy of ``report`` whose rule records carry ``status_of(record)`` (``None``: unchanged)."""
    lines = []
    for record in _records(report):
        if record["record"] == "rule":
            changed = status_of(record)
            if changed is not None:
                record = {**record, "status": changed, "cases": ["describe/test_describe_is_stable"]}
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_a_report_gives_each_rule_its_status_cases_and_the_summary_line(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str]
) -> None:
    report, run_stdout = ran
    records = {r["rule_id"]: r for r in _records(report) if r["record"] == "rule"}
    rows = _json_rows(capsys, "--report", str(report))
    assert {row["id"]: (row["status"], row["cases"]) for row in rows} == {
        rule_id: (record["status"], record["cases"]) for rule_id, record in records.items()
    }
    assert any(row["status"] == "passed" and row["cases"] for row in rows)
    status, out, err = _rules(capsys, "--report", str(report))
    assert status == Exit.PASSED and err == "", err
    run_line = next(line for line in run_stdout.splitlines() if line.startswith("contract rules: "))
    assert out.splitlines()[-1] == run_line  # the run summary's own line, from the same code
    table = _table_rows(out)
    passed = next(rule_id for rule_id, record in records.items() if len(record["cases"]) > 2)
    assert table[passed][5:] == [
        records[passed]["status"],
        f"{records[passed]['cases'][0]}, {records[passed]['cases'][1]} (+{len(records[passed]['cases']) - 2} more)",
    ]


def test_status_filters_a_report(capsys: pytest.CaptureFixture[str], ran: tuple[Path, str]) -> None:
    report, _ = ran
    records = [r for r in _records(report) if r["record"] == "rule"]
    for status in ("passed", "unreachable"):
        rows = _json_rows(capsys, "--report", str(report), "--status", status)
        assert [row["id"] for row in rows] == [r["rule_id"] for r in records if r["status"] == status]
    rows = _json_rows(capsys, "--report", str(report), "--status", "passed", "--sheet", "01")
    assert rows and all(row["status"] == "passed" and row["sheet"] == "01" for row in rows)


def test_the_summary_of_a_selection_counts_the_rules_shown(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str]
) -> None:
    report, _ = ran
    rows = _json_rows(capsys, "--report", str(report), "--sheet", "01")
    counts = Counter(row["status"] for row in rows)
    reachable = sum(row["reachable"] for row in rows)
    exercised = counts["passed"] + counts["failed"]
    status, out, _ = _rules(capsys, "--report", str(report), "--sheet", "01")
    assert status == Exit.PASSED
    assert out.splitlines()[-1] == (
        f"contract rules: {exercised}/{reachable} reachable rules checked ({100.0 * exercised / reachable:.1f}%); "
        f"{counts['failed']} failed, {counts['passed']} passed, {counts['not_applicable']} not applicable, "
        f"{counts['not_exercised']} not exercised, {counts['unreachable']} unreachable (of the rules shown)"
    )


def test_require_exercised_fails_on_a_filtered_run_and_lists_the_missing_rules(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str]
) -> None:
    report, _ = ran
    missing = [
        r["rule_id"] for r in _records(report) if r["record"] == "rule" and r["status"] in ("not_exercised", "failed")
    ]
    status, out, err = _rules(capsys, "--report", str(report), "--require-exercised")
    assert status == Exit.FAILED, out[-2000:]
    assert f"require-exercised: FAILED: {len(missing)} reachable rules are not exercised or failed" in out
    listed = re.findall(r"^  (\S+) \[not_exercised\]$", out, re.MULTILINE)
    assert listed == missing
    assert "was filtered (--only)" in err and "Traceback" not in err


def test_require_exercised_passes_when_every_reachable_rule_shown_was_checked(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], tmp_path: Path
) -> None:
    report, _ = ran
    checked = [r["rule_id"] for r in _records(report) if r["record"] == "rule" and r["status"] == "passed"]
    rules = [arg for rule_id in checked[:30] for arg in ("--rule", rule_id)]
    status, out, _ = _rules(capsys, "--report", str(report), "--require-exercised", *rules)
    assert status == Exit.PASSED, out[-2000:]
    assert f"require-exercised: passed ({min(30, len(checked))} reachable rules shown, none missing)" in out

    # a full run in which every reachable rule was checked, and some were not applicable to the backend
    def checked_or_not_applicable(record: dict[str, Any]) -> str | None:
        if record["status"] in ("passed", "unreachable"):
            return None
        return "not_applicable" if len(record["rule_id"]) % 2 else "passed"

    full = _rewritten(report, tmp_path / "full.jsonl", checked_or_not_applicable)
    status, out, _ = _rules(capsys, "--report", str(full), "--require-exercised", "--json")
    assert status == Exit.PASSED and all(json.loads(line)["status"] != "not_exercised" for line in out.splitlines())


def test_require_exercised_fails_on_a_failed_rule(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], tmp_path: Path
) -> None:
    report, _ = ran
    victim = next(r["rule_id"] for r in _records(report) if r["record"] == "rule" and r["status"] == "passed")
    planted = _rewritten(
        report,
        tmp_path / "failed.jsonl",
        lambda r: "failed" if r["rule_id"] == victim else (None if r["status"] != "not_exercised" else "passed"),
    )
    status, out, err = _rules(capsys, "--report", str(planted), "--require-exercised", "--json")
    assert status == Exit.FAILED
    assert all(json.loads(line)["id"] for line in out.splitlines())  # stdout stays JSON lines
    assert "require-exercised: FAILED: 1 reachable rules are not exercised or failed in the report (1 failed)" in err
    assert f"  {victim} [failed]" in err.splitlines()


def test_require_exercised_fails_on_an_unreachable_rule_a_case_claimed(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], tmp_path: Path
) -> None:
    report, _ = ran
    catalogue_rules = catalogue().by_id
    victim = next(
        r["rule_id"]
        for r in _records(report)
        if r["record"] == "rule" and r["status"] == "unreachable" and catalogue_rules[r["rule_id"]].internal
    )
    planted = _rewritten(
        report,
        tmp_path / "claimed.jsonl",
        lambda r: "passed" if r["rule_id"] == victim or r["status"] == "not_exercised" else None,
    )
    status, out, err = _rules(capsys, "--report", str(planted), "--require-exercised")
    assert status == Exit.FAILED, out[-2000:]
    assert "require-exercised: FAILED: 1 rules the catalogue marks as observable by no operation were checked" in out
    assert f"  {victim} [internal: " in out and "Traceback" not in err


def test_rules_the_report_does_not_know_count_as_not_checked(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], tmp_path: Path
) -> None:
    report, _ = ran
    records = _records(report)
    dropped = next(r["rule_id"] for r in records if r["record"] == "rule" and r["status"] == "passed")
    kept = [r for r in records if r.get("rule_id") != dropped]
    kept.insert(1, {"record": "rule", "rule_id": "01.9/retired_rule", "status": "passed", "cases": [],
                    "unreachable": None})  # fmt: skip
    older = tmp_path / "older.jsonl"
    older.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
    status, out, err = _rules(capsys, "--report", str(older), "--rule", dropped, "--json")
    assert status == Exit.PASSED
    assert json.loads(out)["status"] == "not_exercised" and json.loads(out)["cases"] == []
    assert "1 rules of the catalogue have no record" in err and "1 rules of" in err and "no longer" in err


# --------------------------------------------------------------------------- malformed reports


_RULE = '{"record":"rule","rule_id":"x","status":"passed","cases":[],"unreachable":null}\n'


def _header_line(report: Path) -> str:
    return report.read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        ("{not json\n", "line 1:"),
        ('{"record":"rule","record":"rule"}\n', "line 1: duplicate"),  # the strict decoder's refusal
        ("[1, 2]\n", "line 1: not a report record"),
        ('{"record":"verdict"}\n', "line 1: not a report record"),
        ("HEADER\n" + _RULE.replace('"passed"', '"green"'), "line 2: rule record['status']"),
        ("HEADER\n" + _RULE + "-0\n", "line 3: "),
        ("HEADER\n", "has no rule records"),
        ("", "has no rule records"),
        ("HEADER\n\xff\n", "line 2: invalid UTF-8"),
    ],
)
def test_a_malformed_report_is_a_typed_one_line_usage_error(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], tmp_path: Path, body: str, phrase: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(body.replace("HEADER", _header_line(ran[0])).encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    line = _one_line_error(*_rules(capsys, "--report", str(path)))
    assert str(path) in line and phrase in line, line


def test_a_missing_or_oversized_report_is_a_one_line_usage_error(
    capsys: pytest.CaptureFixture[str], ran: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    line = _one_line_error(*_rules(capsys, "--report", str(ran[0].with_name("absent.jsonl"))))
    assert "cannot read" in line and "No such file" in line
    monkeypatch.setattr(result_module, "_MAX_REPORT_BYTES", 4096)
    line = _one_line_error(*_rules(capsys, "--report", str(ran[0])))
    assert "larger than the 4096 bytes a report may have" in line
    status, _ = main(["report", str(ran[0])]), capsys.readouterr()
    assert status == Exit.USAGE


def test_the_real_command_line_reports_a_malformed_report_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"record":"rule","rule_id":1}\n', encoding="utf-8")
    done = run_cli("rules", "--report", str(path), cwd=ROOT)
    assert done.returncode == Exit.USAGE and done.stdout == ""
    assert done.stderr.startswith("vnext-conformance rules: ") and len(done.stderr.splitlines()) == 1, done.stderr
    assert "line 1: rule record" in done.stderr
    assert main(["report", str(path)]) == Exit.USAGE  # the report command reads it the same way
    assert "is not a JSON-lines report: line 1: rule record" in capsys.readouterr().err
    assert "has no rule records" in _one_line_error(*_rules(capsys, "--report", "/dev/null"))


def test_a_reader_that_stops_early_is_not_an_error() -> None:
    child = subprocess.Popen(
        [PYTHON, "-m", "harness.cli", "rules"],
        cwd=ROOT,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline().startswith(b"rule ")
    child.stdout.close()
    errors = child.stderr.read()
    assert child.wait(timeout=300) == Exit.PASSED, errors
    assert b"Traceback" not in errors and b"BrokenPipe" not in errors, errors
