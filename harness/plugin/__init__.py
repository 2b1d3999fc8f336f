"""The ``vnext_conformance`` pytest plugin (pytest11 entry point).

It adds the harness options (declared once in ``harness.options``) and registers one
``ConformanceRun`` object per pytest process; that object holds the hooks and the ``backend``,
``oracle`` and ``counterexamples`` fixtures. Modules: ``settings`` (options parsed), ``session``
(connections), ``selection`` (collection), ``records`` and ``outcomes`` (what reports carry),
``counterexamples`` (bundles of failing generated cases), ``run`` (the hooks), ``fuzzing`` and
``fuzz_progress`` (a ``vnext-conformance fuzz`` session and its live view).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.identity import RUN_PLUGIN_NAME
from harness.options import add_to_pytest
from harness.plugin.counterexamples import CounterexampleRecorder
from harness.plugin.fuzzing import FuzzSession
from harness.plugin.hooks import VnextHooks
from harness.plugin.run import ConformanceRun, JunitPublisher
from harness.plugin.settings import RunSettings
from harness.protocol.operations import Level
from harness.under_test import BackendUnderTest

__all__ = ["PLUGIN_NAME", "backend", "case_property", "counterexamples", "oracle", "required_level"]

PLUGIN_NAME = RUN_PLUGIN_NAME
FUZZ_PLUGIN_NAME = "vnext-conformance-fuzz"


def _run(config: pytest.Config) -> ConformanceRun:
    run = config.pluginmanager.get_plugin(PLUGIN_NAME)
    assert isinstance(run, ConformanceRun)
    return run


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(VnextHooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_to_pytest(parser.getgroup("vnext-conformance", "vnext conformance harness"))


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "requires(*operations): the case needs these backend operations, else it is not applicable"
    )
    config.addinivalue_line("markers", "rules(*ids): the contract rules the case checks (ids or fnmatch patterns)")
    run = ConformanceRun(config, RunSettings.from_config(config))
    config.pluginmanager.register(run, PLUGIN_NAME)
    if run.junit_path is not None:
        config.pluginmanager.register(JunitPublisher(config, run.junit_path), f"{PLUGIN_NAME}-junit")
    if run.settings.fuzzing and run.explicit:
        config.pluginmanager.register(FuzzSession(config, run), FUZZ_PLUGIN_NAME)


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> BackendUnderTest:
    """The backend under test (``--backend``), gated on its declared operations."""
    return _run(request.config).session.under_test()


@pytest.fixture(scope="session")
def oracle(request: pytest.FixtureRequest) -> BackendUnderTest:
    """The reference, served in process like any backend."""
    return _run(request.config).session.oracle()


@pytest.fixture(scope="session")
def counterexamples(request: pytest.FixtureRequest) -> CounterexampleRecorder:
    """Records failing generated cases as replayable scenario bundles."""
    return _run(request.config).counterexamples


@pytest.fixture(scope="session")
def required_level(request: pytest.FixtureRequest) -> Level:
    """The conformance level the run requires (``--require``)."""
    return _run(request.config).settings.require


@pytest.fixture
def case_property(request: pytest.FixtureRequest) -> Callable[[str, object], None]:
    """Record ``name = value`` with the running case (it lands in the JSON-lines report)."""

    def record(name: str, value: object) -> None:
        request.node.user_properties.append((name, value))

    return record
