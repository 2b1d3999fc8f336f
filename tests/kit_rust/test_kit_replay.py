"""The native corpus replayer (``vnext-kit replay`` / ``vnext-kit check``) against real backends.

Against the reference server every bundle passes; against a backend that answers everything
with one error, exactly the bundles that pin that error pass; a bundle whose expectation is
null is pinned by the golden vector of its scenario, or reported unpinned.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from conformance.corpus import corpus_dir, corpus_paths
from conformance.golden import golden_path
from conformance.golden import load as load_golden
from harness.bundles import Bundle, load_bundle, write_bundle
from reference.canonical import canonical_bytes

from .kit import PYTHON, ROOT, child_env, serve_argv

TIMEOUT_S = 600.0
FAKE_EXEC = ROOT / "tests" / "harness" / "fake_exec_backend.py"
SUMMARY = re.compile(r"(\d+) bundles: (\d+) passed, (\d+) not applicable, (\d+) failed, (\d+) unpinned")


def replay(vnext_kit: Path, backend: list[str], corpus: Path | None = None) -> tuple[int, tuple[int, ...], str]:
    argv = [str(vnext_kit), "replay", "--corpus", str(corpus or corpus_dir()), "--golden", str(golden_path())]
    proc = subprocess.run(
        [*argv, "--", *backend],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    match = SUMMARY.search(proc.stdout)
    assert match, proc.stdout + proc.stderr
    return proc.returncode, tuple(int(n) for n in match.groups()), proc.stdout


def test_the_checked_in_data_checks_natively(vnext_kit: Path) -> None:
    proc = subprocess.run(
        [str(vnext_kit), "check"],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    assert f"{len(corpus_paths())} bundles" in proc.stdout and "0 problems" in proc.stdout


def test_every_bundle_passes_against_the_reference(vnext_kit: Path) -> None:
    status, counts, out = replay(vnext_kit, serve_argv())
    total = len(corpus_paths())
    assert counts == (total, total, 0, 0, 0), out
    assert status == 0


def test_only_the_bundles_pinning_the_one_answer_pass(vnext_kit: Path) -> None:
    """The fake backend lists build_plan and revalidate and answers serialization/decode scenario."""
    bundles = [load_bundle(path) for path in corpus_paths()]
    answer = {"kind": "serialization", "context": "decode scenario"}
    applicable = [b for b in bundles if b.operation in ("build_plan", "revalidate")]
    satisfied = [
        b
        for b in applicable
        if b.expect is not None
        and "error" in b.expect
        and all(answer.get(k) == v for k, v in b.expect["error"].items() if k != "message")
    ]
    status, counts, out = replay(vnext_kit, [PYTHON, str(FAKE_EXEC), "ok"])
    assert counts == (
        len(bundles),
        len(satisfied),
        len(bundles) - len(applicable),
        len(applicable) - len(satisfied),
        0,
    ), out
    assert status == 1


def test_a_null_expectation_is_pinned_by_its_golden_vector(tmp_path: Path, vnext_kit: Path) -> None:
    vectors = load_golden()["vectors"]
    pinned = next(v for v in vectors if v["name"] == "plan_fixture_0")
    write_bundle(tmp_path, Bundle("build_plan", {"scenario": pinned["scenario"]}, None, "golden-pinned"))
    status, counts, out = replay(vnext_kit, serve_argv(), corpus=tmp_path)
    assert (status, counts) == (0, (1, 1, 0, 0, 0)), out


def test_a_null_expectation_without_a_golden_vector_is_unpinned(tmp_path: Path, vnext_kit: Path) -> None:
    source = next(p for p in corpus_paths() if p.stem == "seed_plan_fixture_0")
    scenario = load_bundle(source).params["scenario"]
    scenario = {**scenario, "name": "renamed"}
    golden = {canonical_bytes(v["scenario"]) for v in load_golden()["vectors"]}
    assert canonical_bytes(scenario) not in golden
    write_bundle(tmp_path, Bundle("build_plan", {"scenario": scenario}, None, "unpinned"))
    shutil.copy(source, tmp_path / source.name)
    status, counts, out = replay(vnext_kit, serve_argv(), corpus=tmp_path)
    assert (status, counts) == (1, (2, 1, 0, 0, 1)), out
    assert "UNPINNED" in out
