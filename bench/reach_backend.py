"""The reference, served for ``bench/reach.py``: every contract error an operation answers is attributed to
its raise site (``conformance.reach.sites``) and the site's key appended to ``$VNEXT_REACH_DIR/raised-<pid>``.

Raise statements are measured by coverage.py; this record is what counts for checked-arithmetic sites,
whose call line runs whether or not the error is raised. An error raised while another contract error was
being handled (a decoder turning a nested rule's error into ``Serialization``) records both sites.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from conformance.reach.attribution import raise_sites
from harness.backends.reference import ReferenceImplementation
from reference.api import VNextError

__all__ = ["RECORD_DIRECTORY", "make"]

#: The environment variable naming the directory records are written to.
RECORD_DIRECTORY: Final = "VNEXT_REACH_DIR"


class RecordingReference(ReferenceImplementation):
    """The reference; each answered contract error's site is recorded."""

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self._record = directory / f"raised-{os.getpid()}"

    def _recorded(self, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except VNextError as exc:
                keys = [site.key for site in raise_sites(exc)]
                if keys:
                    with self._record.open("a", encoding="utf-8") as out:
                        out.write("".join(key + "\n" for key in keys))
                raise

        return call

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return self._recorded(super().__getattr__(name))


def make() -> ReferenceImplementation:
    directory = os.environ.get(RECORD_DIRECTORY)
    if not directory:
        return ReferenceImplementation()
    return RecordingReference(Path(directory))
