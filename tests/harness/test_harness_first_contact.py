"""A backend author's first hour: one clear line per mistake, the documented exit statuses, reports a CI
step can show, the Action, the shipped examples, and a working directory left clean."""

from __future__ import annotations

import io
import json
import re
import shlex
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

import schemas
from harness.cli.commands import build_parser
from harness.plugin.progress import RunProgress
from harness.reports.badge import render_badge
from harness.reports.html import render_html
from harness.reports.markdown import render_markdown
from harness.reports.result import RunResult

from .helpers import ROOT, fake_spec, read_jsonl, run_cli

FAKE = "python:tests.harness.fake_backends"


def _no_traceback(proc: Any) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr


def test_version_and_help_name_the_commands_defaults_and_exit_statuses() -> None:
    proc = run_cli("--version", cwd=ROOT)
    assert proc.returncode == 0 and re.search(r"vnext-conformance \d+\.\d+", proc.stdout)
    top = run_cli("--help", cwd=ROOT).stdout
    commands = ("run", "fuzz", "certificate", "list", "rules", "serve", "replay", "describe", "report", "build")
    for command in (*commands, "revalidate", "hash"):
        assert re.search(rf"^\s+{command}\s", top, re.MULTILINE), command
    assert "3 backend unavailable" in top and ":ref:" not in top and "``" not in top
    run_help = run_cli("run", "--help", cwd=ROOT).stdout
    assert "(default: reference)" in run_help and "(default: 60.0)" in run_help
    assert re.search(r"^suites: .*\bcontract_vectors\b", run_help, re.MULTILINE) and "exit status: 0 passed" in run_help


