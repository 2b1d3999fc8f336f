"""Comparing contract errors field by field: the kind and every field the contract pins.

Free-text fields (``message``, and the ``reason`` of kinds whose reason is the implementation's
words) are not compared; every other field of the error object is. ``pinned`` is what every case
compares a backend's error object with the reference's through, so it is where the rules stating which
fields each kind carries (01 §6) and that errors are matched on kind and fields, never text (01 §5.10),
are credited: once the case has asked the backend under test, like the rules of the oracle's refusals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from harness.cases import observe
from reference.api import VNextError

__all__ = ["FIELD_RULES", "FREE_TEXT", "MATCHED_ON_FIELDS", "error_of", "pinned"]

#: Error fields whose text is the implementation's own, per kind (``message`` always is).
FREE_TEXT: Final[dict[str, frozenset[str]]] = {
    "invalid_model_config": frozenset({"reason"}),
    "invalid_execution_plan": frozenset({"reason"}),
    "invalid_resolved_model_plan": frozenset({"reason"}),
    "unsupported_operation": frozenset({"reason"}),
}


#: The rule stating the fields an error object of each kind carries (01 §6), for the kinds an operation answers with.
FIELD_RULES: Final[dict[str, str]] = {
    "invalid_identity": "01.6/invalid_identity_fields",
    "unknown_model_family": "01.6/unknown_model_family_fields",
    "unknown_external_model_metadata": "01.6/unknown_external_metadata_fields",
    "ambiguous_model_family_registration": "01.6/ambiguous_registration_fields",
    "invalid_model_config": "01.6/invalid_model_config_fields",
    "unknown_weight_layout": "01.6/unknown_weight_layout_fields",
    "incompatible_operation_version": "01.6/incompatible_operation_version_fields",
    "unsupported_operation": "01.6/unsupported_operation_fields",
    "invalid_execution_plan": "01.6/invalid_execution_plan_fields",
    "unsupported_plan_schema": "01.6/unsupported_plan_schema_fields",
    "plan_hash_mismatch": "01.6/plan_hash_mismatch_fields",
    "invalid_resolved_model_plan": "01.6/invalid_resolved_model_plan_fields",
    "serialization": "01.6/serialization_fields",
}
#: 01 §5.10: errors are matched on their kind and structured fields, never on their text.
MATCHED_ON_FIELDS: Final = "01.5/error_matched_on_variant_and_fields"


def pinned(error: VNextError) -> dict[str, Any]:
    """The error object without its free-text fields (what a case compares; see the module docstring)."""
    raw = error.to_dict()
    rule = FIELD_RULES.get(error.kind)
    observe((MATCHED_ON_FIELDS, rule) if rule is not None else (MATCHED_ON_FIELDS,))
    free = FREE_TEXT.get(error.kind, frozenset()) | {"message"}
    return {key: value for key, value in raw.items() if key not in free}


def error_of(call: Callable[[], Any]) -> dict[str, Any] | None:
    """The pinned fields of the contract error ``call`` raises, or ``None`` when it succeeds."""
    try:
        call()
    except VNextError as exc:
        return pinned(exc)
    return None
