"""The ``vnext_conformance`` pytest plugin (pytest11 entry point).

Adds ``--backend`` and the other harness options, the ``backend``, ``oracle``
and ``counterexamples`` fixtures, stable case ids, the *not applicable*
outcome, expectation manifests, the JSON-lines report, backend identity as
JUnit testsuite properties, and the end-of-run summary. It is inert for
sessions that collect no conformance case (such as the project's own tests).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shlex
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.backend import Backend
from harness.backends import DEFAULT_SPEC, ExecBackend, ExecOptions, ReferenceBackend, connect, parse_spec
from harness.bundles import Bundle, write_bundle
from harness.cases import case_id_for, is_not_applicable_text, known_suites, suite_of
from harness.contract import CONTRACT_IDENTITY, SUITE_NAME, suite_version
from harness.description import BackendDescription
from harness.expectations import Expectation, Manifest, ManifestError, load_manifest
from harness.faults import BackendFault
from harness.report import FAILING, CaseRecord, JsonlReport, Totals, combine, phase_outcome, report_message
from harness.under_test import BackendUnderTest, CaseLog

__all__ = ["CounterexampleRecorder", "ExpectationProblem"]

_MIB = 1024 * 1024
_CASE = pytest.StashKey[tuple[str, str]]()
_EXPIRED = pytest.StashKey[Expectation]()
_STDERR_PROPERTY_LIMIT = 8192


def _suite_list(values: list[str]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_xdist_controller(config: pytest.Config) -> bool:
    return config.pluginmanager.getplugin("dsession") is not None


class _State:
    """Per-process plugin state."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.spec: str = config.getoption("vnext_backend") or DEFAULT_SPEC
        self.explicit = bool(
            config.getoption("vnext_backend")
            or config.getoption("vnext_report_json")
            or any("conformance" in str(arg) for arg in config.args)
        )
        self.options = ExecOptions(
            call_timeout=config.getoption("vnext_call_timeout"),
            handshake_timeout=config.getoption("vnext_handshake_timeout"),
            max_restarts=config.getoption("vnext_max_restarts"),
            max_reply_bytes=config.getoption("vnext_max_reply_bytes"),
            max_request_bytes=config.getoption("vnext_max_request_bytes"),
        )
        self.manifest: Manifest | None = None
        self.today = dt.date.today()
        self.only = _suite_list(config.getoption("vnext_only"))
        self.skip = _suite_list(config.getoption("vnext_skip"))
        self.cases: list[str] = list(config.getoption("vnext_cases"))
        self.counterexample_dir = Path(config.getoption("vnext_counterexample_dir"))
        self.log = CaseLog()
        self._connector: Backend | None = None
        self._description: BackendDescription | None = None
        self._error: BaseException | None = None
        self._under_test: BackendUnderTest | None = None
        self._oracle: BackendUnderTest | None = None
        self.stderr_mark = 0
        # controller side
        self.report: JsonlReport | None = None
        self.totals = Totals()
        self.pending: dict[str, tuple[CaseRecord, str | None]] = {}
        self.failures: list[CaseRecord] = []
        self.fault_counts: Counter[str] = Counter()
        self.header_backend: dict[str, Any] | None = None
        self.seen_cases = False

    # ------------------------------------------------------------ backend

    def connection(self) -> tuple[Backend, BackendDescription]:
        """Connect once per process; a failure is remembered and re-raised for every case."""
        if self._error is not None:
            raise self._error
        if self._connector is None or self._description is None:
            try:
                connector = connect(self.spec, self.options)
                self._connector = connector
                if isinstance(connector, ExecBackend):
                    self._description = connector.connect()
                else:
                    self._description = connector.describe()
            except BaseException as exc:
                self._error = exc
                raise
        return self._connector, self._description

    def under_test(self) -> BackendUnderTest:
        if self._under_test is None:
            connector, description = self.connection()
            self._under_test = BackendUnderTest(connector, description, self.log, spec=self.spec)
        return self._under_test

    def oracle(self) -> BackendUnderTest:
        if self._oracle is None:
            reference = ReferenceBackend()
            self._oracle = BackendUnderTest(
                reference, reference.describe(), self.log, spec=DEFAULT_SPEC, role="reference oracle"
            )
        return self._oracle

    def stderr_log(self) -> Any:
        connector = self._connector
        return connector.stderr if isinstance(connector, ExecBackend) else None

    def close(self) -> None:
        connector, self._connector = self._connector, None
        self._under_test = None
        if connector is not None:
            with contextlib.suppress(Exception):
                connector.close()

    # ------------------------------------------------------------ reporting

    def profile(self) -> str:
        value = self.config.getoption("hypothesis_profile", None)
        if value:
            return str(value)
        from hypothesis import settings

        return str(getattr(settings, "_current_profile", None) or "default")

    def seed(self) -> int | None:
        value = self.config.getoption("hypothesis_seed", None)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    def reproduce(self, record: CaseRecord) -> str:
        backend = shlex.quote(self.spec)
        if record.counterexamples:
            return f"vnext-conformance replay {shlex.quote(record.counterexamples[0])} --backend {backend}"
        parts = ["vnext-conformance", "run", "--backend", backend, "--profile", shlex.quote(self.profile())]
        seed = self.seed()
        if seed is not None:
            parts += ["--seed", str(seed)]
        if self.manifest is not None:
            parts += ["--expectations", shlex.quote(str(self.config.getoption("vnext_expectations")))]
        parts += ["--case", shlex.quote(record.case_id)]
        return " ".join(parts)

    def describe_backend(self) -> dict[str, Any]:
        """The header's backend block: spec plus description, or the connection error."""
        if self.header_backend is None:
            block: dict[str, Any] = {"spec": self.spec, "description": None, "error": None}
            try:
                _, description = self.connection()
                block["description"] = description.to_wire()
            except BackendFault as fault:
                block["error"] = fault.to_dict()
            except Exception as exc:
                block["error"] = {"kind": "connect_failed", "detail": f"{type(exc).__name__}: {exc}"}
            self.header_backend = block
        return self.header_backend

    def write_header(self) -> None:
        if self.report is None or self.report.header_written:
            return
        from hypothesis import settings

        self.report.header(
            suite={"name": SUITE_NAME, "version": suite_version()},
            contract=CONTRACT_IDENTITY,
            backend=self.describe_backend(),
            profile=self.profile(),
            seed=self.seed(),
            derandomize=bool(settings.default is not None and settings.default.derandomize),
            argv=list(self.config.invocation_params.args),
        )


