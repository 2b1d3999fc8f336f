"""The command line's argument parser class: errors in one line, exit status 2."""

from __future__ import annotations

import argparse
from typing import NoReturn

from harness.cli.exits import Exit

__all__ = ["UsageParser"]


class UsageParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (and a pointer to ``--help``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(Exit.USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")
