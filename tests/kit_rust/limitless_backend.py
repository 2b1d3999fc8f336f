"""A reference backend whose ``describe`` lists no limits (for the describe suite's limits rule)."""

from __future__ import annotations

import dataclasses

from harness.backends.reference import ReferenceImplementation
from harness.protocol.description import BackendDescription


class LimitlessBackend(ReferenceImplementation):
    """The reference, describing itself with an empty ``limits`` map."""

    def describe(self) -> BackendDescription:
        return dataclasses.replace(super().describe(), limits={})


def backend() -> LimitlessBackend:
    return LimitlessBackend()
