"""``ConformanceRun``: the plugin object one pytest process registers for a conformance run.

Its hooks label and select the cases, gate them on the backend's operations, attach each
case's side data (faults, counterexamples, stderr, *not applicable*) to its reports, turn
reports into case records (in the process that reports: the xdist controller or the only
process), and write the JSON-lines report, the JUnit properties and the summary. It is inert
for a session that collects no conformance case (such as the project's own tests).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import shlex
import signal
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.configuration import set_hypothesis_home_dir

from harness.cases import CURRENT_RULES, CheckedRules, NotApplicable, observe
from harness.certificate import RunFacts, certificate_path, run_certificate, write_certificate
from harness.collector import freeze_setup, tune_collector
from harness.connection.faults import FaultKind
from harness.fuzz.database import DatabaseUnavailable, example_database
from harness.fuzz.examples import CURRENT_TALLY, ExampleTally, count_examples, is_generated
from harness.fuzz.rounds import seed_test
from harness.identity import CONTRACT_IDENTITY, SUITE_NAME, suite_version
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.plugin.oracle_trace import OracleTracer, ValueRuleIndex
from harness.plugin.outcomes import combine, phase_outcome, report_message
from harness.plugin.progress import RunProgress, suites_of
from harness.plugin.records import NOT_APPLICABLE, case_data, properties
from harness.plugin.selection import CASE, EXPIRED, select
from harness.plugin.session import BackendSession
from harness.plugin.settings import RunSettings
from harness.reports import files
from harness.reports.badge import render_badge
from harness.reports.exits import run_exit
from harness.reports.html import render_html
from harness.reports.jsonl import FAILING, CaseRecord, JsonlReport, Totals
from harness.reports.markdown import render_markdown
from harness.reports.result import RunResult
from harness.reports.summary import render_summary
from harness.rules import RuleCatalogue, RuleTally, UnknownRule
from reference import api as reference_api
from reference.api import VNextError

__all__ = ["FUZZ_FACTS", "ConformanceRun"]


_UNSET = object()
RULE_IDS = pytest.StashKey[tuple[str, ...]]()
#: What a fuzzing session adds to the certificate (set by ``harness.plugin.fuzzing``).
FUZZ_FACTS = pytest.StashKey[dict[str, Any]]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_controller(config: pytest.Config) -> bool:
    return config.pluginmanager.getplugin("dsession") is not None


def _junit_to_partial(config: pytest.Config) -> Path | None:
    """Point pytest's JUnit writer at ``<path>.<pid>.partial`` (published at unconfigure); the final path."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - pytest internals moved
        return None
    xml = config.stash.get(xml_key, None)
    if xml is None or _is_worker(config):
        return None
    final = Path(xml.logfile)
    xml.logfile = str(files.start(final))
    return final


class JunitPublisher:
    """Moves the JUnit file into place before pytest's terminal summary names it (so it names the final path)."""

    def __init__(self, config: pytest.Config, final: Path) -> None:
        self.config = config
        self.final = final

    @pytest.hookimpl(tryfirst=True)
    def pytest_terminal_summary(self) -> None:
        from _pytest.junitxml import xml_key

        files.publish(self.final)
        xml = self.config.stash.get(xml_key, None)
        if xml is not None:
            xml.logfile = str(self.final)


def _children() -> list[int]:
    """Pids of this process's children (xdist workers, served backends), from ``/proc``."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if stat.read_text().rpartition(")")[2].split()[1] == me:
                found.append(int(stat.parent.name))
    return found


def _configure_hypothesis(settings: RunSettings) -> None:
    """Hypothesis's files under the cache directory; the current profile with the run's example
    database (its own under the cache directory and the ``--database`` ones) and ``--max-examples``."""
    set_hypothesis_home_dir(str(settings.cache_dir / "hypothesis"))
    current = hypothesis_settings.default
    if current is None:
        return
    changes: dict[str, Any] = {}
    if current.database is not None or settings.databases:
        try:
            changes["database"] = example_database(
                settings.cache_dir / "hypothesis" / "examples",
                settings.databases,
                read_only=settings.database_read_only,
                check=True,
            )
        except DatabaseUnavailable as exc:
            raise pytest.UsageError(f"--database {exc}") from None
    if settings.max_examples is not None:
        changes["max_examples"] = min(current.max_examples, settings.max_examples)
    if changes:
        hypothesis_settings.register_profile("vnext-run", parent=current, **changes)
        hypothesis_settings.load_profile("vnext-run")


def _interrupt(signum: int, frame: Any) -> None:
    for pid in _children():  # workers end their own backends; served backends die with their parent
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def _end_on_sigterm() -> None:
    """SIGTERM (what CI cancellation sends) ends the run like Ctrl-C: reports written, backends ended."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


