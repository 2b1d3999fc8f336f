"""Expectation manifests: per-backend known failures, keyed by stable case id.

File shape (schemas/protocol/expectations.json)::

    {"manifest_version": 1, "backend": "<implementation name>",
     "cases": {"<case id>": {"status": "xfail"|"skip", "reason": str,
                             "issue": str|null, "expires": "YYYY-MM-DD"}}}

Semantics: ``xfail`` runs the case and expects it to fail (a pass is a strict
XPASS, which fails the run); ``skip`` does not run it. An entry is valid through
its ``expires`` date; afterwards the case fails until the entry is renewed or
removed. An id that names no collected case fails the run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from reference.bounded_read import read_bounded
from reference.canonical import loads_strict
from reference.errors import Serialization, preview
from reference.wire import WireObject

__all__ = ["MANIFEST_VERSION", "Expectation", "Manifest", "ManifestError", "load_manifest"]

MANIFEST_VERSION: Final = 1
#: A manifest lists known failures by case id; far below this in practice.
MAX_MANIFEST_BYTES: Final = 16 * 1024 * 1024
_CONTEXT: Final = "decode expectation manifest"


class ManifestError(ValueError):
    """The manifest file is unreadable or malformed; ``error`` is the decode error when it is one."""

    def __init__(self, message: str, error: Serialization | None = None) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True, slots=True)
class Expectation:
    case_id: str
    status: Literal["xfail", "skip"]
    reason: str
    issue: str | None
    expires: dt.date

    def expired(self, today: dt.date) -> bool:
        """True once ``today`` is after the ``expires`` date."""
        return today > self.expires

    def describe(self) -> str:
        issue = f" ({self.issue})" if self.issue else ""
        return f"{self.reason}{issue}; expires {self.expires.isoformat()}"


@dataclass(frozen=True, slots=True)
class Manifest:
    backend: str
    cases: Mapping[str, Expectation]

    def unknown(self, known_case_ids: set[str]) -> list[str]:
        """Manifest ids that name no known case, sorted."""
        return sorted(set(self.cases) - known_case_ids)


def _entry(case_id: str, raw: Any) -> Expectation:
    path = f"$.cases[{preview(case_id, 80)}]"
    obj = WireObject(
        raw, ("status", "reason", "issue", "expires"), type_name="Expectation", context=_CONTEXT, path=path
    )
    status = obj.enum("status", ("xfail", "skip"))
    reason = obj.string("reason")
    if not reason.strip():
        raise Serialization(_CONTEXT, f"{path}.reason must not be empty")
    issue = obj.optional("issue", lambda raw, _context, path: _string(raw, path))
    expires_text = obj.string("expires")
    not_a_date = f"{path}.expires must be a YYYY-MM-DD date, got {preview(expires_text, 40)}"
    try:
        expires = dt.date.fromisoformat(expires_text)
    except ValueError:
        raise Serialization(_CONTEXT, not_a_date) from None
    if len(expires_text) != 10:
        raise Serialization(_CONTEXT, not_a_date)
    return Expectation(case_id, status, reason, issue, expires)  # type: ignore[arg-type]


def _string(raw: Any, path: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise Serialization(_CONTEXT, f"{path} must be a non-empty string or null")
    return raw


def parse_manifest(raw: Any) -> Manifest:
    """Decode a manifest object; ``ManifestError`` when malformed."""
    try:
        obj = WireObject(
            raw, ("manifest_version", "backend", "cases"), type_name="ExpectationManifest", context=_CONTEXT
        )
        if obj.u32("manifest_version") != MANIFEST_VERSION:
            raise Serialization(_CONTEXT, f"manifest_version must be {MANIFEST_VERSION}")
        backend = obj.string("backend")
        cases_raw = obj.raw("cases")
        if not isinstance(cases_raw, dict):
            raise Serialization(_CONTEXT, "$.cases must be an object keyed by case id")
        cases = {case_id: _entry(case_id, entry) for case_id, entry in sorted(cases_raw.items())}
    except Serialization as exc:
        raise ManifestError(exc.message_text, exc) from None
    return Manifest(backend, cases)


def load_manifest(path: Path | str) -> Manifest:
    """Read (size bounded while reading) and decode the manifest at ``path``."""
    try:
        data = read_bounded(path, max_bytes=MAX_MANIFEST_BYTES, context=_CONTEXT)
        raw = loads_strict(data, context=_CONTEXT, max_bytes=MAX_MANIFEST_BYTES)
    except OSError as exc:
        raise ManifestError(f"cannot read expectation manifest {str(path)!r}: {exc.strerror or exc}") from None
    except Serialization as exc:
        raise ManifestError(exc.message_text, exc) from None
    return parse_manifest(raw)
