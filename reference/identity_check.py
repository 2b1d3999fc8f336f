"""Running one identity constructor on a string (spec 01 §1.1-§1.3).

Inside documents and wires an invalid identity surfaces as ``Serialization``; the constructor's
own ``InvalidIdentity`` (its ``identity_kind``, ``value`` and ``reason``) is observable only by
building the identity directly, which ``check_identity`` does. The kinds are the contract's
``InvalidIdentity.kind`` strings of every identity type whose constructor reports
``InvalidIdentity``: the plain portable identities and the two single-range ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from reference.ids import AttributeId, Identity, OperationOracleId, identity_types

__all__ = ["IDENTITY_KINDS", "check_identity"]

#: ``InvalidIdentity.kind`` -> the identity type, sorted by kind.
_TYPES: Final[tuple[type[Identity], ...]] = (*identity_types().values(), AttributeId, OperationOracleId)
IDENTITY_KINDS: Final[Mapping[str, type[Identity]]] = {cls.KIND: cls for cls in sorted(_TYPES, key=lambda c: c.KIND)}


def check_identity(identity_kind: str, value: str) -> None:
    """Build the identity of ``identity_kind`` from ``value``; ``InvalidIdentity`` when it is not one.

    ``KeyError`` for a kind that is not in ``IDENTITY_KINDS``.
    """
    IDENTITY_KINDS[identity_kind](value)
