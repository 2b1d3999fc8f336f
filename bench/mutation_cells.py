"""Choosing the document-mutation cells the ``ci`` profile runs: the raise sites each cell reaches.

Run: ``python bench/mutation_cells.py [--bases B ...] [--unreached FILE] [--json PATH] [--write]``.

Every cell of ``strategies.mutations`` over the chosen bases is sent to the reference's ``build_plan``
in process, under coverage.py with one dynamic context per cell; a raise statement of the census
(``conformance.reach.sites``) is reached by a cell when its line ran in that cell's context, and a
checked-arithmetic site when the cell's answered error is attributed to it. The cells are then chosen
greedily: the cell reaching the most sites no chosen cell reaches yet, until no cell adds a site. With
``--unreached`` (a ``bench/reach.py --json`` summary of the other suites, or one ``path:line`` per
line), only those sites count. ``--load`` reads earlier ``--json`` measurements instead. ``--write`` rewrites
``strategies/mutation_cells.py`` with the chosen cells.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import coverage

_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_ROOT))

from bench.reach import is_statement  # noqa: E402
from conformance.reach.sites import SiteIndex, census, frames_of, reference_root  # noqa: E402
from reference import api  # noqa: E402
from strategies.budget import BASES  # noqa: E402
from strategies.mutations import Cell, cells_of  # noqa: E402

_OUTPUT = _ROOT / "strategies" / "mutation_cells.py"


def measure(cells: Sequence[Cell]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """``cell id -> census site locations it reaches`` and ``cell id -> answer``."""
    sites = census()
    index = SiteIndex(sites)
    statements = {(site.path, site.line): site.location for site in sites if is_statement(site)}
    cov = coverage.Coverage(data_file=None, source=[str(reference_root())], branch=False)
    reached: dict[str, set[str]] = {cell.id: set() for cell in cells}
    answers: dict[str, str] = {}
    cov.start()
    try:
        for cell in cells:
            cov.switch_context(cell.id)
            data = json.dumps(cell.scenario(), ensure_ascii=False).encode("utf-8")
            try:
                api.build_plan(api.parse_scenario(data))
                answers[cell.id] = "plan"
            except api.VNextError as exc:
                answers[cell.id] = exc.kind
                site = index.in_traceback(frames_of(exc))
                if site is not None:
                    reached[cell.id].add(site.location)
            except Exception as exc:  # a crash of the reference is what this looks for
                answers[cell.id] = f"crash:{type(exc).__name__}:{exc}"
    finally:
        cov.stop()
    data = cov.get_data()
    base = reference_root().parent.resolve()
    for filename in data.measured_files():
        relative = Path(filename).resolve().relative_to(base).as_posix()
        for line, contexts in data.contexts_by_lineno(filename).items():
            location = statements.get((relative, line))
            if location is None:
                continue
            for context in contexts:
                if context in reached:
                    reached[context].add(location)
    return reached, answers


def choose(reached: Mapping[str, set[str]], wanted: set[str] | None, order: Iterable[str]) -> list[str]:
    """Greedy cover: the cell adding the most wanted sites first (ties: the earlier cell), until none adds."""
    remaining = {cell: (sites & wanted if wanted is not None else set(sites)) for cell, sites in reached.items()}
    rank = {cell: position for position, cell in enumerate(order)}
    covered: set[str] = set()
    chosen: list[str] = []
    while True:
        best = max(remaining, key=lambda cell: (len(remaining[cell] - covered), -rank[cell]), default=None)
        if best is None or not remaining[best] - covered:
            break
        covered |= remaining.pop(best)
        chosen.append(best)
    return sorted(chosen, key=rank.__getitem__)


def _write(chosen: Sequence[str]) -> None:
    lines = [
        '"""The document-mutation cells the ``ci`` profile runs (written by ``bench/mutation_cells.py``).',
        "",
        "Each id is ``<base>:<path>:<mutation>`` (``strategies.mutations.Cell``); the list is the greedy cover",
        "of the raise sites the cells reach that the other suites leave unreached.",
        '"""',
        "",
        "from typing import Final",
        "",
        '__all__ = ["CI_CELLS"]',
        "",
        "CI_CELLS: Final[tuple[str, ...]] = (",
        *(f"    {json.dumps(cell)}," for cell in chosen),
        ")",
        "",
    ]
    _OUTPUT.write_text("\n".join(lines), encoding="utf-8")


def _unreached(path: Path) -> set[str]:
    """The sites of a ``bench/reach.py --json`` summary's ``unreached``, or of a ``path:line`` list."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        groups = json.loads(text)["unreached"]
        return {site for by_rule in groups.values() for sites in by_rule.values() for site in sites}
    return {line.strip() for line in text.splitlines() if line.strip()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bases", nargs="*", default=list(BASES))
    parser.add_argument(
        "--unreached",
        default=None,
        help="only these sites count: a bench/reach.py --json summary, or one path:line a line",
    )
    parser.add_argument("--json", default=None, help="write every cell's answer and sites here")
    parser.add_argument("--write", action="store_true", help="rewrite strategies/mutation_cells.py")
    parser.add_argument("--load", nargs="*", default=None, help="read the measurements of earlier --json runs")
    args = parser.parse_args(argv)
    cells = [cell for base in args.bases for cell in cells_of(base)]
    if args.load is None:
        reached, answers = measure(cells)
    else:
        reached, answers = {}, {}
        for path in args.load:
            for cell, entry in json.loads(Path(path).read_text(encoding="utf-8")).items():
                reached[cell], answers[cell] = set(entry["sites"]), entry["answer"]
        cells = [cell for cell in cells if cell.id in answers]
    wanted = _unreached(Path(args.unreached)) if args.unreached else None
    chosen = choose(reached, wanted, [cell.id for cell in cells])
    union = set().union(*reached.values()) if reached else set()
    print(f"cells: {len(cells)}; sites reached: {len(union)}; chosen cells: {len(chosen)}")
    if wanted is not None:
        print(f"wanted sites reached: {len(union & wanted)} of {len(wanted)}")
    crashes = {cell: answer for cell, answer in answers.items() if answer.startswith("crash:") or answer == "internal"}
    for cell, answer in sorted(crashes.items()):
        print(f"REFERENCE FAILURE {cell}: {answer}")
    if args.json:
        out = {cell: {"answer": answers[cell], "sites": sorted(reached[cell])} for cell in answers}
        Path(args.json).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.write:
        _write(chosen)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
