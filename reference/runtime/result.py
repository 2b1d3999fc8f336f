"""``ExecuteResult``: what the optional ``execute`` operation returns (harness/PROTOCOL.md §5.2).

Wire (``schemas/runtime/execute_result.json``)::

    {"outputs": {<program output id>: <base64 bytes>...},
     "ledger": LedgerReport,
     "replay_digests": [<sha256 hex> ...]}   # one per replay, in order
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from reference.canonical import JsonValue, is_canonical_sha256
from reference.errors import Serialization
from reference.fast_base64 import write_base64
from reference.runtime.ledger import LedgerReport
from reference.wire import WireObject, read_base64

__all__ = ["EXECUTE_RESULT_CONTEXT", "MAX_REPLAYS", "ExecuteResult"]

EXECUTE_RESULT_CONTEXT: Final = "decode execute result"
#: ``execute`` runs 1..=MAX_REPLAYS replays.
MAX_REPLAYS: Final = 64


@dataclass(frozen=True, slots=True)
class ExecuteResult:
    """Output bytes per program output, the runtime ledger and one output digest per replay."""

    outputs: Mapping[str, bytes]
    ledger: LedgerReport
    replay_digests: tuple[str, ...]

    def to_wire(self) -> dict[str, JsonValue]:
        return {
            "outputs": {k: write_base64(self.outputs[k]) for k in sorted(self.outputs)},
            "ledger": self.ledger.to_wire(),
            "replay_digests": list(self.replay_digests),
        }

    @classmethod
    def from_wire(cls, raw: Any, *, context: str = EXECUTE_RESULT_CONTEXT, path: str = "$") -> ExecuteResult:
        obj = WireObject(
            raw, ("outputs", "ledger", "replay_digests"), type_name="ExecuteResult", context=context, path=path
        )
        outputs_raw = obj.raw("outputs")
        if not isinstance(outputs_raw, dict):
            raise Serialization(  # rule: 03.13.2/execute_result_decode
                context, f"{path}.outputs: expected a JSON object"
            )
        outputs = {
            str(k): read_base64(v, context=context, path=f"{path}.outputs.{k}") for k, v in sorted(outputs_raw.items())
        }
        digests = obj.array("replay_digests")
        if not 1 <= len(digests) <= MAX_REPLAYS or not all(is_canonical_sha256(d) for d in digests):
            raise Serialization(  # rule: 03.13.2/execute_result_decode
                context, f"{path}.replay_digests: expected 1..={MAX_REPLAYS} sha256 hex strings"
            )
        ledger = LedgerReport.from_wire(obj.raw("ledger"), context=context, path=obj.at("ledger"))
        return cls(outputs, ledger, tuple(digests))
