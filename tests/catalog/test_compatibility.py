"""provider_compatibility and its report helpers (spec 03 §11.4; properties 35-36)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import schemas
from reference.catalog import (
    CapabilityCatalog,
    CompatibilityReason,
    ProviderCompatibilityReport,
    ProviderCompatibilityRequest,
    ProviderExecutionSemantics,
    ProviderRejection,
)
from reference.errors import Serialization
from reference.ids import CapabilityId, DeviceId, NodeId, OperationId, ProviderId, QuantizationFormatId, WeightFormatId
from reference.policy.enums import ExecutionDeterminismRequirement as Det
from reference.versions import ContractVersion
from seeds.catalogs import catalog, catalog_with_memory_and_execution_semantics, catalog_with_secondary_provider

from .helpers import raises_kind, replace_provider

OP = OperationId("operation.main")
DEV = DeviceId("device.reference.0")


def _request(**changes: Any) -> ProviderCompatibilityRequest:
    args: dict[str, Any] = {
        "operation_id": OP,
        "required_version": ContractVersion(1, 0),
        "required_capabilities": frozenset(),
        "required_weight_formats": frozenset({WeightFormatId("weight-format.dense")}),
        "required_quantization_formats": frozenset(),
        "execution_determinism": Det.BITWISE_SAME_RUNTIME_WITH_REPLAY,
    }
    args.update(changes)
    return ProviderCompatibilityRequest(**args)


def test_compatible_seed() -> None:
    report = catalog_with_secondary_provider().provider_compatibility(_request())
    assert [p.value for p in report.compatible_provider_ids] == [
        "provider.operation.reference",
        "provider.operation.secondary",
    ]
    assert report.rejected == ()
    schemas.validate("catalog/compatibility_report.json", report.to_wire())


def test_reason_order_and_report_shape() -> None:
    req = _request(
        required_version=ContractVersion(1, 3),
        required_capabilities=frozenset({CapabilityId("capability.x")}),
        required_weight_formats=frozenset({WeightFormatId("weight-format.q")}),
        required_quantization_formats=frozenset({QuantizationFormatId("quant.q4")}),
    )
    eager = catalog_with_memory_and_execution_semantics(1 << 20, ProviderExecutionSemantics.bitwise_eager_only())
    report = eager.provider_compatibility(req)
    kinds = [next(iter(r.to_wire())) for r in report.rejected[0].reasons]
    assert kinds == [
        "operation_version_mismatch",
        "provider_version_mismatch",
        "missing_capabilities",
        "unsupported_weight_formats",
        "unsupported_quantization_formats",
        "insufficient_execution_determinism",
    ]
    schemas.validate("catalog/compatibility_report.json", report.to_wire())
    assert report.compatible_provider_ids == ()


def test_determinism_with_replay_rejects_eager_only() -> None:
    eager = catalog_with_memory_and_execution_semantics(1 << 20, ProviderExecutionSemantics.bitwise_eager_only())
    assert eager.provider_compatibility(
        _request(execution_determinism=Det.BITWISE_SAME_RUNTIME)
    ).compatible_provider_ids
    report = eager.provider_compatibility(_request())
    assert [next(iter(r.to_wire())) for r in report.rejected[0].reasons] == ["insufficient_execution_determinism"]


def test_require_helpers() -> None:
    base = catalog()
    raises_kind(
        "unsupported_operation",
        lambda: base.provider_compatibility(_request(operation_id=OperationId("operation.none"))),
    )
    report = base.provider_compatibility(_request(required_version=ContractVersion(1, 2)))
    err = raises_kind(
        "incompatible_operation_version", lambda: report.require_compatible_for_node(DEV, NodeId("node.main"))
    )
    assert err.to_dict()["node_id"] == "node.main" and (
        err.to_dict()["available_major"],
        err.to_dict()["available_minor"],
    ) == (1, 0)
    err = raises_kind("unsupported_operation", lambda: report.require_compatible(DEV))
    assert err.to_dict()["node_id"] is None
    caps = base.provider_compatibility(_request(required_capabilities=frozenset({CapabilityId("capability.x")})))
    err = raises_kind("unsupported_operation", lambda: caps.require_compatible_for_node(DEV, NodeId("node.main")))
    assert err.to_dict()["node_id"] == "node.main"
    assert base.provider_compatibility(_request()).require_compatible(DEV)


def test_provider_version_mismatch_picks_greatest_available() -> None:
    base = catalog_with_secondary_provider()
    op = base.operations[OP]
    op2 = dataclasses.replace(op, version=ContractVersion(1, 5))
    rows = [
        replace_provider(base.providers[OP][0], operation_fingerprint=op2.fingerprint(), version=ContractVersion(1, 7)),
        replace_provider(base.providers[OP][1], operation_fingerprint=op2.fingerprint(), version=ContractVersion(1, 6)),
    ]
    cat = CapabilityCatalog(base.device, [op2], {OP: rows}, list(base.engine_providers.values()))
    report = cat.provider_compatibility(_request(required_version=ContractVersion(1, 8)))
    err = raises_kind(
        "incompatible_operation_version", lambda: report.require_compatible_for_node(DEV, NodeId("node.n"))
    )
    assert (err.to_dict()["available_major"], err.to_dict()["available_minor"]) == (
        1,
        5,
    )  # operation mismatch preferred
    # every provider also carries an operation mismatch here: the operation's version is reported
    mixed = CapabilityCatalog(
        base.device,
        [op2],
        {OP: [rows[0], replace_provider(rows[1], version=ContractVersion(1, 9))]},
        list(base.engine_providers.values()),
    )
    report = mixed.provider_compatibility(_request(required_version=ContractVersion(1, 9)))
    # operation 1.5 does not satisfy 1.9 -> operation mismatch on every provider wins
    err = raises_kind(
        "incompatible_operation_version", lambda: report.require_compatible_for_node(DEV, NodeId("node.n"))
    )
    assert (err.to_dict()["available_major"], err.to_dict()["available_minor"]) == (1, 5)


def test_provider_mismatch_only() -> None:
    base = catalog_with_secondary_provider()
    op = base.operations[OP]
    rows = [
        replace_provider(base.providers[OP][0], version=ContractVersion(1, 3)),
        replace_provider(base.providers[OP][1], version=ContractVersion(1, 0)),
    ]
    op1 = dataclasses.replace(op, version=ContractVersion(1, 0))
    cat = CapabilityCatalog(base.device, [op1], {OP: rows}, list(base.engine_providers.values()))
    report = cat.provider_compatibility(_request(required_version=ContractVersion(2, 0)))
    err = raises_kind(
        "incompatible_operation_version", lambda: report.require_compatible_for_node(DEV, NodeId("node.n"))
    )
    assert (err.to_dict()["available_major"], err.to_dict()["available_minor"]) == (1, 0)  # operation mismatch first


def test_greatest_provider_version_when_all_rejections_carry_one() -> None:
    """Operation 1.9 satisfies 1.8; providers 1.9 and 1.9... force provider-only mismatches via a 1.9 request."""
    base = catalog_with_secondary_provider()
    op = dataclasses.replace(base.operations[OP], version=ContractVersion(1, 9))
    rows = [
        replace_provider(base.providers[OP][0], operation_fingerprint=op.fingerprint(), version=ContractVersion(1, 9)),
        replace_provider(base.providers[OP][1], operation_fingerprint=op.fingerprint(), version=ContractVersion(1, 9)),
    ]
    cat = CapabilityCatalog(base.device, [op], {OP: rows}, list(base.engine_providers.values()))
    assert (
        len(cat.provider_compatibility(_request(required_version=ContractVersion(1, 9))).compatible_provider_ids) == 2
    )
    report = ProviderCompatibilityReport(
        _request(required_version=ContractVersion(1, 9)),
        (),
        tuple(
            ProviderRejection(
                ProviderId(f"p.{i}"), (CompatibilityReason("provider_version_mismatch", ContractVersion(1, 9), v),)
            )
            for i, v in enumerate([ContractVersion(1, 3), ContractVersion(1, 7), ContractVersion(1, 5)])
        ),
    )
    err = raises_kind(
        "incompatible_operation_version", lambda: report.require_compatible_for_node(DEV, NodeId("node.n"))
    )
    assert (err.to_dict()["available_major"], err.to_dict()["available_minor"]) == (1, 7)
    mixed = ProviderCompatibilityReport(
        report.request,
        (),
        (
            report.rejected[0],
            ProviderRejection(
                ProviderId("p.z"), (CompatibilityReason("missing_capabilities", identities=(CapabilityId("c"),)),)
            ),
        ),
    )
    err = raises_kind("unsupported_operation", lambda: mixed.require_compatible_for_node(DEV, NodeId("node.n")))
    assert err.to_dict()["node_id"] == "node.n"


def test_report_shape_rules() -> None:
    req = _request()
    raises_kind("invalid_execution_plan", lambda: ProviderCompatibilityReport(req, (), ()))
    a, b = ProviderId("p.a"), ProviderId("p.b")
    raises_kind("invalid_execution_plan", lambda: ProviderCompatibilityReport(req, (b, a), ()))
    raises_kind("invalid_execution_plan", lambda: ProviderCompatibilityReport(req, (a, a), ()))
    raises_kind("invalid_execution_plan", lambda: ProviderCompatibilityReport(req, (a,), (ProviderRejection(b, ()),)))
    reason = CompatibilityReason("missing_capabilities", identities=(CapabilityId("c"),))
    raises_kind(
        "invalid_execution_plan", lambda: ProviderCompatibilityReport(req, (a,), (ProviderRejection(a, (reason,)),))
    )
    ProviderCompatibilityReport(req, (a,), (ProviderRejection(b, (reason,)),))


def test_request_wire() -> None:
    req = _request()
    assert ProviderCompatibilityRequest.from_wire(req.to_wire()) == req
    raises_kind("invalid_execution_plan", lambda: _request(required_version=ContractVersion(0, 1)))
    for bad in ({**req.to_wire(), "x": 1}, {**req.to_wire(), "required_version": {"major": 0, "minor": 0}}):
        with pytest.raises(Serialization):
            ProviderCompatibilityRequest.from_wire(bad)