def _state(config: pytest.Config) -> _State:
    return config.stash[_STATE]


_STATE = pytest.StashKey[_State]()
#: The active config, for hooks that do not receive it (``pytest_runtest_logreport``).
_CONFIG: dict[str, pytest.Config] = {}


# ---------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vnext-conformance", "vnext conformance harness")
    group.addoption(
        "--backend",
        dest="vnext_backend",
        default=None,
        help="backend under test: reference (default) | python:MODULE:FACTORY | exec:COMMAND ...",
    )
    group.addoption("--expectations", dest="vnext_expectations", default=None, help="expectation manifest (JSON)")
    group.addoption(
        "--expectations-today", dest="vnext_today", default=None, help="date used for expectation expiry (YYYY-MM-DD)"
    )
    group.addoption("--report-json", dest="vnext_report_json", default=None, help="write the JSON-lines report here")
    group.addoption("--only-suite", dest="vnext_only", action="append", default=[], help="run only these suites")
    group.addoption("--skip-suite", dest="vnext_skip", action="append", default=[], help="do not run these suites")
    group.addoption("--case", dest="vnext_cases", action="append", default=[], help="run only this case id")
    group.addoption(
        "--counterexample-dir",
        dest="vnext_counterexample_dir",
        default=".vnext-counterexamples",
        help="where failing generated cases are written as scenario bundles",
    )
    group.addoption(
        "--call-timeout", dest="vnext_call_timeout", type=float, default=60.0, help="exec: seconds per call"
    )
    group.addoption(
        "--handshake-timeout", dest="vnext_handshake_timeout", type=float, default=30.0, help="exec: handshake seconds"
    )
    group.addoption("--max-restarts", dest="vnext_max_restarts", type=int, default=3, help="exec: restart budget")
    group.addoption(
        "--max-reply-bytes", dest="vnext_max_reply_bytes", type=int, default=64 * _MIB, help="exec: reply line cap"
    )
    group.addoption(
        "--max-request-bytes", dest="vnext_max_request_bytes", type=int, default=64 * _MIB, help="exec: request cap"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requires(*operations): the case needs these backend operations, else it is not applicable"
    )
    spec = config.getoption("vnext_backend") or DEFAULT_SPEC
    try:
        parse_spec(spec)
        state = _State(config)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    path = config.getoption("vnext_expectations")
    if path:
        try:
            state.manifest = load_manifest(path)
        except ManifestError as exc:
            raise pytest.UsageError(f"expectation manifest {path}: {exc}") from None
    today = config.getoption("vnext_today")
    if today:
        try:
            state.today = dt.date.fromisoformat(today)
        except ValueError:
            raise pytest.UsageError(f"--expectations-today must be YYYY-MM-DD, got {today!r}") from None
    if state.only or state.skip:
        suites = set(known_suites())
        unknown = sorted(set(state.only + state.skip) - suites)
        if unknown:
            raise pytest.UsageError(f"unknown suite(s) {unknown}; known suites: {sorted(suites)}")
    config.stash[_STATE] = state
    _CONFIG["config"] = config
    report_path = config.getoption("vnext_report_json")
    if report_path and not _is_worker(config):
        state.report = JsonlReport(report_path)


