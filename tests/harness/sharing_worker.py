"""One search process of the example-sharing tests: ``python -m tests.harness.sharing_worker MODE LOCAL [SHARED]``.

``MODE`` is ``search`` (every phase: generate, shrink, save) or ``replay`` (only Hypothesis's
``reuse`` phase, so the property can fail only on an example a database supplies); ``LOCAL`` is
the process's own directory database, ``SHARED`` a ``--database`` URL, ``--read-only`` reads it
through ``ReadOnlyDatabase``. It prints ``{"failed": bool, "example": int | null}`` as JSON.
"""

from __future__ import annotations

import json
import sys
import unittest
from pathlib import Path

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from harness.fuzz.database import example_database, parse_database_url

#: The property fails from this value on; shrinking ends exactly here.
THRESHOLD = 1_000_000
_seen: list[int] = []


@given(st.integers(0, 10**9))
def _property(value: int) -> None:
    _seen.append(value)
    assert value < THRESHOLD


def main(argv: list[str]) -> int:
    mode, local, *rest = [arg for arg in argv if arg != "--read-only"]
    shared = [parse_database_url(rest[0])] if rest else []
    database = example_database(Path(local), shared, read_only="--read-only" in argv, check=True)
    phases = list(Phase) if mode == "search" else [Phase.reuse]
    test = settings(database=database, phases=phases, max_examples=2000, deadline=None, print_blob=False)(_property)
    try:
        test()
    except AssertionError:
        print(json.dumps({"failed": True, "example": _seen[-1]}))
        return 0
    except unittest.SkipTest:  # replay with nothing in the databases: no example at all
        pass
    print(json.dumps({"failed": False, "example": None}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
