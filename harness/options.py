"""The harness's options, declared once for the command line and the pytest plugin.

Each ``Option`` names its flag, default and help, and the commands that take it; the same
declaration adds it to an ``argparse`` parser (``vnext-conformance run``, ``replay``, ...) and to
pytest (``pytest --pyargs conformance --backend ...``), under the same flag and default.
``vnext-conformance run`` hands its values to pytest with ``pytest_argv``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from harness.connection.exec import ExecOptions

__all__ = [
    "OPTIONS",
    "Option",
    "add_to_parser",
    "add_to_pytest",
    "exec_options",
    "pytest_argv",
]

_MIB: Final = 1024 * 1024
_DEFAULTS: Final = ExecOptions()


@dataclass(frozen=True, slots=True)
class Option:
    """One option: ``dest`` is its name in both namespaces (prefixed ``vnext_`` to stay clear of pytest's)."""

    flag: str
    dest: str
    help: str
    default: Any = None
    type: Callable[[str], Any] | None = None
    action: str = "store"
    metavar: str | None = None
    commands: frozenset[str] = frozenset({"run"})
    pytest: bool = True
    hidden: bool = False

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dest": self.dest, "default": self.default, "action": self.action}
        default = self.default
        shown = "" if default in (None, [], False) else f" (default: {default})"
        out["help"] = argparse.SUPPRESS if self.hidden else self.help + shown
        if self.type is not None:
            out["type"] = self.type
        if self.metavar is not None:
            out["metavar"] = self.metavar
        return out


_EXEC: Final = frozenset({"run", "fuzz", "replay", "describe", "rules"})
_RUNS: Final = frozenset({"run", "fuzz"})


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return value


def _byte_cap(text: str) -> int:
    value = int(text)
    if value < 1024:
        raise argparse.ArgumentTypeError(f"must be at least 1024 bytes, got {text!r}")
    return value


OPTIONS: Final[tuple[Option, ...]] = (
    Option(
        "--backend",
        "vnext_backend",
        "backend under test: reference | python:MODULE:FACTORY | exec:COMMAND ...",
        default="reference",
        metavar="SPEC",
        commands=frozenset({"run", "fuzz", "replay", "describe", "serve"}),
    ),
    Option(
        "--only",
        "vnext_only",
        "run only this suite (repeatable, or comma-separated)",
        [],
        action="append",
        metavar="SUITE",
        commands=frozenset({"run", "fuzz", "list"}),
    ),
    Option(
        "--skip",
        "vnext_skip",
        "do not run this suite (repeatable, or comma-separated)",
        [],
        action="append",
        metavar="SUITE",
        commands=frozenset({"run", "fuzz", "list"}),
    ),
    Option(
        "--case",
        "vnext_cases",
        "run only this case id (repeatable; vnext-conformance list prints them)",
        [],
        action="append",
        metavar="ID",
        commands=frozenset({"run", "fuzz", "list"}),
    ),
    Option(
        "--expectations",
        "vnext_expectations",
        "expectation manifest of known failures (JSON)",
        metavar="FILE",
        commands=_RUNS,
    ),
    Option(
        "--expectations-today",
        "vnext_today",
        "date used for expectation expiry (YYYY-MM-DD)",
        hidden=True,
        commands=_RUNS,
    ),
    Option("--report-json", "vnext_report_json", "write the JSON-lines report here", metavar="PATH", commands=_RUNS),
    Option("--report-md", "vnext_report_md", "write a Markdown summary here", metavar="PATH", commands=_RUNS),
    Option(
        "--report-html", "vnext_report_html", "write a self-contained HTML report here", metavar="PATH", commands=_RUNS
    ),
    Option("--badge", "vnext_badge", "write a shields.io endpoint badge (JSON) here", metavar="PATH", commands=_RUNS),
    Option(
        "--certificate",
        "vnext_certificate",
        "write the conformance certificate here (default: next to the JSON-lines report, <report>.certificate.json)",
        metavar="PATH",
        commands=_RUNS,
    ),
    Option(
        "--seed",
        "vnext_seed",
        "Hypothesis seed of every generated case (dev and fuzz draw one when absent; ci is derandomized)",
        type=_count,
        metavar="N",
        commands=_RUNS,
    ),
    Option(
        "--database",
        "vnext_database",
        "an example database shared with other runs and machines: a directory or redis://HOST:PORT/DB "
        "(repeatable; used with the run's own one under CACHE_DIR)",
        [],
        action="append",
        metavar="URL",
        commands=_RUNS,
    ),
    Option(
        "--database-read-only",
        "vnext_database_read_only",
        "read the --database databases, never write them (CI replaying what fuzzing found)",
        default=False,
        action="store_true",
        commands=_RUNS,
    ),
    Option(
        "--require",
        "vnext_require",
        "conformance level the backend must reach: planning (describe, build_plan, revalidate), full (every "
        "planning operation) or runtime (full plus execute); a backend below it fails the run (describe: only "
        "check the handshake and self-description)",
        default="planning",
        metavar="LEVEL",
        commands=frozenset({"run", "fuzz", "list"}),
    ),
    Option(
        "--progress-heartbeat",
        "vnext_progress_heartbeat",
        "seconds between progress lines when the output is not a terminal",
        default=30.0,
        type=_positive_float,
        metavar="SECONDS",
        commands=_RUNS,
    ),
    Option(
        "--max-fail",
        "vnext_max_fail",
        "stop starting new cases after this many failed cases",
        type=_count,
        metavar="N",
        commands=_RUNS,
    ),
    Option(
        "--max-examples",
        "vnext_max_examples",
        "cap the examples of every generated case (on top of the profile)",
        type=_count,
        metavar="N",
    ),
    Option(
        "--max-time",
        "vnext_max_time",
        "stop starting new cases after this many seconds; the reports say complete: false",
        type=_positive_float,
        metavar="SECONDS",
    ),
    Option(
        "--cache-dir",
        "vnext_cache_dir",
        "where the run keeps everything it writes besides the reports (example database, counterexamples)",
        default=".vnext-conformance",
        metavar="DIR",
        commands=frozenset({"run", "fuzz", "list"}),
    ),
    Option(
        "--counterexample-dir",
        "vnext_counterexample_dir",
        "where failing generated cases are written as scenario bundles (default: CACHE_DIR/counterexamples)",
        metavar="DIR",
        commands=_RUNS,
    ),
    Option(
        "--corpus",
        "vnext_corpus",
        "a directory of your own promoted bundles, replayed by the corpus suite with the checked-in ones (repeatable)",
        [],
        action="append",
        metavar="DIR",
    ),
    Option(
        "--validate-protocol",
        "vnext_validate_protocol",
        "check every request and reply against its JSON Schema (schemas/protocol/)",
        default=False,
        action="store_true",
        commands=frozenset({"run", "fuzz", "replay", "describe", "serve", "rules"}),
    ),
    Option(
        "--call-timeout",
        "vnext_call_timeout",
        "exec: seconds allowed per call",
        _DEFAULTS.call_timeout,
        _positive_float,
        metavar="SECONDS",
        commands=_EXEC,
    ),
    Option(
        "--handshake-timeout",
        "vnext_handshake_timeout",
        "exec: seconds allowed for the handshake",
        _DEFAULTS.handshake_timeout,
        _positive_float,
        metavar="SECONDS",
        commands=_EXEC,
    ),
    Option(
        "--max-restarts",
        "vnext_max_restarts",
        "exec: restarts allowed after crashes and hangs, per worker",
        _DEFAULTS.max_restarts,
        _count,
        metavar="N",
        commands=_EXEC,
    ),
    Option(
        "--max-reply-bytes",
        "vnext_max_reply_bytes",
        "exec: reply line cap in bytes",
        _DEFAULTS.max_reply_bytes,
        _byte_cap,
        metavar="BYTES",
        commands=_EXEC,
    ),
    Option(
        "--max-request-bytes",
        "vnext_max_request_bytes",
        "request line cap in bytes",
        _DEFAULTS.max_request_bytes,
        _byte_cap,
        metavar="BYTES",
        commands=frozenset({"run", "fuzz", "replay", "describe", "serve", "rules"}),
    ),
    Option(
        "--fuzz-time",
        "vnext_fuzz_time",
        "fuzz: run only the generated cases, each in rounds for its share of this many seconds",
        type=_positive_float,
        metavar="SECONDS",
        commands=frozenset(),
        hidden=True,
    ),
    Option(
        "--hypofuzz-worker",
        "vnext_hypofuzz",
        "the process is a HypoFuzz worker: no reports, no signal handlers, no live display",
        default=False,
        action="store_true",
        commands=frozenset(),
        hidden=True,
    ),
)


def _for(command: str) -> Iterable[Option]:
    return (option for option in OPTIONS if command in option.commands)


def add_to_parser(parser: argparse.ArgumentParser, command: str) -> None:
    """Add every option ``command`` takes to ``parser``."""
    for option in _for(command):
        parser.add_argument(option.flag, **option.kwargs())


def add_to_pytest(group: Any) -> None:
    """Add every pytest option to a pytest option group."""
    for option in OPTIONS:
        if option.pytest:
            group.addoption(option.flag, **option.kwargs())


def pytest_argv(values: Mapping[str, Any], command: str = "run") -> list[str]:
    """The pytest arguments that carry ``values`` (dest -> value) of a command's options."""
    argv: list[str] = []
    for option in _for(command):
        if not option.pytest or option.dest not in values:
            continue
        value = values[option.dest]
        if option.action == "append":
            for item in value:
                argv += [option.flag, str(item)]
        elif option.action == "store_true":
            if value:
                argv.append(option.flag)
        elif value is not None and value != option.default:
            argv += [option.flag, str(value)]
    return argv


def exec_options(values: Callable[[str], Any]) -> ExecOptions:
    """``ExecOptions`` from option values looked up by dest."""
    return ExecOptions(
        call_timeout=values("vnext_call_timeout"),
        handshake_timeout=values("vnext_handshake_timeout"),
        max_restarts=values("vnext_max_restarts"),
        max_reply_bytes=values("vnext_max_reply_bytes"),
        max_request_bytes=values("vnext_max_request_bytes"),
    )
