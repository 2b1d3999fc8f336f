"""Program plan compile options described as data (``ProgramPlanCompileOptions``, 05 §7.13).

Wire form (every key required; unknown keys refused)::

    {"tensor_specs": {<program value id>: <ProgramTensorSpec>},
     "required_capabilities": {<node id>: [<capability id>...]},
     "preferred_providers": {<node id>: <provider id>}}

Shape errors are ``Serialization("decode compile options", ...)``. Whether the options fit the
program (every program input has a tensor, no unknown node or value) is the compiler's check,
reported as the compiler reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

from reference.errors import Serialization
from reference.ids import CapabilityId, Identity, NodeId, ProgramValueId, ProviderId
from reference.model.tensor import ProgramTensorSpec
from reference.plan.compiler import ProgramPlanCompileOptions
from reference.wire import WireObject, read_identity, read_list

__all__ = ["COMPILE_OPTIONS_CONTEXT", "compile_options_from_document", "compile_options_to_document"]

COMPILE_OPTIONS_CONTEXT: Final = "decode compile options"
_FIELDS: Final = ("tensor_specs", "required_capabilities", "preferred_providers")
K = TypeVar("K", bound=Identity)
V = TypeVar("V")


def _map(obj: WireObject, name: str, key: type[K], value: Callable[[Any, str], V]) -> dict[K, V]:
    raw = obj.raw(name)
    if not isinstance(raw, dict):
        raise Serialization(obj.context, f"{obj.at(name)}: expected a JSON object")  # rule: 01.5/struct_wrong_json_type
    out: dict[K, V] = {}
    for text, item in raw.items():
        at = f"{obj.at(name)}.{text}"
        out[read_identity(text, key, context=obj.context, path=at)] = value(item, at)
    return out


def compile_options_from_document(raw: Any, *, path: str = "$") -> ProgramPlanCompileOptions:
    """The options a compile options document describes; shape errors are ``Serialization``."""
    context = COMPILE_OPTIONS_CONTEXT
    obj = WireObject(raw, _FIELDS, type_name="ProgramPlanCompileOptions", context=context, path=path)
    tensors = _map(obj, "tensor_specs", ProgramValueId, lambda item, at: ProgramTensorSpec.from_wire(item, context, at))
    capabilities = _map(
        obj,
        "required_capabilities",
        NodeId,
        lambda item, at: frozenset(
            read_identity(cap, CapabilityId, context=context, path=f"{at}[{i}]")
            for i, cap in enumerate(read_list(item, context=context, path=at))
        ),
    )
    providers = _map(
        obj, "preferred_providers", NodeId, lambda item, at: read_identity(item, ProviderId, context=context, path=at)
    )
    return ProgramPlanCompileOptions(tensors, capabilities, providers)


def compile_options_to_document(options: ProgramPlanCompileOptions) -> dict[str, Any]:
    """The document of ``options`` (keys sorted)."""
    return {
        "tensor_specs": {k.value: v.to_wire() for k, v in sorted(options.tensor_specs.items())},
        "required_capabilities": {
            k.value: [c.value for c in sorted(v)] for k, v in sorted(options.required_capabilities.items())
        },
        "preferred_providers": {k.value: v.value for k, v in sorted(options.preferred_providers.items())},
    }
