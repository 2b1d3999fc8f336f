"""Every bad-input class against every command that reads a file: a typed answer, never a crash.

``build``, ``revalidate`` (a spoiled plan, a spoiled scenario), ``hash`` and ``replay`` run as
the console script runs them (``harness.cli.main``); expectation manifests go through
``load_manifest``, what ``--expectations`` reads with. A refused input is the ``serialization``
error with the command's decode context; a readable but wrong one is any typed outcome; a file
that cannot be opened is a one-line usage error. Output stays small: messages clip what they
echo.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.bundles import MAX_BUNDLE_BYTES
from harness.cli import main
from harness.expectations import MAX_MANIFEST_BYTES, Manifest, ManifestError, load_manifest
from reference import api
from reference.errors import ERROR_KINDS, MAX_MESSAGE_CHARS

from . import documents
from .bad_inputs import CLASSES, BadInput, Base, Expect, Variant
from .documents import materialize

#: An error answer (one error object, one usage line) stays below this, whatever the input echoes.
SMALL = 64 * 1024


@dataclass(frozen=True)
class Entry:
    """A command reading one spoiled file among otherwise valid ones."""

    name: str
    document: Callable[[], Any]
    cap: int
    context: str
    argv: Callable[[str, Path], list[str]]
    #: ``replay`` reports a bundle it cannot decode as a usage error (exit 2) naming the context.
    refusal_is_usage: bool = False
    #: Variants tried per class (spread over the depths) where another entry tries the same decoder at
    #: every depth, or each variant costs a whole replay.
    max_variants: int | None = None


def _valid_file(directory: Path, name: str, data: bytes) -> str:
    path = directory / name
    path.write_bytes(data)
    return str(path)


def _scenario_file(directory: Path) -> str:
    return _valid_file(directory, "scenario.json", json.dumps(documents.scenario()).encode())


ENTRIES = (
    Entry(
        "build", documents.scenario, api.MAX_SCENARIO_BYTES, "decode scenario", lambda f, d: ["build", "--scenario", f]
    ),
    Entry(
        "revalidate-plan",
        documents.plan,
        api.LIMITS["max_execution_plan_wire_bytes"],
        "decode untrusted execution plan",
        lambda f, d: ["revalidate", "--scenario", _scenario_file(d), "--plan", f],
    ),
    Entry(
        "revalidate-scenario",
        documents.scenario,
        api.MAX_SCENARIO_BYTES,
        "decode scenario",
        lambda f, d: ["revalidate", "--scenario", f, "--plan", _valid_file(d, "plan.json", documents.plan_wire())],
        max_variants=2,  # the scenario decoder is tried at every depth through ``build``
    ),
    Entry(
        "hash",
        documents.plan,
        api.LIMITS["max_execution_plan_wire_bytes"],
        "hash execution plan wire",
        lambda f, d: ["hash", "--plan", f],
        max_variants=3,  # the plan decoder is tried at every depth through ``revalidate``
    ),
    Entry(
        "replay",
        documents.bundle,
        MAX_BUNDLE_BYTES,
        "decode scenario bundle",
        lambda f, d: ["replay", f, "--backend", "reference"],
        refusal_is_usage=True,
        max_variants=3,
    ),
)


def _cases() -> list[Any]:
    return [pytest.param(entry, bad, id=f"{entry.name}-{bad.name}") for entry in ENTRIES for bad in CLASSES]


def _error_object(out: bytes) -> dict[str, Any]:
    lines = out.splitlines()
    assert len(lines) == 1, f"one error object expected, got {len(lines)} lines"
    error = json.loads(lines[0])
    assert error["kind"] in ERROR_KINDS
    assert len(error["message"]) <= MAX_MESSAGE_CHARS + 64
    return error


def _small(out: bytes, error: dict[str, Any], variant: Variant) -> None:
    """An error answer is small; only ``invalid_identity`` carries its (whole) value, once."""
    limit = SMALL + (len(variant.data) if error.get("kind") == "invalid_identity" else 0)
    assert len(out) <= limit, f"{len(out)} bytes of error output"


def _check(entry: Entry, bad: BadInput, variant: Variant, code: int, out: bytes, err: bytes) -> None:
    assert b"Traceback" not in out + err
    if bad.expect is Expect.UNREADABLE:
        assert code == 2 and out == b"", (code, out[:300])
        assert len(err.splitlines()) == 1 and err.startswith(b"vnext-conformance"), err[:300]
        return
    if entry.refusal_is_usage and code == 2:
        assert out == b"" and len(err.splitlines()) == 1 and len(err) <= SMALL, err[:300]
        assert entry.context.encode() in err, err[:300]
        return
    assert bad.expect is Expect.TYPED or not entry.refusal_is_usage, f"a refused bundle must be a usage error: {code}"
    assert err == b"", err[:300]
    if bad.expect is Expect.REFUSED:
        assert code == 1, (code, out[:300])
        error = _error_object(out)
        assert (error["kind"], error["context"]) == ("serialization", entry.context), error
        _small(out, error, variant)
        return
    assert code in (0, 1), (code, out[:300])
    if entry.name == "replay":
        for line in out.decode().splitlines():
            assert line.startswith(("PASS ", "FAIL ", "N/A  ")), line[:300]
        return
    if entry.name == "build" and code == 0:
        assert out.startswith(b'{"payload":')
        return
    parsed = json.loads(out)
    if "kind" in parsed:
        assert code == 1
        _small(out, _error_object(out), variant)
    elif entry.name == "hash":
        assert set(parsed) >= {"plan_hash", "plan_hash_matches", "plan_id_matches"}
    else:
        assert code == 0 and set(parsed) == {"plan_hash"}


def _spread(variants: list[Variant], most: int | None) -> list[Variant]:
    """At most ``most`` of ``variants``: the shallowest, the deepest and evenly between."""
    if most is None or len(variants) <= most:
        return variants
    step = (len(variants) - 1) / (most - 1)
    return [variants[round(index * step)] for index in range(most)]


@pytest.mark.parametrize(("entry", "bad"), _cases())
def test_a_command_answers_every_bad_file_with_a_typed_outcome(
    entry: Entry, bad: BadInput, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    variants = _spread(list(bad.variants(Base(entry.document(), entry.cap))), entry.max_variants)
    assert variants, "the class spoils this document"
    for index, variant in enumerate(variants):
        directory = tmp_path / str(index)
        directory.mkdir()
        with materialize(variant, directory) as path:
            code = main(entry.argv(path, directory))
        captured = capsysbinary.readouterr()
        try:
            _check(entry, bad, variant, code, captured.out, captured.err)
        except AssertionError as exc:
            raise AssertionError(f"variant at {variant.where}: {exc}") from None


@pytest.mark.parametrize("bad", CLASSES, ids=[bad.name for bad in CLASSES])
def test_an_expectation_manifest_is_read_bounded_and_strictly(bad: BadInput, tmp_path: Path) -> None:
    variants = list(bad.variants(Base(documents.manifest(), MAX_MANIFEST_BYTES)))
    assert variants, "the class spoils this document"
    for index, variant in enumerate(variants):
        directory = tmp_path / str(index)
        directory.mkdir()
        with materialize(variant, directory) as path:
            try:
                loaded: Manifest | ManifestError = load_manifest(path)
            except ManifestError as exc:
                loaded = exc
        where = f"variant at {variant.where}"
        if bad.expect is Expect.TYPED:
            assert isinstance(loaded, Manifest | ManifestError), where
        else:
            assert isinstance(loaded, ManifestError), where
            if bad.expect is Expect.REFUSED:
                assert loaded.error is not None and loaded.error.context == "decode expectation manifest", where
            else:
                assert loaded.error is None and "cannot read expectation manifest" in str(loaded), where
        if isinstance(loaded, ManifestError):
            assert len(str(loaded)) <= MAX_MESSAGE_CHARS + 256, where