@pytest.mark.parametrize(
    "argv",
    [
        ["describe", "--backend", "python:nosuchmod:f"],
        ["serve", "--backend", "python:nosuchmod:f"],
        ["serve", "--backend", "ssh:host"],
        ["describe", "--backend", "exec:"],
        ["run", "--backend", "python:nosuchmod"],
        ["run", "--only", "describ"],
        ["run", "--case", "describe/test_describe_is_stabel"],
        ["list", "--case", "nope/none"],
        ["replay", "/nonexistent/bundle.json"],
        ["report", "/nonexistent/report.jsonl"],
        ["rules", "--report", "/nonexistent/report.jsonl"],
        ["run", "--require", "everything"],
        ["run", "--max-fail", "-1"],
    ],
)
def test_every_usage_mistake_is_one_line_and_exit_2(argv: list[str]) -> None:
    proc = run_cli(*argv, cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    _no_traceback(proc)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 3, proc.stderr


def test_a_mistyped_case_gets_a_close_match() -> None:
    proc = run_cli("run", "--case", "describe/test_describe_is_stabel", cwd=ROOT)
    assert "did you mean describe/test_describe_is_stable" in proc.stderr


def test_list_prints_the_selected_case_ids() -> None:
    proc = run_cli("list", "--only", "describe", cwd=ROOT)
    assert proc.returncode == 0
    ids = proc.stdout.split()
    assert "describe/test_describe_is_stable" in ids and all(case.startswith("describe/") for case in ids)


def test_an_unavailable_backend_gives_one_banner_with_its_stderr_and_exit_3(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    proc = run_cli("run", "--backend", fake_spec("exit-at-handshake"), "--report-json", str(report), cwd=tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert "STOPPED EARLY: the backend is unavailable (handshake_failed)" in proc.stdout
    assert "| fake: refusing the handshake" in proc.stdout
    assert "result: BACKEND UNAVAILABLE" in proc.stdout
    records = read_jsonl(report)
    assert records[0]["backend"]["error"]["kind"] == "handshake_failed"
    assert records[-1]["stopped"]["kind"] == "unavailable" and records[-1]["complete"] is False
    faults = records[-1]["backend_faults"]
    assert faults["handshake_failed"] == 1, faults  # the cause, once
    assert set(faults) <= {"handshake_failed", "unavailable"}, faults  # a case already started: the consequence
    _no_traceback(proc)


def test_max_fail_stops_after_the_first_failures(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    proc = run_cli(
        "run",
        "--backend",
        f"{FAKE}:make_wrong_limits",
        "--only",
        "describe",
        "-x",
        "--report-json",
        str(report),
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout
    records = read_jsonl(report)
    failed = [r for r in records if r["record"] == "case" and r["outcome"] == "failed"]
    assert len(failed) == 1
    assert records[-1]["stopped"]["kind"] == "failures"
    assert "STOPPED EARLY" in proc.stdout


def test_progress_lines_in_a_log(tmp_path: Path) -> None:
    proc = run_cli("run", "--only", "describe,corpus", "--progress-heartbeat", "0.5", cwd=tmp_path)
    assert proc.returncode == 0
    assert re.search(r"^describe: \d+ cases, 0 failed, 0 n/a in", proc.stderr, re.MULTILINE), proc.stderr
    assert re.search(r"^corpus: \d+ cases, 0 failed, 0 n/a in", proc.stderr, re.MULTILINE), proc.stderr


def test_a_heartbeat_line_comes_once_the_last_line_is_a_heartbeat_old() -> None:
    stream = io.StringIO()
    progress = RunProgress(heartbeat=30.0, live=False, stream=stream)
    progress.expect({"describe": 3})
    last = progress._last_line
    assert not progress.beat(last + 29.9) and stream.getvalue() == ""
    assert progress.beat(last + 30.0)
    assert re.fullmatch(r"\[\d\d:\d\d\] 0/3 cases \(0%\), 0 failed\n", stream.getvalue()), stream.getvalue()
    assert not progress.beat(progress._last_line + 1.0)


def test_a_run_leaves_only_its_cache_directory_and_the_reports_asked_for(tmp_path: Path) -> None:
    proc = run_cli("run", "--only", "describe,identities", "--junit-xml", "j.xml", "--report-md", "s.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == [".vnext-conformance", "j.xml", "s.md"]
    assert "hypothesis-statistics" not in (tmp_path / "j.xml").read_text()
    assert "@reproduce_failure" not in proc.stdout


class _Strict(HTMLParser):
    """Checks that every opened element is closed in order (void elements aside)."""

    VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_markdown_html_and_badge_reports(tmp_path: Path) -> None:
    stem = tmp_path / "r"
    proc = run_cli(
        "run", "--backend", f"{FAKE}:make_wrong_limits", "--only", "describe,corpus",
        "--report-json", f"{stem}.jsonl", "--report-md", f"{stem}.md", "--report-html", f"{stem}.html",
        "--badge", f"{stem}.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    result = RunResult.read(f"{stem}.jsonl")
    failing = {case["case_id"] for case in result.failures}
    assert "describe/test_contract_limit[max_execution_plan_wire_bytes]" in failing
    markdown = Path(f"{stem}.md").read_text()
    assert markdown == render_markdown(result)
    assert markdown.startswith("## vnext conformance: ❌ FAILED")
    table = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len({line.count("|") for line in table}) == 1 and len(table) == 2 + len(result.by_suite)
    assert all(f"`{case}`" in markdown for case in failing)
    html = Path(f"{stem}.html").read_text()
    assert html == render_html(result)
    parser = _Strict()
    parser.feed(html)
    assert parser.stack == []
    text = "".join(parser.text)
    assert all(case in text for case in failing) and "reproduce" in text
    badge = json.loads(Path(f"{stem}.json").read_text())
    assert badge == render_badge(result)
    assert badge == {"schemaVersion": 1, "label": "vnext conformance", "message": "10/12 passed", "color": "red"}
    again = run_cli("report", f"{stem}.jsonl", "--md", "-", cwd=tmp_path)
    assert again.returncode == 1 and again.stdout == markdown


def test_html_escapes_whatever_a_backend_wrote(tmp_path: Path) -> None:
    header = {"backend": {"spec": "exec:<script>", "description": None}, "contract": {}, "profile": "ci"}
    case = {
        "case_id": "describe/<b>x</b>",
        "suite": "describe",
        "outcome": "failed",
        "message": "</details><script>alert(1)</script>",
        "details": "&<>",
        "faults": [{"kind": "crash", "detail": "<i>"}],
        "backend_stderr": "<!--",
        "reproduce": "vnext-conformance run --case '<x>'",
    }
    result = RunResult(header, [case], footer={"complete": True})
    parser = _Strict()
    parser.feed(render_html(result))
    assert parser.stack == [] and "<script>" not in render_html(result)


def test_the_github_action_runs_only_real_options() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    steps = action["runs"]["steps"]
    used = {name for step in steps for name in re.findall(r"inputs\.([a-z-]+)", json.dumps(step))}
    assert used <= inputs
    script = next(step["run"] for step in steps if step.get("id") == "run")
    command = " ".join(script.split("\\\n"))
    start = command.index("vnext-conformance run")
    words = shlex.split(command[start:].split("\n")[0].replace('"${expectations[@]}"', ""))
    parser = build_parser()
    flags = [word for word in words if word.startswith("-")]
    run_parser = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    known = {flag for action_ in run_parser._actions for flag in action_.option_strings}
    assert flags and set(flags) <= known, set(flags) - known
    assert any(step.get("uses", "").startswith("actions/upload-artifact") for step in steps)


def test_the_documented_workflow_is_valid_yaml_and_uses_the_action() -> None:
    text = (ROOT / "docs" / "ci.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", text, re.DOTALL)
    assert block is not None
    workflow = yaml.safe_load(block.group(1))
    steps = workflow["jobs"]["vnext"]["steps"]
    conformance = next(step for step in steps if step.get("name") == "Conformance")
    assert conformance["with"]["backend"].startswith("exec:")


def test_the_shipped_examples_run(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    proc = run_cli(
        "run", "--backend", "exec:python3 -m harness.examples.stdlib_server", "--only", "describe",
        "--report-json", str(report),
        cwd=tmp_path,
    )  # fmt: skip
    outcomes = {r["case_id"]: r["outcome"] for r in read_jsonl(report) if r["record"] == "case"}
    assert proc.returncode == 1
    assert outcomes.pop("describe/test_backend_reaches_the_required_level") == "failed"
    assert set(outcomes.values()) <= {"passed", "not_applicable"} and "passed" in outcomes.values()
    template = run_cli("describe", "--backend", "python:harness.examples.backend_template:make", cwd=tmp_path)
    assert template.returncode == 0
    schemas.validate("protocol/describe.json", json.loads(template.stdout))
