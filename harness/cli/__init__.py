"""The ``vnext-conformance`` command line (``harness.cli.commands``).

``serve`` takes a path of its own that imports neither pytest nor Hypothesis, so a served backend starts
in a fraction of the time the full command line takes to import; every other command, and ``serve --help``,
goes through the full parser. Every command ends with one of the statuses of ``harness.cli.exits.Exit``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

_HELP = frozenset({"-h", "--help"})


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"] and not _HELP.intersection(args):
        from harness.cli.serve import serve_main

        return serve_main(args[1:])
    from harness.cli.commands import main as full

    return full(args)
