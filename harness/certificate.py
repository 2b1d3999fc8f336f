"""Conformance certificates: what one run or fuzzing session exercised and concluded, for CI to diff.

A certificate is one JSON document (schema ``schemas/protocol/certificate.json``) stored as its
exact canonical bytes (``reference.canonical.canonical_bytes``: sorted keys, compact). Its ``sha256``
field is the sha256 of the canonical bytes of the document without that field, so the document
names its own content and any edit shows. It binds:

* the suite (name, version), the contract (crate, version, module, plan schema) and the corpus
  (``corpus.sha256``: see ``corpus_digest``);
* how the run searched: ``mode`` (``run`` or ``fuzz``), the Hypothesis profile and version, the
  seed (and, fuzzing, the rule deriving each round's seed), the budgets (workers, time, examples,
  failures), the selection, the conformance level required and the kinds of example database;
* the backend: its spec, its ``describe`` result or why it had none, and for ``exec:`` the sha256
  of the program file the command names;
* what happened: case outcomes per suite, examples per suite, the status of every catalogue rule
  and the ``verdict`` (``passed``, ``failed``, ``incomplete``, ``unavailable``).

Nothing in it comes from the clock, so two runs that did the same write the same certificate.
``diff_certificates`` lists what changed between two and which changes are regressions.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import jsonschema

import schemas
from harness.backends import BackendSpec, SpecKind
from harness.bundles import MAX_BUNDLE_BYTES
from harness.identity import CONTRACT_IDENTITY, SUITE_NAME, suite_version
from harness.reports import files
from harness.reports.result import RunResult
from reference.bounded_read import read_bounded
from reference.canonical import canonical_bytes, loads_strict, sha256_hex
from reference.errors import VNextError

__all__ = [
    "CERTIFICATE_VERSION",
    "REGRESSION_KINDS",
    "Change",
    "CertificateError",
    "RunFacts",
    "certificate_path",
    "corpus_digest",
    "diff_certificates",
    "executable_identity",
    "read_certificate",
    "render_diff",
    "run_certificate",
    "seal",
    "write_certificate",
]

CERTIFICATE_VERSION: Final = 1
_SCHEMA: Final = "protocol/certificate.json"
_CONTEXT: Final = "decode certificate"
_MAX_CERTIFICATE_BYTES: Final = 64 * 1024 * 1024
_CHUNK: Final = 1024 * 1024
#: How a fuzzing session derives the seed of round ``i`` of a case from the session's seed.
ROUND_SEED_RULE: Final = "int.from_bytes(sha256(f'{seed}:{case_id}:{i}').digest()[:8], 'big')"
_EXERCISED: Final = frozenset({"passed", "failed"})
_FAILING_OUTCOMES: Final = ("failed", "error")
#: The kinds of change ``diff`` can call a regression; ``allow`` names the ones to accept.
REGRESSION_KINDS: Final = ("rule", "examples", "cases", "verdict", "backend", "contract")


class CertificateError(ValueError):
    """A file that is not a valid, intact certificate."""


# --------------------------------------------------------------------------- facts


def corpus_digest(paths: Iterable[Path]) -> tuple[str, int]:
    """``(sha256, bundles)`` over the corpus bundle files ``paths``.

    The digest hashes, for each distinct ``(file name, bytes)`` pair in name order, the name, a
    newline, the byte length in decimal, a newline and the bytes.
    """
    entries: dict[tuple[str, bytes], None] = {}
    for path in paths:
        data = read_bounded(path, max_bytes=MAX_BUNDLE_BYTES, context="read corpus bundle")
        entries[(Path(path).name, data)] = None
    digest = hashlib.sha256()
    for name, data in sorted(entries):
        digest.update(name.encode("utf-8") + b"\n" + str(len(data)).encode("ascii") + b"\n" + data)
    return digest.hexdigest(), len(entries)


def executable_identity(spec: BackendSpec) -> dict[str, str] | None:
    """For an ``exec:`` spec whose command names a file: ``{program, sha256}`` of that file."""
    if spec.kind is not SpecKind.EXEC or not spec.argv:
        return None
    program = spec.argv[0]
    resolved = program if os.sep in program else shutil.which(program)
    if resolved is None or not os.path.isfile(resolved):
        return None
    digest = hashlib.sha256()
    try:
        with open(resolved, "rb") as handle:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
    except OSError:
        return None
    return {"program": program, "sha256": digest.hexdigest()}


def _hypothesis_version() -> str:
    try:
        return metadata.version("hypothesis")
    except metadata.PackageNotFoundError:  # pragma: no cover - hypothesis is a dependency
        return "unknown"


def _verdict(result: RunResult) -> str:
    footer = result.footer or {}
    stopped = footer.get("stopped") or {}
    backend = result.header.get("backend") or {}
    if stopped.get("kind") == "unavailable" or (not result.cases and backend.get("error")):
        return "unavailable"
    if result.failures:
        return "failed"
    return "passed" if result.complete else "incomplete"


def _cases(result: RunResult) -> dict[str, Any]:
    by_suite = {suite: dict(sorted(counts.items())) for suite, counts in sorted(result.by_suite.items())}
    total: dict[str, int] = {}
    for counts in by_suite.values():
        for outcome, count in counts.items():
            total[outcome] = total.get(outcome, 0) + count
    return {"by_suite": by_suite, "total": dict(sorted(total.items()))}


def _examples(result: RunResult) -> dict[str, Any]:
    by_suite: dict[str, int] = {}
    for case in result.cases:
        count = case.get("examples")
        if isinstance(count, int):
            by_suite[case["suite"]] = by_suite.get(case["suite"], 0) + count
    return {"by_suite": dict(sorted(by_suite.items())), "total": sum(by_suite.values())}


def _rules(result: RunResult) -> dict[str, Any]:
    outcomes = {str(rule["rule_id"]): str(rule["status"]) for rule in result.rules}
    by_status: dict[str, int] = {}
    for status in outcomes.values():
        by_status[status] = by_status.get(status, 0) + 1
    block = (result.footer or {}).get("rules") or {}
    return {
        "by_status": dict(sorted(by_status.items())),
        "exercised": int(block.get("exercised", sum(status in _EXERCISED for status in outcomes.values()))),
        "reachable": int(block.get("reachable", 0)),
        "outcomes": dict(sorted(outcomes.items())),
    }


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What a certificate says about a run besides its report: how it was asked to search."""

    spec: BackendSpec
    workers: int
    corpus: Sequence[Path] = ()
    max_examples: int | None = None
    """The profile's ``max_examples`` (per round, fuzzing)."""
    max_time: float | None = None
    run_max_examples: int | None = None
    max_fail: int | None = None
    fuzz_time: float | None = None
    only: Sequence[str] = ()
    skip: Sequence[str] = ()
    cases: Sequence[str] = ()
    require: str = "planning"
    expectations: bool = False
    databases: Sequence[str] = ()
    """The kinds of the shared (``--database``) example databases."""
    database_read_only: bool = False
    fuzz: Mapping[str, Any] | None = None
    """A fuzzing session's own figures (rounds, cases cut by the budget)."""


