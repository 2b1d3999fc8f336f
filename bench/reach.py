"""Raise-site reach through the backend: the share of the reference's contract-error raise sites that a
conformance run drives a served backend through.

Run: ``python bench/reach.py [--profile ci] [-n 2] [--json PATH] [-- extra run arguments]``.

It runs ``vnext-conformance run --profile ci -n 2`` against the reference served over ``exec:`` under
coverage.py (one parallel data file per served process, combined at the end), then counts the census
sites (``conformance.reach.sites``) that ran in the served processes. A raise statement counts when its
line ran; a checked-arithmetic site (its error raised inside ``reference/ints.py`` for the caller) counts
when an answered error was attributed to it (``bench/reach_backend.py``). Sites whose every rule is an
internal invariant of the catalogue are left out of the share. The unreached sites are listed grouped by
what their rules need (``needs`` of the catalogue), then by rule.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.reach.sites import RaiseSite, census, reference_root
from conformance.rules import catalogue
from harness.rules import RuleCatalogue

_ROOT = Path(__file__).resolve().parent.parent
_RECORDER = _ROOT / "bench" / "reach_backend.py"


def _rcfile(directory: Path) -> Path:
    path = directory / "coveragerc"
    path.write_text(
        f"[run]\nparallel = True\ndata_file = {directory / 'coverage'}\nsource = {reference_root()}\nsigterm = True\n",
        encoding="utf-8",
    )
    return path


def served_command(rcfile: Path) -> str:
    """The ``exec:`` command: the recording reference, served under coverage.py."""
    argv = [sys.executable, "-m", "coverage", "run", f"--rcfile={rcfile}", "-m", "harness.cli", "serve",
            "--backend", f"python:{_RECORDER}:make"]  # fmt: skip
    return shlex.join(argv)


def run_conformance(directory: Path, profile: str, workers: int, extra: Sequence[str]) -> int:
    rcfile = _rcfile(directory)
    spec = f"exec:{served_command(rcfile)}"
    argv = [sys.executable, "-m", "harness.cli", "run", "--profile", profile, "-n", str(workers),
            "--backend", spec, "--report-json", str(directory / "report.jsonl"), *extra]  # fmt: skip
    env = {**_environment(), "VNEXT_REACH_DIR": str(directory)}
    return subprocess.run(argv, cwd=_ROOT, env=env, check=False).returncode


def _environment() -> dict[str, str]:
    import os

    return dict(os.environ)


def executed_lines(directory: Path) -> dict[str, set[int]]:
    """``path relative to the repository -> executed lines`` of the combined data files."""
    import coverage

    rcfile = directory / "coveragerc"
    cov = coverage.Coverage(config_file=str(rcfile), data_file=str(directory / "coverage"))
    cov.combine(data_paths=[str(directory)], keep=True)
    data = cov.get_data()
    base = reference_root().parent.resolve()
    out: dict[str, set[int]] = {}
    for filename in data.measured_files():
        try:
            relative = Path(filename).resolve().relative_to(base).as_posix()
        except ValueError:
            continue
        out[relative] = set(data.lines(filename) or ())
    return out


def raised_keys(directory: Path) -> set[str]:
    keys: set[str] = set()
    for path in sorted(directory.glob("raised-*")):
        keys.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return keys


def is_statement(site: RaiseSite) -> bool:
    """A raise statement (as opposed to a checked-arithmetic call whose error is raised for it)."""
    return site.line == site.lines[0] and not site.source.startswith(("partial(", "lambda"))


def internal(site: RaiseSite, rules: RuleCatalogue) -> bool:
    """Every rule of the site is an internal invariant (no operation can observe it)."""
    known = [rules.by_id[rule] for rule in site.rules if rule in rules.by_id]
    return bool(known) and all(rule.internal for rule in known)


@dataclass(frozen=True)
class Reach:
    sites: tuple[RaiseSite, ...]
    counted: tuple[RaiseSite, ...]
    reached: tuple[RaiseSite, ...]
    #: Sites marked internal that the run reached anyway: each contradicts its internal claim.
    internal_reached: tuple[RaiseSite, ...] = ()

    @property
    def share(self) -> float:
        return len(self.reached) / len(self.counted) if self.counted else 1.0

    def unreached(self) -> list[RaiseSite]:
        done = {site.key for site in self.reached}
        return [site for site in self.counted if site.key not in done]


def measure(lines: dict[str, set[int]], raised: set[str], rules: RuleCatalogue) -> Reach:
    sites = census()

    def ran(site: RaiseSite) -> bool:
        return (site.line in lines.get(site.path, set()) if is_statement(site) else False) or site.key in raised

    counted = tuple(site for site in sites if not internal(site, rules))
    reached = tuple(site for site in counted if ran(site))
    contradicted = tuple(site for site in sites if internal(site, rules) and ran(site))
    return Reach(sites, counted, reached, contradicted)


def _needs(site: RaiseSite, rules: RuleCatalogue) -> str:
    found = [rules.by_id[rule] for rule in site.rules if rule in rules.by_id]
    needs = sorted({(rule.needs or "").split(" ")[0].rstrip(";") for rule in found})
    if not found:
        return "(no rule annotation)"
    if "" in needs:
        return "observable by an existing operation"
    return ", ".join(needs)


def report(reach: Reach, rules: RuleCatalogue) -> dict[str, Any]:
    groups: dict[str, dict[str, list[str]]] = {}
    for site in reach.unreached():
        group = groups.setdefault(_needs(site, rules), {})
        for rule in site.rules or ("(none)",):
            group.setdefault(rule, []).append(site.location)
    return {
        "sites": len(reach.sites),
        "internal": len(reach.sites) - len(reach.counted),
        "counted": len(reach.counted),
        "reached": len(reach.reached),
        "share": round(reach.share, 4),
        "internal_reached": [site.location for site in reach.internal_reached],
        "unreached": {need: dict(sorted(by_rule.items())) for need, by_rule in sorted(groups.items())},
    }


def _print(summary: dict[str, Any]) -> None:
    print(
        f"raise sites: {summary['sites']} in reference/, {summary['internal']} internal invariants left out, "
        f"{summary['counted']} counted"
    )
    print(f"reached through the backend: {summary['reached']}/{summary['counted']} = {100 * summary['share']:.1f}%")
    if summary["internal_reached"]:
        print(f"marked internal but reached (each claim is wrong): {', '.join(summary['internal_reached'])}")
    for need, by_rule in summary["unreached"].items():
        count = sum(len(locations) for locations in by_rule.values())
        print(f"\nunreached, {need}: {count} sites")
        for rule, locations in by_rule.items():
            print(f"  {rule}: {', '.join(locations)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="ci", choices=("ci", "dev", "fuzz"))
    parser.add_argument("-n", dest="workers", type=int, default=2)
    parser.add_argument("--json", default=None, help="also write the figures and unreached sites here")
    parser.add_argument("--keep", default=None, help="keep the coverage data and report in this directory")
    parser.add_argument("extra", nargs="*", help="extra arguments of vnext-conformance run (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vnext-reach-") as scratch:
        directory = Path(args.keep or scratch).resolve()
        directory.mkdir(parents=True, exist_ok=True)
        status = run_conformance(directory, args.profile, args.workers, args.extra)
        print(f"conformance run exited {status}")
        rules = catalogue()
        summary = report(measure(executed_lines(directory), raised_keys(directory), rules), rules)
    _print(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
