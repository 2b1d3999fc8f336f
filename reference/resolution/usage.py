"""``BufferUsage`` (spec 03 §13): what a buffer holds; ``Ord`` is declaration order."""

from __future__ import annotations

from reference.catalog._common import OrderedEnum

__all__ = ["BufferUsage"]


class BufferUsage(OrderedEnum):
    """``weights`` < ``activations`` < ``state`` < ``persistent`` < ``binding`` < ``scratch`` < ``transfer``."""

    WEIGHTS = "weights"
    ACTIVATIONS = "activations"
    STATE = "state"
    PERSISTENT = "persistent"
    BINDING = "binding"
    SCRATCH = "scratch"
    TRANSFER = "transfer"
