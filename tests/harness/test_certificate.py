"""Conformance certificates: written by ``run``, canonical, sealed, schema-valid; ``certificate diff`` gates CI.

One real run (the ``describe`` suite against the reference served over ``exec:``) writes the
certificate every test here starts from; the regressions are planted in copies of it.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import schemas
from harness.backends import parse_spec
from harness.certificate import (
    CertificateError,
    corpus_digest,
    diff_certificates,
    executable_identity,
    read_certificate,
    seal,
    write_certificate,
)
from harness.cli import main
from harness.cli.exits import Exit
from reference.canonical import canonical_bytes
from tests.harness.helpers import PYTHON, read_jsonl, run_cli, serve_spec

Document = dict[str, Any]


def _diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``vnext-conformance certificate diff ARGS`` in this process: (status, stdout, stderr)."""
    status = main(["certificate", "diff", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(certificate, report)`` of one ``run --only describe`` over the exec protocol."""
    root = tmp_path_factory.mktemp("certified")
    done = run_cli(
        "run", "--profile", "ci", "--only", "describe", "--backend", serve_spec(), "--cache-dir", str(root / "cache"),
        cwd=root,
    )  # fmt: skip
    assert done.returncode in (Exit.PASSED, Exit.FAILED), done.stdout[-3000:] + done.stderr[-3000:]
    certificate = root / "cache" / "last-run.certificate.json"
    assert f"certificate: {Path('cache') / 'last-run.certificate.json'}" in done.stdout or certificate.exists()
    return certificate, root / "cache" / "last-run.jsonl"


def test_run_writes_a_canonical_sealed_schema_valid_certificate(certified: tuple[Path, Path]) -> None:
    path, report = certified
    data = path.read_bytes()
    document = read_certificate(path)
    assert canonical_bytes(document) == data  # stored as its canonical bytes
    schemas.validator("protocol/certificate.json").validate(document)
    body = {name: value for name, value in document.items() if name != "sha256"}
    assert document["sha256"] == hashlib.sha256(canonical_bytes(body)).hexdigest()
    assert document["mode"] == "run"
    assert document["selection"]["only"] == ["describe"]
    # The backend's identity: its describe result and the sha256 of the program the exec spec names.
    assert document["backend"]["description"]["implementation"]["name"] == "vnext-conformance-reference"
    assert document["backend"]["executable"] == {
        "program": PYTHON,
        "sha256": hashlib.sha256(Path(PYTHON).read_bytes()).hexdigest(),
    }
    records = read_jsonl(report)
    cases = [r for r in records if r["record"] == "case"]
    assert sum(document["cases"]["total"].values()) == len(cases)
    failing = any(r["outcome"] in ("failed", "error") for r in cases)
    assert document["verdict"] == ("failed" if failing else "passed")
    rules = {r["rule_id"]: r["status"] for r in records if r["record"] == "rule"}
    assert document["rules"]["outcomes"] == rules


def test_a_certificate_names_its_own_content(certified: tuple[Path, Path], tmp_path: Path) -> None:
    document = read_certificate(certified[0])
    edited = copy.deepcopy(document)
    edited["verdict"] = "passed" if document["verdict"] != "passed" else "failed"
    tampered = tmp_path / "tampered.json"
    tampered.write_bytes(canonical_bytes(edited))
    with pytest.raises(CertificateError, match="sha256 does not match"):
        read_certificate(tampered)
    invalid = seal({name: value for name, value in document.items() if name != "verdict"})
    broken = tmp_path / "invalid.json"
    broken.write_bytes(canonical_bytes(invalid))
    with pytest.raises(CertificateError, match="not a valid certificate"):
        read_certificate(broken)
    with pytest.raises(Exception, match="verdict"):
        write_certificate(tmp_path / "never.json", invalid)
    assert not (tmp_path / "never.json").exists()


def _some_rule(document: Document) -> str:
    return sorted(document["rules"]["outcomes"])[0]


def _newly_failing(old: Document, new: Document) -> str:
    rule = _some_rule(old)
    old["rules"]["outcomes"][rule], new["rules"]["outcomes"][rule] = "passed", "failed"
    return f"rule {rule}: passed -> failed (newly failing)"


def _no_longer_exercised(old: Document, new: Document) -> str:
    rule = _some_rule(old)
    old["rules"]["outcomes"][rule], new["rules"]["outcomes"][rule] = "passed", "not_exercised"
    return f"rule {rule}: passed -> not_exercised (no longer exercised)"


def _fewer_examples(old: Document, new: Document) -> str:
    old["examples"]["by_suite"]["memory_budget"], new["examples"]["by_suite"]["memory_budget"] = 120, 60
    return "examples memory_budget: 120 -> 60 (fewer examples)"


def _changed_program(old: Document, new: Document) -> str:
    new["backend"]["executable"]["sha256"] = "0" * 64
    return f"backend executable sha256: {old['backend']['executable']['sha256']} -> {'0' * 64}"


def _changed_version(old: Document, new: Document) -> str:
    new["backend"]["description"]["implementation"]["version"] = "9.9.9"
    return "backend implementation:"


@pytest.mark.parametrize(
    "plant", [_newly_failing, _no_longer_exercised, _fewer_examples, _changed_program, _changed_version]
)
def test_certificate_diff_catches_a_planted_regression(
    certified: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    plant: Callable[[Document, Document], str],
) -> None:
    base = read_certificate(certified[0])
    old, new = copy.deepcopy(base), copy.deepcopy(base)
    expected = plant(old, new)
    old_path = write_certificate(tmp_path / "old.json", seal(old))
    new_path = write_certificate(tmp_path / "new.json", seal(new))

    status, out, err = _diff(capsys, str(old_path), str(new_path))
    assert status == Exit.FAILED, out + err
    assert "regressions (1):" in out
    assert expected in out
    assert out.rstrip().endswith("result: 1 regression")

    status, out, err = _diff(capsys, str(old_path), str(old_path))
    assert status == Exit.PASSED, out + err
    assert "no change" in out


def test_diff_in_the_other_direction_is_no_regression(certified: tuple[Path, Path]) -> None:
    base = read_certificate(certified[0])
    old, new = copy.deepcopy(base), copy.deepcopy(base)
    _newly_failing(new, old)  # new passes a rule old failed; new has more examples
    _fewer_examples(new, old)
    changes = diff_certificates(seal(old), seal(new))
    assert changes and not any(change.regression for change in changes)
    assert any("(fixed)" in change.text for change in changes)


def test_allow_accepts_one_kind_of_change(certified: tuple[Path, Path]) -> None:
    base = read_certificate(certified[0])
    old, new = copy.deepcopy(base), copy.deepcopy(base)
    _changed_program(old, new)
    assert any(change.regression for change in diff_certificates(old, new))
    assert not any(change.regression for change in diff_certificates(old, new, allow=["backend"]))
    _fewer_examples(old, new)
    still = [change for change in diff_certificates(old, new, allow=["backend"]) if change.regression]
    assert [change.kind for change in still] == ["examples"]


def test_certificate_diff_refuses_a_file_that_is_not_a_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text(json.dumps({"certificate_version": 1}), encoding="utf-8")
    status, _, err = _diff(capsys, str(bogus), str(bogus))
    assert status == Exit.USAGE
    assert "not a valid certificate" in err


def test_corpus_digest_depends_on_names_and_bytes_not_order(tmp_path: Path) -> None:
    one, two = tmp_path / "a.json", tmp_path / "b.json"
    one.write_bytes(b'{"a":1}')
    two.write_bytes(b'{"b":2}')
    digest, count = corpus_digest([one, two])
    assert (digest, count) == corpus_digest([two, one, one])
    assert count == 2
    two.write_bytes(b'{"b":3}')
    assert corpus_digest([one, two])[0] != digest


def test_executable_identity_only_for_an_exec_program_file(tmp_path: Path) -> None:
    program = tmp_path / "backend"
    program.write_bytes(b"#!/bin/sh\n")
    identity = executable_identity(parse_spec(f"exec:{program} serve"))
    assert identity == {"program": str(program), "sha256": hashlib.sha256(b"#!/bin/sh\n").hexdigest()}
    assert executable_identity(parse_spec("reference")) is None
    assert executable_identity(parse_spec(f"exec:{tmp_path / 'missing'}")) is None
