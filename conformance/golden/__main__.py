"""``python -m conformance.golden --write | --check``."""

from __future__ import annotations

import argparse
import sys

from conformance.golden import check, golden_path, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.golden", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate the golden vectors from the reference")
    mode.add_argument("--check", action="store_true", help="fail if the checked-in vectors are stale")
    args = parser.parse_args(argv)
    if args.write:
        print(f"wrote {write()}")
        return 0
    problems = check()
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{golden_path()} is up to date")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
