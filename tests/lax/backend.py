"""A lax backend: the reference whose operations answer with one family of contract checks disabled.

A ``LaxReference`` serves every operation the reference implements, each call running under a set of
patches. A patch replaces a function or method of ``reference/`` (``"module:qualname"``) by a lax
version; a module-level function is replaced in every loaded ``reference`` module that imported it by
name, so callers see the lax version whatever their import style. The patches are undone after each
call. Serve lax backends out of process (``serve --backend python:tests.lax.catalogue:<name>``) so the
suites' oracle never runs while a patch is active.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from unittest import mock

from harness.backends.reference import ReferenceImplementation
from harness.protocol.description import BackendDescription

__all__ = ["LaxReference", "Patch", "resolve"]

#: A lax version built from the original: ``original -> replacement``.
Replacer = Callable[[Any], Any]


@dataclass(frozen=True)
class Patch:
    """Replace ``target`` (``"reference.module:Qualified.name"``) by ``replacer(original)``; with
    ``everywhere``, also in every ``reference`` module that bound the same object by name."""

    target: str
    replacer: Replacer
    everywhere: bool = True


def resolve(target: str) -> tuple[Any, str, Any]:
    """``(owner, attribute, original)`` of ``"module:qualname"``; the raw class attribute for methods."""
    module_name, _, qualname = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, attribute = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = owner.__dict__[attribute] if isinstance(owner, type) else getattr(owner, attribute)
    return owner, attribute, original


def _holders(owner: Any, attribute: str, original: Any, everywhere: bool) -> Iterator[tuple[Any, str]]:
    yield owner, attribute
    if isinstance(owner, type) or not everywhere:
        return
    for name, module in sorted(sys.modules.items()):
        if module is owner or not (name == "reference" or name.startswith("reference.")):
            continue
        for key, value in sorted(vars(module).items()):
            if value is original:
                yield module, key


class LaxReference:
    """The reference, every call answered under ``patches``; ``describe`` names the lax backend."""

    def __init__(self, name: str, patches: Sequence[Patch]) -> None:
        self._name = name
        self._patches = tuple(patches)
        self._inner = ReferenceImplementation()
        for patch in self._patches:  # fail at start-up, not on the first call, when a target moved
            resolve(patch.target)

    @contextmanager
    def _patched(self) -> Iterator[None]:
        with ExitStack() as stack:
            for patch in self._patches:
                owner, attribute, original = resolve(patch.target)
                replacement = patch.replacer(original)
                for holder, key in list(_holders(owner, attribute, original, patch.everywhere)):
                    stack.enter_context(mock.patch.object(holder, key, replacement))
            yield

    def describe(self) -> BackendDescription:
        base = self._inner.describe()
        implementation = dataclasses.replace(base.implementation, name=f"lax:{self._name}")
        return dataclasses.replace(base, implementation=implementation)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        operation = getattr(self._inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._patched():
                return operation(*args, **kwargs)

        return call

    def close(self) -> None:
        return None
