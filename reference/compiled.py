"""The compiled checks of ``reference/_jsonscan.c``, when the package was built with a C compiler.

Each compiled function decides only the well-formed case of a check the Python code defines and hands
every other case back to it, so a build without them gives the same answers, more slowly.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["compiled_checks"]


def compiled_checks() -> ModuleType | None:
    """The ``reference._jsonscan`` module, or None when it was not built."""
    try:
        return importlib.import_module("reference._jsonscan")
    except ImportError:
        return None
