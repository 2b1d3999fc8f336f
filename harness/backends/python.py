"""``python:MODULE:FACTORY``: an in-process implementation built by a factory function.

``MODULE`` is a dotted module name or a path to a ``.py`` file; ``FACTORY`` is called without
arguments and must return an object with ``describe()`` and one method per operation it lists
(named and shaped as in ``harness.protocol.operations``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from harness.protocol.operations import OPERATIONS

__all__ = ["BackendLoadError", "load_python_backend"]


class BackendLoadError(ValueError):
    """The ``python:`` target cannot be loaded or does not build a usable implementation."""


def _load_module(target: str) -> Any:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).resolve()
        if not path.is_file():
            raise BackendLoadError(f"python backend file {str(path)!r} does not exist")
        name = f"_vnext_backend_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise BackendLoadError(f"cannot load python backend file {str(path)!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


def load_python_backend(target: str) -> Any:
    """The implementation ``MODULE:FACTORY`` builds; ``BackendLoadError`` when it cannot be built."""
    module_name, sep, factory_name = target.rpartition(":")
    if not sep or not module_name or not factory_name:
        raise BackendLoadError(f"python backend must be MODULE:FACTORY, got {target!r}")
    try:
        module = _load_module(module_name)
    except BackendLoadError:
        raise
    except Exception as exc:
        raise BackendLoadError(
            f"cannot import python backend module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise BackendLoadError(f"{module_name!r} has no callable {factory_name!r}")
    try:
        implementation = factory()
        description = implementation.describe()
    except Exception as exc:
        raise BackendLoadError(f"{target!r} failed to build or describe itself: {type(exc).__name__}: {exc}") from None
    listed = getattr(description, "operations", ())
    missing = [name for name in listed if name in OPERATIONS and not callable(getattr(implementation, name, None))]
    if missing:
        raise BackendLoadError(f"{target!r} lists {missing} in describe but has no method for them")
    return implementation
