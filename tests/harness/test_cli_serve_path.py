"""``vnext-conformance serve`` takes its own light path: the same options, no test framework imported."""

from __future__ import annotations

import subprocess

import pytest

from harness.cli.commands import build_parser
from harness.cli.serve import serve_parser
from harness.reports.exits import PytestStatus

from .helpers import PYTHON, ROOT, env

_ARGV = ["--backend", "python:tests.harness.fake_backends:make", "--max-request-bytes", "4096", "--validate-protocol"]


def test_the_serve_parser_reads_every_serve_option_like_the_full_parser() -> None:
    full = vars(build_parser().parse_args(["serve", *_ARGV]))
    light = vars(serve_parser().parse_args(_ARGV))
    assert {key: full[key] for key in light} == light
    assert set(full) - set(light) <= {"func", "command"}


def test_serving_imports_neither_pytest_nor_hypothesis() -> None:
    probe = (
        "import sys\n"
        "from harness.cli import main\n"
        "sys.stdin = open('/dev/null')\n"
        "status = main(['serve'])\n"
        "loaded = sorted(m for m in ('pytest', '_pytest', 'hypothesis') if m in sys.modules)\n"
        "print(status, loaded, file=sys.__stdout__)\n"
    )
    proc = subprocess.run(
        [PYTHON, "-c", probe], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(maxsplit=1)[1].strip() == "[]", proc.stdout


def test_serve_usage_errors_are_one_line_with_status_2() -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "harness.cli", "serve", "--no-such-option"],
        cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--help" in proc.stderr, proc.stderr


def test_the_pytest_statuses_are_pytests_own() -> None:
    for status in PytestStatus:
        assert int(status) == int(getattr(pytest.ExitCode, status.name))
