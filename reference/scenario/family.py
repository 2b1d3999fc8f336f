"""Revalidating an untrusted prepared-family wire against a scenario's family registry (02 §7.4-§7.5).

The wire is decoded first (``decode_untrusted``: size cap, parse, strict field decode,
re-serialisation equality, wire version), so decode-stage rejections never depend on the
scenario; then the scenario's family registry is built and the family revalidated through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference.model.prepared import PreparedModelFamily, UnvalidatedPreparedModelFamily
from reference.model.revalidate import revalidate
from reference.scenario.document import ScenarioDocument
from reference.scenario.sections import scenario_family_registry

__all__ = ["revalidate_scenario_family"]


def revalidate_scenario_family(scenario: Mapping[str, Any], wire: bytes) -> PreparedModelFamily:
    """``decode_untrusted(wire)``, then ``revalidate`` against the scenario's registry; the rebuilt family."""
    unvalidated = UnvalidatedPreparedModelFamily.decode_untrusted(wire)
    registry = scenario_family_registry(ScenarioDocument.from_wire(scenario))
    return revalidate(unvalidated, registry)
