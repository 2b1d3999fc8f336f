"""A reference backend whose ``describe`` lists no limits (for the describe suite's limits rule)."""

from __future__ import annotations

import dataclasses

from harness.backends import ReferenceBackend
from harness.description import BackendDescription


class LimitlessBackend(ReferenceBackend):
    """The reference, describing itself with an empty ``limits`` map."""

    def describe(self) -> BackendDescription:
        return dataclasses.replace(super().describe(), limits={})


def backend() -> LimitlessBackend:
    return LimitlessBackend()
