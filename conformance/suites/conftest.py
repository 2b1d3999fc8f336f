"""Conformance suites: Hypothesis profiles from one place; the rule catalogue and the corpus for the plugin.

The ``backend``, ``oracle`` and ``counterexamples`` fixtures, the ``requires`` and ``rules``
markers and the reports come from the ``vnext_conformance`` pytest plugin (``harness.plugin``). A case
is credited with the rules it declares and with those of every refusal the oracle raised in it (the
rules of the raise site, ``conformance.reach.attribution``) once it has asked the backend too.
"""

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from conformance.corpus import corpus_paths, user_corpus_paths
from conformance.reach.attribution import error_rules
from conformance.rules import catalogue
from harness.rules import RuleCatalogue
from reference.api import VNextError
from strategies.profiles import register_profiles

register_profiles()


def pytest_vnext_rule_catalogue(config: pytest.Config) -> RuleCatalogue:
    return catalogue()


def pytest_vnext_corpus_paths(config: pytest.Config) -> list[Path]:
    return corpus_paths() + user_corpus_paths(config)


def pytest_vnext_error_rules(config: pytest.Config) -> Callable[[VNextError], Sequence[str]]:
    return error_rules
