"""Broken backend: a plan decoder that ignores unknown fields (no deny_unknown_fields, 05 §9.1 step 4-5).

When the reference refuses a wire as ``Serialization``, ``revalidate`` strips every object
member the rebuilt plan does not have at the same path and tries again; a wire that only
carried extra members is then accepted. Caught by ``forged_plans`` (``unknown_field``).
"""

from __future__ import annotations

import json
from typing import Any

from reference import api
from reference.canonical import direct_bytes
from reference.errors import Serialization
from tests.broken.base import ReferenceBackend, Scenario


def _strip(value: Any, template: Any) -> Any:
    if isinstance(value, dict) and isinstance(template, dict):
        return {k: _strip(v, template[k]) for k, v in value.items() if k in template}
    if isinstance(value, list) and isinstance(template, list) and len(value) == len(template):
        return [_strip(v, t) for v, t in zip(value, template, strict=True)]
    return value


class LenientDecoder(ReferenceBackend):
    def revalidate(self, scenario: Scenario, wire: bytes) -> str:
        try:
            return super().revalidate(scenario, wire)
        except Serialization:
            try:
                raw = json.loads(wire)
            except ValueError:
                raise
            template = json.loads(api.build_plan(scenario))
            return super().revalidate(scenario, direct_bytes(_strip(raw, template)))


def make() -> LenientDecoder:
    return LenientDecoder()
