"""Hypothesis settings profiles, registered once: ``ci``, ``dev``, ``fuzz``.

* ``ci``: derandomized, bounded example counts, no deadline, no database;
  the same examples on every run so CI is reproducible.
* ``dev``: the default locally; randomized, modest counts.
* ``fuzz``: long runs with the example database on, for hunting; ``vnext-conformance fuzz`` runs
  each generated case in rounds of at most ``max_examples`` examples (``harness.fuzz.rounds``).

No profile prints Hypothesis's ``@reproduce_failure`` blob: a failing conformance case prints
the ``vnext-conformance replay``/``run --case`` line that reproduces it. A conformance run
keeps its example database under its cache directory (``--cache-dir``), with the ``--database``
ones; ``dev`` and ``fuzz`` use Hypothesis's default database elsewhere.

Select with ``pytest --hypothesis-profile=NAME`` or ``VNEXT_HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

__all__ = ["PROFILES", "register_profiles"]

PROFILES = ("ci", "dev", "fuzz")
_registered = False


def register_profiles() -> None:
    """Register the three profiles and load the one the environment asks for."""
    global _registered
    if not _registered:
        settings.register_profile(
            "ci",
            max_examples=60,
            derandomize=True,
            deadline=None,
            database=None,
            print_blob=False,
            # Building a scenario is legitimately slow for large generated inputs.
            suppress_health_check=[HealthCheck.too_slow],
        )
        settings.register_profile("dev", max_examples=100, deadline=None, print_blob=False)
        settings.register_profile(
            "fuzz",
            max_examples=5_000,
            deadline=None,
            phases=list(Phase),
            print_blob=False,
            # A slow backend (exec, a large scenario) is what a long search is for.
            suppress_health_check=[HealthCheck.too_slow],
        )
        _registered = True
    default = "ci" if os.environ.get("CI") else "dev"
    settings.load_profile(os.environ.get("VNEXT_HYPOTHESIS_PROFILE", default))