def run_certificate(result: RunResult, facts: RunFacts) -> dict[str, Any]:
    """The certificate of the run whose report is ``result`` (sealed: ``sha256`` set)."""
    digest, bundles = corpus_digest(facts.corpus)
    header = result.header
    backend = header.get("backend") or {}
    fuzzing = facts.fuzz_time is not None
    seed = header.get("seed")
    document: dict[str, Any] = {
        "certificate_version": CERTIFICATE_VERSION,
        "mode": "fuzz" if fuzzing else "run",
        "suite": {"name": SUITE_NAME, "version": suite_version()},
        "contract": dict(CONTRACT_IDENTITY),
        "corpus": {"sha256": digest, "bundles": bundles},
        "backend": {
            "spec": facts.spec.text,
            "description": backend.get("description"),
            "error": backend.get("error"),
            "executable": executable_identity(facts.spec),
        },
        "profile": {
            "name": str(header.get("profile", "")),
            "max_examples": facts.max_examples,
            "derandomize": bool(header.get("derandomize", False)),
            "hypothesis": _hypothesis_version(),
        },
        "seeds": {"seed": seed, "rounds": ROUND_SEED_RULE if fuzzing else None},
        "budgets": {
            "workers": facts.workers,
            "max_time_s": facts.max_time,
            "max_examples": facts.run_max_examples,
            "max_fail": facts.max_fail,
            "fuzz_time_s": facts.fuzz_time,
        },
        "selection": {
            "only": sorted(facts.only),
            "skip": sorted(facts.skip),
            "cases": sorted(facts.cases),
            "require": facts.require,
            "expectations": facts.expectations,
        },
        "database": {"shared": sorted(facts.databases), "read_only": facts.database_read_only},
        "fuzz": dict(facts.fuzz) if facts.fuzz else None,
        "cases": _cases(result),
        "examples": _examples(result),
        "rules": _rules(result),
        "complete": result.complete,
        "verdict": _verdict(result),
    }
    return seal(document)