def pytest_sessionstart(session: pytest.Session) -> None:
    config = session.config
    state = _state(config)
    if _is_worker(config) or not state.explicit:
        return
    state.describe_backend()
    state.write_header()
    _junit_properties(config, state)
    if _is_xdist_controller(config):
        state.close()


def _junit_properties(config: pytest.Config, state: _State) -> None:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - pytest internals moved
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    block = state.describe_backend()
    props: list[tuple[str, object]] = [
        ("vnext.suite.name", SUITE_NAME),
        ("vnext.suite.version", suite_version()),
        ("vnext.contract.crate", CONTRACT_IDENTITY["crate"]),
        ("vnext.contract.version", CONTRACT_IDENTITY["version"]),
        ("vnext.contract.module", CONTRACT_IDENTITY["module"]),
        ("vnext.contract.plan_schema", "{major}.{minor}".format(**CONTRACT_IDENTITY["plan_schema"])),  # type: ignore[arg-type]
        ("vnext.backend.spec", state.spec),
        ("vnext.profile", state.profile()),
        ("vnext.seed", state.seed() if state.seed() is not None else "derandomized/none"),
    ]
    description = block.get("description")
    if description:
        impl = description["implementation"]
        props += [
            ("vnext.backend.name", impl["name"]),
            ("vnext.backend.version", impl["version"]),
            ("vnext.backend.language", impl["language"]),
            ("vnext.backend.contract_version", description["contract"]["version"]),
            ("vnext.backend.operations", ",".join(description["operations"])),
        ]
    if block.get("error"):
        props.append(("vnext.backend.error", str(block["error"])))
    for name, value in props:
        xml.add_global_property(name, value)


# ---------------------------------------------------------------- collection


class ExpectationProblem(pytest.Item):
    """A synthetic failing case: an expectation entry names no known case."""

    def __init__(self, *, problem: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.problem = problem

    def runtest(self) -> None:
        raise _ExpectationError(self.problem)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, _ExpectationError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int, str]:
        return "expectations", 0, self.name


