"""Garbage-collector tuning for a conformance process.

A run builds a large, long-lived and immutable heap once (imported modules, strategies, the
oracle's catalogs and families) and then allocates plans by the hundred thousand objects. The
default thresholds rescan that heap over and over (the collector's cost grows with the plan
size). ``tune_collector`` raises the youngest generation's threshold; ``freeze_setup`` moves
everything alive into the permanent generation, so later collections never scan it.
Neither changes any outcome: only when cycles are reclaimed.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["THRESHOLDS", "freeze_setup", "tune_collector"]

#: Generation thresholds for a conformance process (CPython's defaults are 700, 10, 10).
THRESHOLDS: Final = (50_000, 20, 20)


def tune_collector() -> None:
    """Raise the collector's thresholds to ``THRESHOLDS`` (never lowers a higher setting)."""
    current = gc.get_threshold()
    gc.set_threshold(*(max(c, t) for c, t in zip(current, THRESHOLDS, strict=True)))


def freeze_setup() -> None:
    """Collect once, then move every surviving object into the permanent generation."""
    gc.collect()
    gc.freeze()
