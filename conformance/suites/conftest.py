"""Conformance suites: Hypothesis profiles from one place, and the rule catalogue for the plugin.

The ``backend``, ``oracle`` and ``counterexamples`` fixtures, the ``requires`` and ``rules``
markers and the reports come from the ``vnext_conformance`` pytest plugin (``harness.plugin``).
"""

import pytest

from conformance.rules import catalogue
from harness.rules import RuleCatalogue
from strategies.profiles import register_profiles

register_profiles()


def pytest_vnext_rule_catalogue(config: pytest.Config) -> RuleCatalogue:
    return catalogue()
