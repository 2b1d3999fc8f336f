"""The checked-in corpus: scenario bundles under ``conformance/corpus/``.

Every ``run`` replays each bundle against the backend (suite ``corpus``), and
the plan suites draw their scenarios from the bundles whose operation is
``build_plan``. Promote a counterexample by copying its bundle file here.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from harness.bundles import Bundle, load_bundle
from harness.identity import RUN_PLUGIN_NAME
from reference.api import fingerprint

__all__ = ["corpus_dir", "corpus_paths", "plan_scenarios", "user_corpus_paths"]


def corpus_dir() -> Path:
    return Path(str(resources.files("conformance") / "corpus"))


def corpus_paths() -> list[Path]:
    """Every bundle file, sorted by name."""
    directory = corpus_dir()
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.iterdir() if path.suffix == ".json")


def user_corpus_paths(config: pytest.Config) -> list[Path]:
    """The bundles of the run's ``--corpus`` directories, sorted by directory then name."""
    run = config.pluginmanager.get_plugin(RUN_PLUGIN_NAME)
    directories = getattr(getattr(run, "settings", None), "corpus_dirs", ())
    return [path for directory in directories for path in sorted(Path(directory).glob("*.json"))]


def plan_scenarios() -> list[tuple[str, dict[str, Any]]]:
    """``(id, scenario)`` of every distinct ``build_plan`` scenario in the corpus, sorted by id.

    The id is the first 16 hex digits of the scenario's canonical fingerprint.
    """
    found: dict[str, dict[str, Any]] = {}
    for path in corpus_paths():
        try:
            bundle: Bundle = load_bundle(path)
        except Exception:  # a broken file fails the corpus integrity case, not collection
            continue
        if bundle.operation != "build_plan" or (bundle.expect is not None and "error" in bundle.expect):
            continue
        scenario = bundle.params["scenario"]
        found.setdefault(fingerprint(scenario)[:16], scenario)
    return sorted(found.items())
