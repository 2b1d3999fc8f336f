"""CPU seconds of a conformance run, this tree against another revision, in interleaved rounds.

Each round runs ``python -m harness.cli run --profile ci ...`` once per tree, alternating, with
``PYTHONPATH`` set to that tree, and takes the CPU time of the whole process tree from
``getrusage(RUSAGE_CHILDREN)`` (the run, its pytest-xdist workers and any ``exec:`` backend they
started: user + system). From the JSON-lines report it counts cases and examples (a generated case
counts its Hypothesis examples, any other case one) per suite, and prints per tree the median CPU
seconds, examples per CPU second, and the ratio this / other, so a loaded machine skews both
sides alike.

Run: ``python bench/run_cpu.py [--against REV] [--rounds 3] [-- RUN ARGS]`` (run arguments after
``--``, e.g. ``-- --only memory_budget -n 0``). A revision whose report has no ``examples`` field
counts one example per case.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root holds the bench package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.trees import ROOT, export


@dataclass(frozen=True)
class Measured:
    """One run: CPU seconds of the process tree, cases and examples per suite, pytest's exit status."""

    cpu: float
    cases: Counter[str]
    examples: Counter[str]
    status: int


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _counts(report: Path) -> tuple[Counter[str], Counter[str]]:
    cases: Counter[str] = Counter()
    examples: Counter[str] = Counter()
    for line in report.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("record", record.get("type")) != "case":
            continue
        suite = str(record.get("suite") or str(record.get("case_id", "?")).split("/")[0])
        cases[suite] += 1
        examples[suite] += int(record.get("examples") or 1)
    return cases, examples


def _names_hypothesis_plugin(tree: Path) -> bool:
    sources = (tree / "harness").rglob("*.py")
    return any("_hypothesis_pytestplugin" in path.read_text(encoding="utf-8") for path in sources)


def run_once(tree: Path, run_args: list[str], scratch: Path) -> Measured:
    report = scratch / "report.jsonl"
    report.unlink(missing_ok=True)
    # Only the tree's own plugins: the installed package's entry point names this tree's plugin module.
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    if not _names_hypothesis_plugin(tree):  # an older command line relied on plugin autoloading
        env["PYTEST_ADDOPTS"] = "-p _hypothesis_pytestplugin"
    command = [sys.executable, "-m", "harness.cli", "run", "--profile", "ci", "--report-json", str(report), *run_args]
    before = _children_cpu()
    proc = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True, check=False)
    cpu = _children_cpu() - before
    if not report.exists():
        raise SystemExit(f"{tree}: the run wrote no report (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    cases, examples = _counts(report)
    return Measured(cpu, cases, examples, proc.returncode)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    run_args: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, run_args = argv[:cut], argv[cut + 1 :]
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--against", default=None, help="a git revision to compare with, interleaved")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this": ROOT}
        if args.against:
            trees[args.against] = export(args.against, Path(tmp) / "other")
        runs: dict[str, list[Measured]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                scratch = Path(tmp) / f"run-{name.replace('/', '_')}"
                scratch.mkdir(exist_ok=True)
                runs[name].append(run_once(tree, run_args, scratch))
    medians: dict[str, float] = {}
    for name, measured in runs.items():
        cpu = statistics.median(m.cpu for m in measured)
        medians[name] = cpu
        last = measured[-1]
        total_examples = sum(last.examples.values())
        print(f"== {name}: CPU-s median {cpu:.1f} over {len(measured)} rounds "
              f"({', '.join(f'{m.cpu:.1f}' for m in measured)}); exit {last.status}")  # fmt: skip
        print(f"   {sum(last.cases.values())} cases, {total_examples} examples, "
              f"{total_examples / cpu:.1f} examples per CPU-s")  # fmt: skip
        for suite in sorted(last.cases):
            print(f"   {suite:22s} {last.cases[suite]:5d} cases {last.examples[suite]:6d} examples")
    if args.against:
        print(f"== this / {args.against}: CPU {medians['this'] / medians[args.against]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