class ConformanceRun:
    """Hooks and fixtures of one conformance run (see the module docstring)."""

    def __init__(self, config: pytest.Config, settings: RunSettings) -> None:
        self.config = config
        self.settings = settings
        self.junit_path = _junit_to_partial(config)
        self.session = BackendSession(settings)
        self.session.oracle_observer = self._observe_oracle
        self.session.oracle_tracer = OracleTracer(self._value_rule_index)
        self._value_rules: ValueRuleIndex | object | None = _UNSET
        self._error_rules: Callable[[VNextError], Sequence[str]] | object | None = _UNSET
        self.counterexamples = CounterexampleRecorder(settings.counterexample_dir)
        self.explicit = bool(
            config.getoption("vnext_backend") != "reference"
            or settings.report_json
            or any("conformance" in str(arg) for arg in config.args)
        )
        if self.explicit:
            if not settings.hypofuzz:  # HypoFuzz ends its workers itself
                _end_on_sigterm()
            _configure_hypothesis(settings)
        self.seen_cases = False
        self.interrupted = False
        self._catalogue: RuleCatalogue | object | None = _UNSET
        self.tally = RuleTally(RuleCatalogue(()))
        self._checked: CheckedRules | None = None
        self._checked_token: contextvars.Token[CheckedRules | None] | None = None
        #: The examples of the generated case running now.
        self.examples: ExampleTally | None = None
        self._examples_token: contextvars.Token[ExampleTally | None] | None = None
        #: The first fault after which the backend could serve nothing more, if one happened.
        self.unavailable: dict[str, Any] | None = None
        self.unavailable_stderr = ""
        self._fault_mark = 0
        self._stderr_mark = 0
        # reporting side
        self.report_path = self._report_path()
        self.report = JsonlReport(self.report_path) if self.report_path is not None else None
        self.totals = Totals()
        self.pending: dict[str, tuple[CaseRecord, str | None]] = {}
        self.failures: list[CaseRecord] = []
        self.fault_counts: Counter[str] = Counter()
        self.not_applicable: Counter[str] = Counter()
        #: Examples of the finished generated cases, per suite.
        self.examples_by_suite: Counter[str] = Counter()
        self._header: dict[str, Any] | None = None
        self.progress: RunProgress | None = None
        #: Why the run stopped before its end, when it did: (``unavailable`` | ``budget`` | ``failures``, text).
        self.stopped: tuple[str, str] | None = None
        self._session: pytest.Session | None = None
        #: Where the conformance certificate was written, once it was.
        self.certificate: Path | None = None

    def _report_path(self) -> Path | None:
        """Where the JSON-lines report goes: ``--report-json``, else the cache directory for a conformance run."""
        if _is_worker(self.config) or self.settings.hypofuzz:
            return None
        if self.settings.report_json:
            return Path(self.settings.report_json)
        name = "last-fuzz.jsonl" if self.settings.fuzz_time is not None else "last-run.jsonl"
        return self.settings.cache_dir / name if self.explicit else None

    def _derived_reports(self) -> None:
        """The Markdown, HTML and badge reports, rendered from the published JSON-lines report."""
        wanted = (self.settings.report_md, self.settings.report_html, self.settings.badge)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if self.report_path is None or not self.report_path.exists() or not (any(wanted) or summary):
            return
        result = RunResult.read(self.report_path)
        if self.settings.report_md:
            files.write_text(Path(self.settings.report_md), render_markdown(result))
        if self.settings.report_html:
            files.write_text(Path(self.settings.report_html), render_html(result))
        if self.settings.badge:
            files.write_text(Path(self.settings.badge), json.dumps(render_badge(result), indent=2) + "\n")
        if summary:
            with contextlib.suppress(OSError), open(summary, "a", encoding="utf-8") as out:
                out.write(render_markdown(result))

    # ------------------------------------------------------------ identity and header

    def profile(self) -> str:
        value = self.config.getoption("hypothesis_profile", None)
        if value:
            return str(value)
        return str(getattr(hypothesis_settings, "_current_profile", None) or "default")

    def seed(self) -> int | None:
        if self.settings.seed is not None:
            return self.settings.seed
        value = self.config.getoption("hypothesis_seed", None)
        try:
            return int(value) if value is not None else None
        except ValueError:
            return None

    def header_backend(self) -> dict[str, Any]:
        if self._header is None:
            self._header = self.session.header_block()
            if self._header.get("error"):
                self.unavailable_stderr = self.session.stderr_tail()
        return self._header

    def write_header(self) -> None:
        if self.report is None or self.report.header_written:
            return
        self.report.header(
            suite={"name": SUITE_NAME, "version": suite_version()},
            contract=CONTRACT_IDENTITY,
            backend=self.header_backend(),
            profile=self.profile(),
            seed=self.seed(),
            derandomize=bool(hypothesis_settings.default is not None and hypothesis_settings.default.derandomize),
            argv=list(self.config.invocation_params.args),
        )

    def reproduce(self, record: CaseRecord) -> str:
        backend = shlex.quote(self.settings.spec.text)
        if record.counterexamples:
            return f"vnext-conformance replay {shlex.quote(record.counterexamples[0])} --backend {backend}"
        parts = ["vnext-conformance", "run", "--backend", backend, "--profile", shlex.quote(self.profile())]
        seed = self.seed()
        if seed is not None:
            parts += ["--seed", str(seed)]
        if self.settings.manifest_path is not None:
            parts += ["--expectations", shlex.quote(self.settings.manifest_path)]
        parts += ["--case", shlex.quote(record.case_id)]
        return " ".join(parts)

    # ------------------------------------------------------------ session

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session
        tune_collector()
        if _is_worker(self.config) or not self.explicit or self.settings.hypofuzz:
            return
        self.header_backend()
        self.write_header()
        self._junit_properties()
        self._start_progress()
        if _is_controller(self.config):
            self.session.close()

    def _quiet_junit(self) -> None:
        """Drop Hypothesis's base64 statistics from the JUnit properties (the JSON report has the outcomes)."""
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - pytest internals moved
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is not None:
            xml.global_properties = [
                (name, value) for name, value in xml.global_properties if not name.startswith("hypothesis-statistics")
            ]

    def _junit_properties(self) -> None:
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # pragma: no cover - pytest internals moved
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is None:
            return
        block = self.header_backend()
        plan_schema = CONTRACT_IDENTITY["plan_schema"]
        assert isinstance(plan_schema, dict)
        props: list[tuple[str, object]] = [
            ("vnext.suite.name", SUITE_NAME),
            ("vnext.suite.version", suite_version()),
            ("vnext.contract.crate", CONTRACT_IDENTITY["crate"]),
            ("vnext.contract.version", CONTRACT_IDENTITY["version"]),
            ("vnext.contract.module", CONTRACT_IDENTITY["module"]),
            ("vnext.contract.plan_schema", f"{plan_schema['major']}.{plan_schema['minor']}"),
            ("vnext.backend.spec", self.settings.spec.text),
            ("vnext.profile", self.profile()),
            ("vnext.seed", self.seed() if self.seed() is not None else "derandomized/none"),
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

    # ------------------------------------------------------------ collection

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        select(session, config, items, self.settings)
        catalogue = self.catalogue()
        for item in items:
            marker = item.get_closest_marker("rules")
            if marker is None or item.stash.get(CASE, None) is None:
                continue
            if catalogue is None:
                raise pytest.UsageError(f"{item.nodeid} declares rules but no rule catalogue is registered")
            try:
                item.stash[RULE_IDS] = catalogue.expand(marker.args)
            except UnknownRule as exc:
                raise pytest.UsageError(f"{item.nodeid}: {exc}") from None

    def checked_rules(self) -> tuple[str, ...]:
        """The rules the running case has declared so far."""
        return self._checked.checked() if self._checked is not None else ()

    def _observe_oracle(self, error: VNextError) -> None:
        """Credit the running case with the reachable rules of the oracle's refusal (``pytest_vnext_error_rules``)."""
        if self._checked is None:
            return
        if self._error_rules is _UNSET:
            self._error_rules = self.config.hook.pytest_vnext_error_rules(config=self.config)
        if not callable(self._error_rules):
            return
        catalogue = self.catalogue()
        if catalogue is None:
            return
        rules = [rule for rule in self._error_rules(error) if rule in catalogue.by_id]
        observe([rule for rule in rules if catalogue.by_id[rule].reachable])

    def _value_rule_index(self) -> ValueRuleIndex | None:
        """The catalogue's value rules by implementing function (built at the first watched oracle call)."""
        if self._value_rules is _UNSET:
            catalogue = self.catalogue()
            root = Path(reference_api.__file__).resolve().parents[1]
            self._value_rules = None if catalogue is None else ValueRuleIndex(catalogue, root)
        return self._value_rules  # type: ignore[return-value]

    def catalogue(self) -> RuleCatalogue | None:
        """The suites' rule catalogue (asked once, through ``pytest_vnext_rule_catalogue``)."""
        if self._catalogue is _UNSET:
            found: RuleCatalogue | None = self.config.hook.pytest_vnext_rule_catalogue(config=self.config)
            self._catalogue = found
            if found is not None:
                self.tally = RuleTally(found)
        return self._catalogue  # type: ignore[return-value]

    # ------------------------------------------------------------ running

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        info = item.stash.get(CASE, None)
        if info is None:
            return
        self.counterexamples.reset()
        catalogue = self.catalogue()
        if catalogue is not None:
            declared: tuple[str, ...] = item.stash.get(RULE_IDS, ())
            self._checked = CheckedRules(catalogue.expand, list(declared))
            self._checked_token = CURRENT_RULES.set(self._checked)
        self._fault_mark = self.session.fault_mark()
        self._stderr_mark = self.session.stderr_mark()
        test = getattr(item, "obj", None)
        if is_generated(test):
            count_examples(test)
            if self.settings.seed is not None and not self.settings.fuzzing:
                seed_test(test, self.settings.seed)
            self.examples = ExampleTally()
            self._examples_token = CURRENT_TALLY.set(self.examples)
        expired = item.stash.get(EXPIRED, None)
        if expired is not None:
            pytest.fail(
                f"expectation for {info[0]} ({expired.status}) expired on {expired.expires.isoformat()}: "
                f"{expired.reason}; renew or remove it",
                pytrace=False,
            )
        marker = item.get_closest_marker("requires")
        if marker is not None:
            self.session.under_test().require(*marker.args)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        report = yield
        if item.stash.get(CASE, None) is None:
            return report
        if call.excinfo is not None and isinstance(call.excinfo.value, NotApplicable):
            report.user_properties.append((NOT_APPLICABLE, call.excinfo.value.why.to_wire()))
        if call.when == "teardown":
            report.user_properties.extend(
                properties(
                    faults=self.session.faults_since(self._fault_mark),
                    counterexamples=self.counterexamples.written,
                    stderr=self.session.stderr_since(self._stderr_mark),
                    rules=self._checked.checked() if self._checked is not None else (),
                    examples=self.examples.examples if self.examples is not None else None,
                )
            )
            if self._checked_token is not None:
                CURRENT_RULES.reset(self._checked_token)
            self._checked, self._checked_token = None, None
            if self._examples_token is not None:
                CURRENT_TALLY.reset(self._examples_token)
            self.examples, self._examples_token = None, None
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport, config: pytest.Config) -> Any:
        status = yield
        if report.when in ("setup", "call") and any(name == NOT_APPLICABLE for name, _ in report.user_properties):
            status = ("not applicable", "N", ("NOT APPLICABLE", {"yellow": True}))
        if self.progress is not None and status and config.get_verbosity() <= 0:
            category, _letter, word = status
            return category, "", word  # the live progress replaces pytest's letters
        return status

    # ------------------------------------------------------------ progress

    def _start_progress(self) -> None:
        if _is_worker(self.config) or not self.explicit or self.progress is not None or self.settings.hypofuzz:
            return
        self.progress = RunProgress(workers=self.workers(), heartbeat=self.settings.heartbeat)
        self.progress.start()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        freeze_setup()  # the imported suites and strategies are never garbage
        if self.progress is not None:
            self.progress.expect(suites_of(item.nodeid for item in session.items if item.stash.get(CASE, None)))
        if not _is_worker(self.config) and self.explicit:
            self._stop_if_unavailable_from_the_start()

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.progress is not None and not self.progress.suites:
            self.progress.expect(suites_of(ids))
        self._stop_if_unavailable_from_the_start()

    def _stop_if_unavailable_from_the_start(self) -> None:
        """A backend that cannot be connected at all runs no case: one banner, exit 3."""
        error = (self._header or {}).get("error")
        if not error or self.unavailable is not None:
            return
        try:
            final = FaultKind(error.get("kind")).ends_backend
        except ValueError:
            final = error.get("kind") == "load_failed"
        if final:
            self.unavailable = error
            self.fault_counts[str(error["kind"])] += 1
            self.stop("unavailable", f"the backend is unavailable ({error['kind']}): {error.get('detail', '')}")

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        if self.progress is not None:
            self.progress.case_started(nodeid)

    # ------------------------------------------------------------ reporting (controller or single process)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if _is_worker(self.config):
            return
        data = case_data(report.user_properties)
        if data.case_id is None or data.suite is None:
            return
        self.seen_cases = True
        record, outcome = self.pending.get(report.nodeid) or (CaseRecord(data.case_id, data.suite, report.nodeid), None)
        for name, value in report.user_properties:
            if not str(name).startswith(("vnext_", "hypothesis-statistics")):
                record.properties[str(name)] = str(value)
        record.duration_s += float(report.duration or 0.0)
        phase = phase_outcome(report, not_applicable=data.not_applicable is not None)
        merged = combine(outcome, phase)
        if phase is not None and merged == phase and phase != "passed":
            record.message = (
                f"not applicable: {data.not_applicable.reason}" if data.not_applicable else report_message(report)
            )
            if report.failed:
                record.details = str(report.longreprtext or "")
        if data.not_applicable is not None:
            record.not_applicable = data.not_applicable.to_wire()
        if report.when != "teardown":
            self.pending[report.nodeid] = (record, merged)
            return
        self.pending.pop(report.nodeid, None)
        record.faults.extend(fault.to_wire() for fault in data.faults)
        record.counterexamples.extend(data.counterexamples)
        record.backend_stderr = data.backend_stderr
        record.rules = sorted(set(data.rules))
        record.examples = data.examples
        self._finish(record, merged or "passed")

    def _finish(self, record: CaseRecord, outcome: str) -> None:
        record.outcome = outcome
        for fault in record.faults:
            self.fault_counts[str(fault["kind"])] += 1
            if self.unavailable is None and FaultKind(fault["kind"]).ends_backend:
                self.unavailable = fault
                self.unavailable_stderr = record.backend_stderr
                self.stop("unavailable", f"the backend is unavailable ({fault['kind']}): {fault['detail']}")
        if self.settings.max_fail and len(self.failures) >= self.settings.max_fail:
            self.stop("failures", f"{len(self.failures)} cases failed (--max-fail {self.settings.max_fail})")
        budget = self.settings.max_time
        if budget is not None and self.progress is not None and self.progress.elapsed() > budget:
            self.stop("budget", f"the time budget of {budget:g}s is spent")
        if outcome in FAILING:
            record.reproduce = self.reproduce(record)
            self.failures.append(record)
        if outcome == "not_applicable" and record.not_applicable is not None:
            missing = record.not_applicable.get("missing") or []
            why = f"the backend lacks {', '.join(missing)}" if missing else str(record.not_applicable["reason"])
            self.not_applicable[why] += 1
        self.totals.add(record.suite, outcome)
        if record.examples is not None:
            self.examples_by_suite[record.suite] += record.examples
        if self.progress is not None:
            self.progress.case_finished(record.nodeid, record.suite, outcome, record.duration_s)
        if self.catalogue() is not None and record.rules:
            self.tally.add(record.case_id, outcome, record.rules)
        if self.report is not None:
            self.write_header()
            self.report.case(record)

    def stop(self, kind: str, why: str) -> None:
        """Start no further case (the cases running now finish); remember why."""
        if self.stopped is not None:
            return
        self.stopped = (kind, why)
        dsession = self.config.pluginmanager.getplugin("dsession")
        if dsession is not None:
            dsession.shouldstop = why
        elif self._session is not None:
            self._session.shouldstop = why

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._quiet_junit()
        if self.progress is not None:
            self.progress.stop()
        self.interrupted = self.stopped is None and int(exitstatus) in (
            int(pytest.ExitCode.INTERRUPTED),
            int(pytest.ExitCode.INTERNAL_ERROR),
        )
        if not self.interrupted:  # an interrupted case never finished: it is not reported
            for record, outcome in list(self.pending.values()):
                self._finish(record, outcome or "error")
        self.pending.clear()
        if self.report is not None:
            self.write_header()
            if self.catalogue() is not None and self.seen_cases:
                self.report.rules(self.tally)
            self.report.footer(
                self.totals,
                exit_status=int(
                    run_exit(
                        int(exitstatus),
                        unavailable=self.unavailable is not None,
                        stopped=None if self.stopped is None else self.stopped[0],
                        failed=bool(self.failures),
                    )
                ),
                complete=not self.interrupted and self.stopped is None,
                stopped=None if self.stopped is None else {"kind": self.stopped[0], "reason": self.stopped[1]},
                faults=self.fault_counts,
                rules=self.tally if self.catalogue() is not None and self.seen_cases else None,
            )
            self._certificate()
        self.session.close()

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.report is not None:
            self.report.footer(self.totals, exit_status=-1, complete=False, faults=self.fault_counts)
            self.report.close()
        if self.junit_path is not None:
            files.publish(self.junit_path)
        self._derived_reports()
        self.session.close()

    def _certificate(self) -> None:
        """The conformance certificate of the run, from its JSON-lines report (footer written)."""
        if self.report_path is None or (not self.seen_cases and self.stopped is None):
            return
        partial = files.partial_path(self.report_path)
        source = partial if partial.exists() else self.report_path
        if not source.exists():
            return
        settings, profile = self.settings, hypothesis_settings.default
        corpus: list[Path] = self.config.hook.pytest_vnext_corpus_paths(config=self.config) or []
        facts = RunFacts(
            spec=settings.spec,
            workers=self.workers(),
            corpus=corpus,
            max_examples=None if profile is None else profile.max_examples,
            max_time=settings.max_time,
            run_max_examples=settings.max_examples,
            max_fail=settings.max_fail,
            fuzz_time=settings.fuzz_time,
            only=settings.only,
            skip=settings.skip,
            cases=settings.cases,
            require=settings.require.label,
            expectations=settings.manifest_path is not None,
            databases=[url.kind.value for url in settings.databases],
            database_read_only=settings.database_read_only,
            fuzz=self.config.stash.get(FUZZ_FACTS, None),
        )
        document = run_certificate(RunResult.read(source), facts)
        with contextlib.suppress(OSError):
            self.certificate = write_certificate(certificate_path(settings.certificate, self.report_path), document)

    def workers(self) -> int:
        """Processes that ran cases: the xdist workers, or 1."""
        value = getattr(self.config.option, "numprocesses", None) or 1
        return int(value) if str(value).isdigit() else 1

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if not self.seen_cases and self.stopped is None:
            return
        block = self._header or {}
        lines = render_summary(
            spec=self.settings.spec.text,
            description=block.get("description"),
            totals=self.totals,
            failures=self.failures,
            faults=self.fault_counts,
            report_path=str(self.report.path) if self.report and self.settings.report_json else None,
            interrupted=self.interrupted,
            stopped=self.stopped,
            not_applicable=self.not_applicable,
            backend_stderr=self.unavailable_stderr,
            rules=self.tally if self.catalogue() is not None else None,
            required=self.settings.require,
        )
        terminalreporter.section(f"{SUITE_NAME} summary", sep="=", bold=True)
        for line in lines:
            terminalreporter.write_line(line)
        if self.certificate is not None:
            terminalreporter.write_line(f"certificate: {self.certificate}")
