"""``RunSettings``: the plugin's options, parsed and checked once per process."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.backends import BackendSpec, parse_spec
from harness.cases import known_suites
from harness.connection.exec import ExecOptions
from harness.expectations import Manifest, ManifestError, load_manifest
from harness.fuzz.database import DatabaseUrl, parse_database_url
from harness.options import exec_options
from harness.protocol.operations import Level
from harness.protocol.validation import SchemaCheck

__all__ = ["RunSettings"]


def _suite_list(values: list[str]) -> tuple[str, ...]:
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What the run was asked to do."""

    spec: BackendSpec
    exec_options: ExecOptions
    check: SchemaCheck
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    manifest: Manifest | None = None
    manifest_path: str | None = None
    today: dt.date = field(default_factory=dt.date.today)
    cache_dir: Path = Path(".vnext-conformance")
    counterexample_dir: Path = Path(".vnext-conformance/counterexamples")
    corpus_dirs: tuple[Path, ...] = ()
    report_json: str | None = None
    report_md: str | None = None
    report_html: str | None = None
    badge: str | None = None
    require: Level = Level.PLANNING
    max_examples: int | None = None
    heartbeat: float = 30.0
    max_fail: int | None = None
    max_time: float | None = None
    seed: int | None = None
    databases: tuple[DatabaseUrl, ...] = ()
    database_read_only: bool = False
    certificate: str | None = None
    fuzz_time: float | None = None
    hypofuzz: bool = False

    @property
    def fuzzing(self) -> bool:
        """A ``vnext-conformance fuzz`` session run by this harness (not by HypoFuzz)."""
        return self.fuzz_time is not None and not self.hypofuzz

    @property
    def selects(self) -> bool:
        return bool(self.only or self.skip or self.cases)

    @classmethod
    def from_config(cls, config: pytest.Config) -> RunSettings:
        """Parse the options; ``pytest.UsageError`` with one clear line when one is wrong."""
        option = config.getoption
        try:
            spec = parse_spec(option("vnext_backend"))
            options = exec_options(option)
            require = Level.parse(option("vnext_require"))
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        only, skip = _suite_list(option("vnext_only")), _suite_list(option("vnext_skip"))
        if only or skip:
            suites = set(known_suites())
            unknown = sorted(set(only + skip) - suites)
            if unknown:
                raise pytest.UsageError(f"unknown suite(s) {unknown}; known suites: {sorted(suites)}")
        manifest_path = option("vnext_expectations")
        manifest = None
        if manifest_path:
            try:
                manifest = load_manifest(manifest_path)
            except ManifestError as exc:
                raise pytest.UsageError(f"expectation manifest {manifest_path}: {exc}") from None
        today = dt.date.today()
        if option("vnext_today"):
            try:
                today = dt.date.fromisoformat(option("vnext_today"))
            except ValueError:
                raise pytest.UsageError(
                    f"--expectations-today must be YYYY-MM-DD, got {option('vnext_today')!r}"
                ) from None
        try:
            databases = tuple(parse_database_url(value) for value in option("vnext_database"))
        except ValueError as exc:
            raise pytest.UsageError(f"--database: {exc}") from None
        return cls(
            spec=spec,
            exec_options=options,
            check=SchemaCheck(enabled=bool(option("vnext_validate_protocol"))),
            only=only,
            skip=skip,
            cases=tuple(option("vnext_cases")),
            manifest=manifest,
            manifest_path=manifest_path,
            today=today,
            cache_dir=Path(option("vnext_cache_dir")),
            counterexample_dir=Path(
                option("vnext_counterexample_dir") or Path(option("vnext_cache_dir")) / "counterexamples"
            ),
            corpus_dirs=tuple(Path(value) for value in option("vnext_corpus")),
            report_json=option("vnext_report_json"),
            report_md=option("vnext_report_md"),
            report_html=option("vnext_report_html"),
            badge=option("vnext_badge"),
            require=require,
            max_examples=option("vnext_max_examples"),
            heartbeat=option("vnext_progress_heartbeat"),
            max_fail=option("vnext_max_fail"),
            max_time=option("vnext_max_time"),
            seed=option("vnext_seed"),
            databases=databases,
            database_read_only=bool(option("vnext_database_read_only")),
            certificate=option("vnext_certificate"),
            fuzz_time=option("vnext_fuzz_time"),
            hypofuzz=bool(option("vnext_hypofuzz")),
        )