# --------------------------------------------------------------------------- files


def _digest(document: Mapping[str, Any]) -> str:
    body = {name: value for name, value in document.items() if name != "sha256"}
    return sha256_hex(canonical_bytes(body, context="certificate"))


def seal(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` with its ``sha256`` field set to the digest of the rest."""
    sealed = {name: value for name, value in document.items() if name != "sha256"}
    sealed["sha256"] = _digest(sealed)
    return sealed


def certificate_path(explicit: str | None, report: Path) -> Path:
    """``--certificate``, else ``<report without .jsonl>.certificate.json`` beside the report."""
    if explicit:
        return Path(explicit)
    stem = report.name[: -len(".jsonl")] if report.name.endswith(".jsonl") else report.name
    return report.with_name(f"{stem}.certificate.json")


def write_certificate(path: Path, document: Mapping[str, Any]) -> Path:
    """Write the sealed ``document`` as its canonical bytes (atomically); the path."""
    schemas.validator(_SCHEMA).validate(document)
    if document.get("sha256") != _digest(document):
        raise CertificateError("the certificate is not sealed")
    data = canonical_bytes(dict(document), context="certificate")
    files.replace_with(path, data)
    return path


def read_certificate(path: Path | str) -> dict[str, Any]:
    """A certificate file, decoded strictly, schema-checked and its ``sha256`` verified."""
    try:
        data = read_bounded(path, max_bytes=_MAX_CERTIFICATE_BYTES, context=_CONTEXT)
        document = loads_strict(data, context=_CONTEXT, max_bytes=_MAX_CERTIFICATE_BYTES)
    except OSError as exc:
        raise CertificateError(f"{path}: {exc.strerror or exc}") from None
    except (VNextError, ValueError) as exc:
        raise CertificateError(f"{path}: not a JSON document ({exc})") from None
    if not isinstance(document, dict):
        raise CertificateError(f"{path}: not a certificate (a JSON object is expected)")
    problem = jsonschema.exceptions.best_match(schemas.validator(_SCHEMA).iter_errors(document))
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "(root)"
        raise CertificateError(f"{path}: not a valid certificate at {where}: {problem.message[:300]}")
    if document["sha256"] != _digest(document):
        raise CertificateError(f"{path}: its sha256 does not match its content (edited or damaged)")
    return document


# --------------------------------------------------------------------------- diff


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two certificates; ``regression`` when it makes the new one worse."""

    kind: str
    text: str
    regression: bool


def _identity(backend: Mapping[str, Any]) -> dict[str, Any]:
    description = backend.get("description") or {}
    executable = backend.get("executable") or {}
    return {
        "implementation": description.get("implementation"),
        "contract": description.get("contract"),
        "operations": description.get("operations"),
        "limits": description.get("limits"),
        "executable sha256": executable.get("sha256"),
        "unavailable": (backend.get("error") or {}).get("kind"),
    }


def _rule_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    changes: list[Change] = []
    for rule_id in sorted(set(old) | set(new)):
        before, after = old.get(rule_id), new.get(rule_id)
        if before == after:
            continue
        shown = f"rule {rule_id}: {before or 'absent'} -> {after or 'absent'}"
        if after == "failed":
            changes.append(Change("rule", f"{shown} (newly failing)", True))
        elif before in _EXERCISED and after not in _EXERCISED:
            changes.append(Change("rule", f"{shown} (no longer exercised)", True))
        elif before == "failed" and after == "passed":
            changes.append(Change("rule", f"{shown} (fixed)", False))
        elif after in _EXERCISED:
            changes.append(Change("rule", f"{shown} (newly exercised)", False))
        else:
            changes.append(Change("rule", shown, False))
    return changes


def _count_changes(kind: str, old: Mapping[str, int], new: Mapping[str, int], what: str) -> list[Change]:
    changes: list[Change] = []
    for suite in sorted(set(old) | set(new)):
        before, after = old.get(suite, 0), new.get(suite, 0)
        if after < before:
            changes.append(Change(kind, f"{what} {suite}: {before} -> {after} (fewer {what})", True))
        elif after > before:
            changes.append(Change(kind, f"{what} {suite}: {before} -> {after}", False))
    return changes


def _case_changes(old: Mapping[str, Mapping[str, int]], new: Mapping[str, Mapping[str, int]]) -> list[Change]:
    changes: list[Change] = []
    for suite in sorted(set(old) | set(new)):
        before, after = old.get(suite, {}), new.get(suite, {})
        failing = (sum(before.get(o, 0) for o in _FAILING_OUTCOMES), sum(after.get(o, 0) for o in _FAILING_OUTCOMES))
        if failing[1] > failing[0]:
            changes.append(Change("cases", f"cases {suite}: {failing[0]} -> {failing[1]} failing", True))
        passed = (before.get("passed", 0), after.get("passed", 0))
        if passed[1] < passed[0]:
            changes.append(Change("cases", f"cases {suite}: {passed[0]} -> {passed[1]} passed (fewer passing)", True))
        elif passed[1] > passed[0]:
            changes.append(Change("cases", f"cases {suite}: {passed[0]} -> {passed[1]} passed", False))
    return changes


_VERDICT_RANK: Final = {"passed": 0, "incomplete": 1, "failed": 2, "unavailable": 3}


def diff_certificates(old: Mapping[str, Any], new: Mapping[str, Any], *, allow: Iterable[str] = ()) -> list[Change]:
    """What changed from ``old`` to ``new``; the kinds in ``allow`` are never regressions."""
    accepted = frozenset(allow)
    changes: list[Change] = []
    if old["contract"] != new["contract"]:
        changes.append(Change("contract", f"contract {old['contract']} -> {new['contract']}", True))
    before, after = _identity(old["backend"]), _identity(new["backend"])
    for name in before:
        if before[name] != after[name]:
            changes.append(Change("backend", f"backend {name}: {before[name]} -> {after[name]}", True))
    if old["backend"]["spec"] != new["backend"]["spec"]:
        changes.append(Change("spec", f"backend spec {old['backend']['spec']!r} -> {new['backend']['spec']!r}", False))
    if _VERDICT_RANK[new["verdict"]] > _VERDICT_RANK[old["verdict"]]:
        changes.append(Change("verdict", f"verdict {old['verdict']} -> {new['verdict']}", True))
    elif new["verdict"] != old["verdict"]:
        changes.append(Change("verdict", f"verdict {old['verdict']} -> {new['verdict']}", False))
    changes += _case_changes(old["cases"]["by_suite"], new["cases"]["by_suite"])
    changes += _count_changes("examples", old["examples"]["by_suite"], new["examples"]["by_suite"], "examples")
    changes += _rule_changes(old["rules"]["outcomes"], new["rules"]["outcomes"])
    for name, label in (("suite", "suite"), ("corpus", "corpus"), ("profile", "profile"), ("budgets", "budgets")):
        if old[name] != new[name]:
            changes.append(Change(label, f"{label} {old[name]} -> {new[name]}", False))
    if old["mode"] != new["mode"]:
        changes.append(Change("mode", f"mode {old['mode']} -> {new['mode']}", False))
    return [Change(change.kind, change.text, change.regression and change.kind not in accepted) for change in changes]


def render_diff(changes: Sequence[Change], *, old: str, new: str, limit: int = 200) -> list[str]:
    """The lines ``certificate diff`` prints: regressions first, then the other changes."""
    regressions = [change for change in changes if change.regression]
    others = [change for change in changes if not change.regression]
    lines = [f"certificate diff {old} -> {new}"]
    for title, group in (("regressions", regressions), ("other changes", others)):
        if not group:
            continue
        lines.append(f"{title} ({len(group)}):")
        lines += [f"  {change.text}" for change in group[:limit]]
        if len(group) > limit:
            lines.append(f"  ... and {len(group) - limit} more")
    if not changes:
        lines.append("no change")
    lines.append(f"result: {len(regressions)} regression{'s' if len(regressions) != 1 else ''}")
    return lines
