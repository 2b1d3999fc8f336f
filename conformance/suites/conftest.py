"""Conformance suites: Hypothesis profiles from one place.

The ``backend``, ``oracle`` and ``counterexamples`` fixtures, the ``requires``
marker and the reports come from the ``vnext_conformance`` pytest plugin
(``harness.pytest_plugin``), loaded by its entry point or ``-p harness.pytest_plugin``.
"""

from strategies.profiles import register_profiles

register_profiles()
