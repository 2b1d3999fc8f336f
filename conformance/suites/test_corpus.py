"""The checked-in corpus (seed cases and promoted counterexamples) and your own (``--corpus DIR``), replayed on
every run.

Each bundle names one operation call and its expected outcome (or none: then the reference
oracle's outcome is expected). See harness/bundles.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.corpus import corpus_paths, user_corpus_paths
from conformance.seed_corpus import SEED_PREFIX
from harness.bundles import check_bundle, load_bundle
from harness.under_test import BackendUnderTest
from reference.api import sha256_hex

_PATHS = corpus_paths()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``test_bundle`` runs every checked-in bundle, then every bundle of the ``--corpus`` directories."""
    if "path" in metafunc.fixturenames:
        user = user_corpus_paths(metafunc.config)
        ids = [path.stem for path in _PATHS] + [f"user:{path.parent.name}/{path.stem}" for path in user]
        metafunc.parametrize("path", [*_PATHS, *user], ids=ids)


def test_corpus_integrity() -> None:
    """Every corpus file decodes as a bundle and is canonical; seed cases are named ``seed_<case>``
    after their case, every other (promoted) bundle by its sha256."""
    for path in _PATHS:
        data = path.read_bytes()
        bundle = load_bundle(path)
        assert bundle.canonical() == data, f"{path.name} is not in canonical form"
        if path.stem.startswith(SEED_PREFIX):
            assert bundle.case == path.stem, f"{path.name} is not named after its case {bundle.case!r}"
        else:
            assert path.stem == sha256_hex(data), f"{path.name} is not named by its sha256"


def test_bundle(backend: BackendUnderTest, oracle: BackendUnderTest, path: Path) -> None:
    bundle = load_bundle(path)
    backend.require(bundle.operation)
    check_bundle(backend, oracle, bundle)
