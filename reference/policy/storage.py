"""The one coupling point between policies and dynamic storage profiles (spec 03 §6).

The profile type is owned by ``reference.catalog.storage``; policies need its
wire form (hash material), exact equality (row 8 duplicates, solver ranks) and
its decoder.
"""

from __future__ import annotations

from typing import Any

from reference.canonical import canonical_bytes
from reference.catalog.storage import DynamicStorageProfile

__all__ = ["DynamicStorageProfile", "StorageProfile", "decode_storage_profile", "profile_key"]

StorageProfile = DynamicStorageProfile


def profile_key(profile: DynamicStorageProfile) -> bytes:
    """Exact allocator+view identity as canonical wire bytes."""
    return canonical_bytes(profile.to_wire(), context="dynamic storage profile")


def decode_storage_profile(raw: Any, *, context: str, path: str) -> DynamicStorageProfile:
    """Decode one profile (``deny_unknown_fields``, §6.2 rules); failures are ``Serialization``."""
    return DynamicStorageProfile.from_wire(raw, context=context, path=path)
