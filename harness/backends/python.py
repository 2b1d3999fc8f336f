"""``python:MODULE:FACTORY``: an in-process backend built by a factory function.

``MODULE`` is a dotted module name or a path to a ``.py`` file; ``FACTORY`` is
called without arguments and must return an object with the ``Backend`` methods.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from harness.backend import Backend

__all__ = ["load_python_backend"]

_REQUIRED = ("describe", "prepare_family", "fingerprint_catalog", "build_plan", "revalidate", "select_weight_plan")


def _load_module(target: str) -> Any:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).resolve()
        if not path.is_file():
            raise ValueError(f"python backend file {str(path)!r} does not exist")
        name = f"_vnext_backend_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load python backend file {str(path)!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(target)


def load_python_backend(target: str) -> Backend:
    """Build the backend named by ``MODULE:FACTORY``."""
    module_name, sep, factory_name = target.rpartition(":")
    if not sep or not module_name or not factory_name:
        raise ValueError(f"python backend must be MODULE:FACTORY, got {target!r}")
    try:
        module = _load_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import python backend module {module_name!r}: {exc}") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise ValueError(f"{module_name!r} has no callable {factory_name!r}")
    backend = factory()
    missing = [name for name in _REQUIRED if not callable(getattr(backend, name, None))]
    if missing:
        raise ValueError(f"{target!r} built {type(backend).__name__}, which lacks {missing}")
    if not callable(getattr(backend, "close", None)):
        return _WithClose(backend)
    return backend  # type: ignore[no-any-return]


class _WithClose:
    """Adds a no-op ``close`` to a backend object that has none."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def close(self) -> None:
        return None
