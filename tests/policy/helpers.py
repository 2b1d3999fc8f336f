"""Shared helpers: build a ResolvedRuntimePolicy from a fields dict, and an independent §3.2 oracle."""

from __future__ import annotations

import re
from typing import Any

from reference.catalog.storage import DynamicStorageProfile
from reference.policy import (
    AdmissionFitPolicy,
    AdmissionPolicy,
    AttentionExecutionPolicy,
    CheckpointCapacityPolicy,
    ExecutionDeterminismRequirement,
    ResolvedRuntimePolicy,
    ReusableExecutionPolicy,
    RuntimeMemoryPolicy,
    SchedulingDiscipline,
)
from reference.versions import ContractVersion

_PORTABLE = re.compile(r"[A-Za-z0-9._:/-]+")


def memory_of(raw: dict[str, Any]) -> RuntimeMemoryPolicy:
    checkpoint = raw.get("checkpoint_capacity")
    return RuntimeMemoryPolicy(
        raw["capacity_bytes"],
        raw["reserve_bytes"],
        raw["maximum_active_sequences"],
        tuple(DynamicStorageProfile.from_wire(p) for p in raw["dynamic_storage_profile_order"]),
        None if checkpoint is None else CheckpointCapacityPolicy(checkpoint["maximum_retained_bytes"]),
    )


def admission_of(raw: dict[str, Any]) -> AdmissionPolicy:
    return AdmissionPolicy(
        raw["maximum_queue_depth"],
        raw["maximum_scheduled_tokens"],
        AdmissionFitPolicy(raw["sequence_fit_policy"]),
        raw["allow_defer"],
        raw["cancellation_check_interval_steps"],
    )


def build(fields: dict[str, Any]) -> ResolvedRuntimePolicy:
    """``ResolvedRuntimePolicy.new`` from typed values built out of a fields dict."""
    reusable = fields.get("reusable_execution")
    return ResolvedRuntimePolicy.new(
        fields["policy_id"],
        ContractVersion(fields["version"]["major"], fields["version"]["minor"]),
        SchedulingDiscipline(fields["scheduling"]),
        memory_of(fields["memory"]),
        admission_of(fields["admission"]),
        AttentionExecutionPolicy(fields["attention_execution"]),
        ExecutionDeterminismRequirement(fields["execution_determinism"]),
        None if reusable is None else ReusableExecutionPolicy.from_wire(reusable, context="test"),
    )


def expected_failure(fields: dict[str, Any]) -> str | None:
    """The ``field`` of the first failing §3.2 row (1-12, 14), computed from plain JSON; None if valid."""
    pid = fields["policy_id"]
    size = len(pid.encode("utf-8"))
    if not 1 <= size <= 160 or not (pid.isascii() and _PORTABLE.fullmatch(pid)):
        return "runtime_policy.policy_id"
    if fields["version"]["major"] == 0:
        return "runtime_policy.version"
    m, a = fields["memory"], fields["admission"]
    order = [repr(p) for p in m["dynamic_storage_profile_order"]]
    if (
        m["capacity_bytes"] == 0
        or m["reserve_bytes"] >= m["capacity_bytes"]
        or m["maximum_active_sequences"] == 0
        or not order
        or len(set(order)) != len(order)
    ):
        return "runtime_policy.memory"
    if (
        a["maximum_queue_depth"] == 0
        or a["maximum_scheduled_tokens"] == 0
        or a["cancellation_check_interval_steps"] == 0
    ):
        return "runtime_policy.admission"
    if fields["attention_execution"] == "auto":
        return "runtime_policy.attention_execution"
    reusable = fields.get("reusable_execution")
    if reusable is not None:
        for bucket in reusable["buckets"]:
            cap = bucket["capacity"]
            if (
                cap["maximum_sequences"] > m["maximum_active_sequences"]
                or cap["maximum_tokens"] > a["maximum_scheduled_tokens"]
            ):
                return "runtime_policy.reusable_execution"
    return None