class _ExpectationError(Exception):
    pass


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    state = _state(config)
    known: set[str] = set()
    for item in items:
        case_id = case_id_for(item)
        suite = suite_of(item)
        if case_id is None or suite is None:
            continue
        item.stash[_CASE] = (case_id, suite)
        known.add(case_id)
        item.user_properties.append(("vnext_case_id", case_id))
        item.user_properties.append(("vnext_suite", suite))
        expectation = state.manifest.cases.get(case_id) if state.manifest else None
        if expectation is None:
            continue
        if expectation.expired(state.today):
            item.stash[_EXPIRED] = expectation
        elif expectation.status == "xfail":
            item.add_marker(pytest.mark.xfail(reason=f"expected failure: {expectation.describe()}", strict=True))
        else:
            item.add_marker(pytest.mark.skip(reason=f"expected skip: {expectation.describe()}"))
    if not known:
        return
    if state.manifest is not None:
        for case_id in state.manifest.unknown(known):
            problem = ExpectationProblem.from_parent(
                session,
                name=f"expectations/unknown[{case_id}]",
                problem=f"expectation manifest names unknown case id {case_id!r}; remove or correct the entry",
            )
            problem.stash[_CASE] = (f"expectations/unknown[{case_id}]", "expectations")
            problem.user_properties.append(("vnext_case_id", f"expectations/unknown[{case_id}]"))
            problem.user_properties.append(("vnext_suite", "expectations"))
            items.append(problem)
    if state.only or state.skip or state.cases:
        keep: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            info = item.stash.get(_CASE, None)
            selected = True
            if info is not None and info[1] != "expectations":
                case_id, suite = info
                if state.only and suite not in state.only:
                    selected = False
                if suite in state.skip:
                    selected = False
                if state.cases and case_id not in state.cases:
                    selected = False
            (keep if selected else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep


# ---------------------------------------------------------------- running


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    info = item.stash.get(_CASE, None)
    if info is None:
        return
    state = _state(item.config)
    state.log.reset()
    stderr = state.stderr_log()
    state.stderr_mark = stderr.mark() if stderr is not None else 0
    expired = item.stash.get(_EXPIRED, None)
    if expired is not None:
        pytest.fail(
            f"expectation for {info[0]} ({expired.status}) expired on {expired.expires.isoformat()}: "
            f"{expired.reason}; renew or remove it",
            pytrace=False,
        )
    marker = item.get_closest_marker("requires")
    if marker is not None:
        state.under_test().require(*marker.args)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if call.when != "teardown" or item.stash.get(_CASE, None) is None:
        return report
    state = _state(item.config)
    for fault in state.log.faults:
        report.user_properties.append(("vnext_fault", f"{fault.kind}: {fault}"))
    for path in state.log.counterexamples:
        report.user_properties.append(("vnext_counterexample", path))
    stderr = state.stderr_log()
    if stderr is not None:
        text = stderr.since(state.stderr_mark)
        if text:
            report.user_properties.append(("vnext_backend_stderr", text[-_STDERR_PROPERTY_LIMIT:]))
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    if (
        report.when in ("setup", "call")
        and report.skipped
        and getattr(report, "wasxfail", None) is None
        and is_not_applicable_text(report_message(report))
    ):
        return "not applicable", "N", ("NOT APPLICABLE", {"yellow": True})
    return None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Runs in the process that reports (the xdist controller, or the only process).
    props = report.user_properties
    case_id = next((value for name, value in props if name == "vnext_case_id"), None)
    suite = next((value for name, value in props if name == "vnext_suite"), None)
    if case_id is None or suite is None:
        return
    config = _CONFIG.get("config")
    if config is None or _is_worker(config):
        return
    state = _state(config)
    state.seen_cases = True
    record, outcome = state.pending.get(report.nodeid) or (CaseRecord(str(case_id), str(suite), report.nodeid), None)
    record.duration_s += float(report.duration or 0.0)
    phase = phase_outcome(report)
    merged = combine(outcome, phase)
    if phase is not None and merged == phase and phase != "passed":
        record.message = report_message(report)
        if report.failed:
            record.details = str(report.longreprtext or "")
    if report.when != "teardown":
        state.pending[report.nodeid] = (record, merged)
        return
    state.pending.pop(report.nodeid, None)
    _finish(state, record, merged or "passed", props)


def _finish(state: _State, record: CaseRecord, outcome: str, props: list[tuple[str, object]]) -> None:
    record.outcome = outcome
    for name, value in props:
        if name == "vnext_fault":
            kind, _, detail = str(value).partition(": ")
            record.faults.append({"kind": kind, "detail": detail})
            state.fault_counts[kind] += 1
        elif name == "vnext_counterexample":
            record.counterexamples.append(str(value))
        elif name == "vnext_backend_stderr":
            record.backend_stderr = str(value)
    if outcome in FAILING:
        record.reproduce = state.reproduce(record)
        state.failures.append(record)
    state.totals.add(record.suite, outcome)
    if state.report is not None:
        state.write_header()
        state.report.case(record)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    for record, outcome in list(state.pending.values()):
        _finish(state, record, outcome or "error", [])
    state.pending.clear()
    if state.report is not None:
        state.write_header()
        complete = int(exitstatus) not in (int(pytest.ExitCode.INTERRUPTED), int(pytest.ExitCode.INTERNAL_ERROR))
        state.report.footer(state.totals, exit_status=int(exitstatus), complete=complete, faults=state.fault_counts)
    state.close()


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if state.report is not None:
        state.report.footer(state.totals, exit_status=-1, complete=False, faults=state.fault_counts)
        state.report.close()
    state.close()
    _CONFIG.pop("config", None)


# ---------------------------------------------------------------- summary


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.seen_cases:
        return
    from harness.summary import render_summary

    description = state.header_backend.get("description") if state.header_backend else None
    if description is None and state.header_backend is None and not _is_xdist_controller(config):
        with contextlib.suppress(Exception):
            description = state.describe_backend().get("description")
    lines = render_summary(
        spec=state.spec,
        description=description,
        totals=state.totals,
        failures=state.failures,
        faults=state.fault_counts,
        report_path=str(state.report.path) if state.report else None,
    )
    terminalreporter.section(f"{SUITE_NAME} summary", sep="=", bold=True)
    for line in lines:
        terminalreporter.write_line(line)


# ---------------------------------------------------------------- fixtures


class CounterexampleRecorder:
    """Writes the scenario bundle of a failing generated case (only the final, shrunk example)."""

    def __init__(self, state: _State) -> None:
        self._state = state

    @property
    def directory(self) -> Path:
        return self._state.counterexample_dir

    @contextlib.contextmanager
    def on_failure(self, bundle: Bundle | Callable[[], Bundle]) -> Iterator[None]:
        """Run the block; if it fails on a final example, write ``bundle`` and re-raise."""
        try:
            yield
        except (pytest.skip.Exception, pytest.xfail.Exception, KeyboardInterrupt):
            raise
        except BaseException:
            if _final_example():
                with contextlib.suppress(Exception):
                    made = bundle() if callable(bundle) else bundle
                    self._state.log.counterexamples.append(str(write_bundle(self.directory, made)))
            raise


def _final_example() -> bool:
    from hypothesis import currently_in_test_context
    from hypothesis.control import current_build_context

    if not currently_in_test_context():
        return True
    return bool(current_build_context().is_final)


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> BackendUnderTest:
    """The backend under test (``--backend``), gated on its declared operations."""
    return _state(request.config).under_test()


@pytest.fixture(scope="session")
def oracle(request: pytest.FixtureRequest) -> BackendUnderTest:
    """The in-process reference; operations it does not implement yet are *not applicable*."""
    return _state(request.config).oracle()


@pytest.fixture(scope="session")
def counterexamples(request: pytest.FixtureRequest) -> CounterexampleRecorder:
    """Records failing generated cases as replayable scenario bundles."""
    return CounterexampleRecorder(_state(request.config))
