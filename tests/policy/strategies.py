"""Hypothesis strategies for runtime-policy wires (plain JSON), valid and near-boundary."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from reference.canonical import fingerprint

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

LINEAR = {"allocator": "linear_arena", "view": "contiguous"}


def fixed(block: int) -> dict[str, Any]:
    return {"allocator": {"fixed_block_arena": {"block_bytes": block}}, "view": "contiguous"}


def paged(block: int) -> dict[str, Any]:
    return {
        "allocator": {"fixed_block_arena": {"block_bytes": block}},
        "view": {"paged_regions": {"block_bytes": block}},
    }


PROFILE_POOL = [LINEAR, fixed(16), fixed(64), paged(16), paged(4096), fixed(2**63), paged(1)]

profiles = st.sampled_from(PROFILE_POOL)
distinct_orders = st.lists(profiles, min_size=1, max_size=5, unique_by=repr)

portable_ids = st.from_regex(r"[A-Za-z0-9._:/-]{1,40}", fullmatch=True)


def bucket(class_id: str, sequences: int, tokens: int, pages: int) -> dict[str, Any]:
    capacity = {"maximum_sequences": sequences, "maximum_tokens": tokens, "maximum_pages": pages}
    material = {
        "domain": "ferrum.runtime-vnext.reusable-execution-bucket.v1",
        "class_id": class_id,
        "capacity": capacity,
    }
    return {"bucket_id": "reusable-bucket/sha256/" + fingerprint(material), "class_id": class_id, "capacity": capacity}


@st.composite
def reusable_wires(draw: st.DrawFn) -> dict[str, Any]:
    """Valid ReusableExecutionPolicy wires: per class, strictly growing capacity chains."""
    classes = draw(
        st.lists(st.sampled_from(["execution.a", "execution.b", "x:y/z"]), min_size=1, max_size=2, unique=True)
    )
    buckets = []
    for class_id in sorted(classes):
        seq, tok, pag = draw(st.integers(1, 4)), draw(st.integers(1, 5000)), draw(st.integers(1, 8))
        for _ in range(draw(st.integers(1, 3))):
            buckets.append(bucket(class_id, seq, tok, pag))
            seq, tok, pag = (
                seq + draw(st.integers(0, 2)),
                tok + draw(st.integers(1, 100)),
                pag + draw(st.integers(0, 2)),
            )
    return {"maximum_reusable_lanes": draw(st.integers(1, 4)), "buckets": buckets}


def _valid_core(draw: st.DrawFn) -> dict[str, Any]:
    capacity = draw(st.one_of(st.integers(1, U64_MAX), st.sampled_from([1, 2, U64_MAX])))
    reserve = draw(st.one_of(st.integers(0, capacity - 1), st.just(capacity - 1), st.just(0)))
    memory: dict[str, Any] = {
        "capacity_bytes": capacity,
        "reserve_bytes": reserve,
        "maximum_active_sequences": draw(st.one_of(st.integers(16, U32_MAX), st.just(U32_MAX))),
        "dynamic_storage_profile_order": draw(distinct_orders),
    }
    if draw(st.booleans()):
        memory["checkpoint_capacity"] = {"maximum_retained_bytes": draw(st.integers(1, U64_MAX))}
    admission = {
        "maximum_queue_depth": draw(st.integers(1, U32_MAX)),
        "maximum_scheduled_tokens": draw(st.integers(6000, U64_MAX)),
        "sequence_fit_policy": draw(st.sampled_from(["immediate_only", "full_input_must_fit"])),
        "allow_defer": draw(st.booleans()),
        "cancellation_check_interval_steps": draw(st.integers(1, U32_MAX)),
    }
    return {
        "policy_id": draw(portable_ids),
        "version": {"major": draw(st.integers(1, 65535)), "minor": draw(st.integers(0, 65535))},
        "scheduling": draw(st.sampled_from(["first_ready", "priority", "deadline"])),
        "memory": memory,
        "admission": admission,
        "attention_execution": draw(st.sampled_from(["portable", "native-adaptive"])),
        "execution_determinism": draw(st.sampled_from(["bitwise_same_runtime", "bitwise_same_runtime_with_replay"])),
        "reusable_execution": draw(st.one_of(st.none(), reusable_wires())),
    }


def _break_id(f: dict[str, Any], value: str) -> None:
    f["policy_id"] = value


def _duplicate_profile(f: dict[str, Any], draw: st.DrawFn) -> None:
    """Insert a copy of some profile anywhere (two copies of one if the order is empty)."""
    order = f["memory"]["dynamic_storage_profile_order"]
    if not order:
        order.append(draw(profiles))
    order.insert(draw(st.integers(0, len(order))), draw(st.sampled_from(order)))


BREAKERS: list[tuple[str, Any]] = [
    ("id-empty", lambda f, d: _break_id(f, "")),
    ("id-long", lambda f, d: _break_id(f, "p" * 161)),
    ("id-charset", lambda f, d: _break_id(f, d(st.sampled_from(["a b", "caf\u00e9", "x\n", "a*b"])))),
    ("major-zero", lambda f, d: f["version"].update(major=0)),
    ("capacity-zero", lambda f, d: f["memory"].update(capacity_bytes=0, reserve_bytes=0)),
    ("reserve-equal", lambda f, d: f["memory"].update(reserve_bytes=f["memory"]["capacity_bytes"])),
    ("sequences-zero", lambda f, d: f["memory"].update(maximum_active_sequences=0)),
    ("order-empty", lambda f, d: f["memory"].update(dynamic_storage_profile_order=[])),
    ("order-duplicate", _duplicate_profile),
    ("queue-zero", lambda f, d: f["admission"].update(maximum_queue_depth=0)),
    ("tokens-zero", lambda f, d: f["admission"].update(maximum_scheduled_tokens=0)),
    ("cancel-zero", lambda f, d: f["admission"].update(cancellation_check_interval_steps=0)),
    ("attention-auto", lambda f, d: f.update(attention_execution="auto")),
    ("bucket-too-wide", lambda f, d: f["memory"].update(maximum_active_sequences=1)),
    ("bucket-too-many-tokens", lambda f, d: f["admission"].update(maximum_scheduled_tokens=1)),
]


@st.composite
def policy_fields(draw: st.DrawFn, *, valid: bool = False) -> dict[str, Any]:
    """The eight ``new`` fields as a wire dict; unless ``valid``, zero to three rows are broken."""
    fields = _valid_core(draw)
    if not valid:
        chosen = draw(st.lists(st.sampled_from(range(len(BREAKERS))), max_size=3, unique=True))
        for index in sorted(chosen, key=lambda i: draw(st.integers(0, 10))):
            BREAKERS[index][1](fields, draw)
    return fields


def with_fingerprint(fields: dict[str, Any]) -> dict[str, Any]:
    """The wire for ``fields`` with the §3.3 fingerprint computed independently."""
    material = dict(fields)
    material.setdefault("reusable_execution", None)
    return {**material, "fingerprint": fingerprint(material)}
