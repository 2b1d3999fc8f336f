"""The valid base documents the bad-input classes spoil, and how a spoiled file is put on disk."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reference import api

from .bad_inputs import MIB, Special, Variant

ROOT = Path(__file__).resolve().parents[2]
SEED_BUNDLE = ROOT / "conformance" / "corpus" / "seed_plan_fixture_0.json"


@functools.cache
def bundle() -> dict[str, Any]:
    """A checked-in ``build_plan`` bundle (its scenario is the base scenario)."""
    value: dict[str, Any] = json.loads(SEED_BUNDLE.read_bytes())
    return value


def scenario() -> dict[str, Any]:
    value: dict[str, Any] = bundle()["params"]["scenario"]
    return value


@functools.cache
def plan_wire() -> bytes:
    return api.build_plan(scenario())


def plan() -> dict[str, Any]:
    value: dict[str, Any] = json.loads(plan_wire())
    return value


def manifest() -> dict[str, Any]:
    entry = {"status": "xfail", "reason": "known", "issue": None, "expires": "2030-01-31"}
    return {"manifest_version": 1, "backend": "any", "cases": {"describe/test_describe_is_stable": entry}}


def request(request_id: int = 7) -> dict[str, Any]:
    return {"id": request_id, "op": "build_plan", "params": {"scenario": scenario()}}


def _feed_forever(path: Path, stop: threading.Event) -> None:
    """Write zeros into the FIFO ``path`` until its reader goes away (or ``stop``)."""
    with contextlib.suppress(OSError), open(path, "wb", buffering=0) as out:
        block = b"0" * MIB
        while not stop.is_set():
            out.write(block)


@contextlib.contextmanager
def materialize(variant: Variant, directory: Path, name: str = "input.json") -> Iterator[str]:
    """The path of a file holding ``variant`` (a special file where it names one)."""
    path = directory / name
    if variant.special is None:
        path.write_bytes(variant.data)
        yield str(path)
    elif variant.special is Special.SPARSE_1GIB:
        with path.open("wb") as out:
            out.truncate(1 << 30)
        yield str(path)
    elif variant.special is Special.DEV_ZERO:
        yield "/dev/zero"
    elif variant.special is Special.DIRECTORY:
        path.mkdir()
        yield str(path)
    elif variant.special is Special.MISSING:
        yield str(path)
    else:
        os.mkfifo(path)
        stop = threading.Event()
        feeder = threading.Thread(target=_feed_forever, args=(path, stop), daemon=True)
        feeder.start()
        try:
            yield str(path)
        finally:
            stop.set()
            # a reader that never came would leave the feeder blocked in open(): be that reader
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            feeder.join(timeout=60)
            assert not feeder.is_alive()
