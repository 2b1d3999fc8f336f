"""Which rules a contract error of the reference implements: the rules of the raise site it came from.

The site is found in the error's traceback (``sites.SiteIndex.in_traceback``), and so are the sites of the
contract errors it was raised while handling (a decoder turning a nested rule's error into
``Serialization``): each was raised at its own site and its rules were checked. Each error is also credited
with the rules of the passages its traceback went through whose ``when`` rule its site implements (a
shared decoder's refusal checked the calling struct's own rule). The census behind the index
is kept in a cache file named by a digest of every scanned source (and of the scanner itself), so each
process reads it instead of scanning ``reference/`` again; a missing, unreadable or malformed cache file is
rebuilt, and an unwritable cache directory only costs the scan.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Final

from conformance.reach import sites
from conformance.reach.sites import (
    Passage,
    RaiseSite,
    SiteIndex,
    census,
    frames_of,
    passage_census,
    reference_root,
)
from reference.bounded_read import read_bounded
from reference.canonical import loads_strict
from reference.errors import Serialization, VNextError

__all__ = ["cached_census", "cached_passages", "census_digest", "error_rules", "raise_sites"]

_MAX_CACHE_BYTES: Final = 16 * 1024 * 1024
_CONTEXT: Final = "decode raise-site census cache"


def census_digest(root: Path) -> str:
    """sha256 over the scanner's source and every scanned file's path and bytes."""
    digest = hashlib.sha256(Path(sites.__file__).read_bytes())
    for path in sorted(root.rglob("*.py")):
        digest.update(b"\0" + path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vnext-conformance"


def _site(raw: dict[str, object]) -> RaiseSite:
    lines = raw["lines"]
    rules = raw["rules"]
    if not (isinstance(lines, list) and len(lines) == 2 and isinstance(rules, list)):
        raise ValueError("malformed site")
    fields = {name: raw[name] for name in ("path", "line", "qualname", "error_class", "key", "source")}
    return RaiseSite(lines=(int(lines[0]), int(lines[1])), rules=tuple(str(r) for r in rules), **fields)  # type: ignore[arg-type]


def _passage(raw: dict[str, object]) -> Passage:
    lines = raw["lines"]
    rules = raw["rules"]
    if not (isinstance(lines, list) and len(lines) == 2 and isinstance(rules, list)):
        raise ValueError("malformed passage")
    fields = {name: raw[name] for name in ("path", "qualname", "when")}
    return Passage(lines=(int(lines[0]), int(lines[1])), rules=tuple(str(r) for r in rules), **fields)  # type: ignore[arg-type]


_Census = tuple[tuple[RaiseSite, ...], tuple[Passage, ...]]


def _read(path: Path) -> _Census | None:
    try:
        raw = loads_strict(read_bounded(path, max_bytes=_MAX_CACHE_BYTES, context=_CONTEXT), context=_CONTEXT)
        if not (isinstance(raw, dict) and isinstance(raw.get("sites"), list) and isinstance(raw.get("passages"), list)):
            return None
        return tuple(_site(item) for item in raw["sites"]), tuple(_passage(item) for item in raw["passages"])
    except (OSError, Serialization, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, found: _Census) -> None:
    sites_found, passages = found
    document = {
        "sites": [dataclasses.asdict(site) for site in sites_found],
        "passages": [dataclasses.asdict(passage) for passage in passages],
    }
    text = json.dumps(document, sort_keys=True)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".partial")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)


def _cached(root: Path | None, directory: Path | None) -> _Census:
    base = reference_root() if root is None else root
    path = (directory or _cache_directory()) / f"census-{census_digest(base)}.json"
    found = _read(path)
    if found is None:
        found = census(base), passage_census(base)
        _write(path, found)
    return found


def cached_census(root: Path | None = None, directory: Path | None = None) -> tuple[RaiseSite, ...]:
    """``sites.census(root)``, read from the cache file of the sources' digest when it holds it."""
    return _cached(root, directory)[0]


def cached_passages(root: Path | None = None, directory: Path | None = None) -> tuple[Passage, ...]:
    """``sites.passage_census(root)``, from the same cache file."""
    return _cached(root, directory)[1]


@cache
def _index() -> SiteIndex:
    return SiteIndex(*_cached(None, None))


def _chain(error: VNextError) -> list[VNextError]:
    """``error`` and the contract errors it was raised while handling."""
    chain: list[VNextError] = []
    current: BaseException | None = error
    while isinstance(current, VNextError) and current not in chain:
        chain.append(current)
        current = current.__context__
    return chain


def raise_sites(error: VNextError) -> tuple[RaiseSite, ...]:
    """The raise sites of ``error`` and of the contract errors it was raised while handling, outermost first."""
    index = _index()
    found = (index.in_traceback(frames_of(each)) for each in _chain(error))
    return tuple(site for site in found if site is not None)


def error_rules(error: VNextError) -> tuple[str, ...]:
    """The rules of ``raise_sites(error)`` and of the passages each error went through to its site, each once."""
    index = _index()
    out: dict[str, None] = {}
    for each in _chain(error):
        frames = list(frames_of(each))
        site = index.in_traceback(frames)
        if site is None:
            continue
        out.update(dict.fromkeys(site.rules))
        for passage in index.passed(frames):
            if passage.when in site.rules:
                out.update(dict.fromkeys(passage.rules))
    return tuple(out)
