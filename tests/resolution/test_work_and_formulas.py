"""Work shapes (spec 04 §6) and provider workspaces (spec 04 §7), with the §11 vectors."""

from __future__ import annotations

import hashlib
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schemas
from reference.catalog import DynamicStorageRequirement
from reference.errors import Serialization
from reference.ints import U64_MAX
from reference.resolution import (
    DynamicResourceShapeBucket,
    ProviderWorkspaceRequirement,
    ProviderWorkspaceReusePolicy,
    ProviderWorkspaceScope,
    ProviderWorkspaceSizeFormula,
    ResourceWorkShape,
    TokenSpanWork,
    WorkShape,
    align_up,
)
from seeds.resolution import resource_work
from tests.resolution.helpers import raises_kind

EP = "invalid_execution_plan"
F = ProviderWorkspaceSizeFormula
INV, PLAN, SEQ = ProviderWorkspaceScope.INVOCATION, ProviderWorkspaceScope.PLAN, ProviderWorkspaceScope.SEQUENCE
OVERWRITE, PRESERVE = ProviderWorkspaceReusePolicy.OVERWRITE_BEFORE_READ, ProviderWorkspaceReusePolicy.PRESERVE
CONTIGUOUS = DynamicStorageRequirement.contiguous()


def req(
    formula: ProviderWorkspaceSizeFormula, align: int = 16, scope: ProviderWorkspaceScope = INV
) -> ProviderWorkspaceRequirement:
    return ProviderWorkspaceRequirement.from_formula(formula, align, scope, OVERWRITE, CONTIGUOUS)


def bucket(s: int, t: int, p: int, b: int) -> DynamicResourceShapeBucket:
    return DynamicResourceShapeBucket(s, t, p, b)


# --------------------------------------------------------------------------- work shapes


def test_section_11_vectors() -> None:
    span = TokenSpanWork.from_token_ids([0, 1], 0, 2)
    assert span.fingerprint == "f7df9fb89c80aa948deb6c86006548649f5f75a99a3fbfa8885909cf51baaadc"
    work = resource_work([2])
    assert work.fingerprint == "920a4c6e6ed0406f21fcc563616af4706e3e6fb9d7739e568cd18455dc40e873"
    assert work.to_wire() == {
        "token_spans": [span.to_wire()],
        "committed_pages": [],
        "immediate_sequences": 1,
        "immediate_tokens": 2,
        "immediate_pages": 0,
        "fit_sequences": 1,
        "fit_tokens": 2,
        "fit_pages": 0,
        "fingerprint": work.fingerprint,
    }
    schemas.validate("resolution/resource_work_shape.json", work.to_wire())


@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=12), st.data())
def test_span_fingerprint_recipe(tokens: list[int], data: st.DataObject) -> None:
    end = data.draw(st.integers(1, len(tokens)))
    start = data.draw(st.integers(0, end - 1))
    span = TokenSpanWork.from_token_ids(tokens, start, end)
    raw = b"ferrum.runtime-vnext.token-span-work.v1\x00" + struct.pack("<QQQ", len(tokens), start, end)
    raw += b"".join(struct.pack("<I", t) for t in tokens)
    assert span.fingerprint == hashlib.sha256(raw).hexdigest()
    assert (span.immediate_tokens, span.full_input_tokens) == (end - start, len(tokens))


def test_span_rejections() -> None:
    raises_kind(EP, lambda: TokenSpanWork.from_token_ids([], 0, 0))
    raises_kind(EP, lambda: TokenSpanWork.from_token_ids([1, 2], 1, 1))
    raises_kind(EP, lambda: TokenSpanWork.from_token_ids([1, 2], 2, 1))
    raises_kind(EP, lambda: TokenSpanWork.from_token_ids([1, 2], 0, 3))
    raises_kind(EP, lambda: TokenSpanWork.from_token_ids([2**32], 0, 1))
    raises_kind(EP, lambda: ResourceWorkShape.from_token_spans([]))


@given(st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_work_shape_sums(counts: list[int]) -> None:
    work = resource_work(counts)
    assert work.immediate_shape() == WorkShape(len(counts), sum(counts), 0)
    assert work.fit_shape() == WorkShape(len(counts), sum(counts), 0)
    assert work.fingerprint != resource_work([*counts, 1]).fingerprint


# --------------------------------------------------------------------------- formulas


def test_formula_constructor_rejections() -> None:
    for bad in (
        lambda: F.fixed(0),
        lambda: F.actual_sequences(0),
        lambda: F.tokens(0),
        lambda: F.affine(1, 0, 0),
        lambda: F.affine(U64_MAX, 1, 0),
        lambda: F.pages(0, 8),
        lambda: F.pages(8, 0),
        lambda: F.pages(2**33, 2**32),
        lambda: F.bounded_shape_buckets([]),
        lambda: F.bounded_shape_buckets([bucket(1, 8, 2, 64)] * 2),
        lambda: F.bounded_shape_buckets([bucket(2, 8, 2, 64), bucket(1, 16, 2, 64)]),
        lambda: F.bounded_shape_buckets([bucket(1, 8, 2, 64), bucket(1, 16, 2, 32)]),
        lambda: F.bounded_shape_buckets([bucket(1, t, 1, 64) for t in range(1, 66)]),
        lambda: bucket(0, 1, 1, 1),
        lambda: bucket(1, 1, 1, 0),
    ):
        raises_kind(EP, bad)
    assert len(F.bounded_shape_buckets([bucket(1, t, 1, 64) for t in range(1, 65)]).buckets) == 64
    F.affine(0, 0, 1)
    F.pages(2**32, 2**32 - 1)


def test_worked_examples_on_four_sequences() -> None:
    work = resource_work([3, 3, 3, 3])
    assert work.immediate_shape() == (4, 12, 0)
    assert req(F.actual_sequences(7)).evaluate_bytes(work) == 32
    assert req(F.affine(5, 7, 3)).evaluate_bytes(work) == 80
    assert req(F.fixed(13), align=1).evaluate_bytes(work) == 13
    assert req(F.tokens(3), align=1).evaluate_bytes(work) == 36
    raises_kind(EP, lambda: req(F.pages(11, 8)).evaluate_bytes(work))
    assert req(F.tokens(7)).minimum_bytes() == 16


@given(st.integers(1, 2**20))
def test_plan_scope_odd_multiple_of_eight(k: int) -> None:
    odd = 2 * k - 1
    requirement = ProviderWorkspaceRequirement.new(8 * odd, 16, PLAN, PRESERVE, CONTIGUOUS)
    assert requirement.minimum_bytes() == 8 * odd + 8
    assert requirement.fixed_bytes() == 8 * odd


def test_buckets_first_cover_and_beyond() -> None:
    formula = F.bounded_shape_buckets([bucket(1, 8, 2, 64), bucket(2, 16, 2, 96), bucket(4, 64, 4, 128)])
    assert formula.evaluate_shape((1, 8, 0)) == 64
    assert formula.evaluate_shape((1, 9, 0)) == 96
    assert formula.evaluate_shape((3, 1, 3)) == 128
    raises_kind(EP, lambda: formula.evaluate_shape((5, 1, 1)))
    raises_kind(EP, lambda: formula.evaluate_shape((1, 65, 1)))


@given(
    st.sampled_from(["fixed", "sequences", "tokens", "affine"]),
    st.integers(1, 2**16),
    st.sampled_from([1, 2, 16, 64, 4096]),
    st.tuples(st.integers(1, 64), st.integers(1, 4096), st.integers(0, 8)),
)
def test_evaluation_closed_forms(kind: str, c: int, align: int, shape: tuple[int, int, int]) -> None:
    formula = {
        "fixed": F.fixed(c),
        "sequences": F.actual_sequences(c),
        "tokens": F.tokens(c),
        "affine": F.affine(c, c, c),
    }[kind]
    s, t, _p = shape
    raw = {"fixed": c, "sequences": c * s, "tokens": c * t, "affine": c + c * s + c * t}[kind]
    requirement = req(formula, align)
    got = requirement.evaluate_shape(shape)
    assert got % align == 0 and got == -(-raw // align) * align
    assert got >= requirement.minimum_bytes()


def test_requirement_rejections() -> None:
    raises_kind(EP, lambda: req(F.fixed(8), 0))
    raises_kind(EP, lambda: req(F.fixed(8), 24))
    raises_kind(EP, lambda: req(F.tokens(8), 16, PLAN))
    raises_kind(EP, lambda: req(F.actual_sequences(8), 16, SEQ))
    raises_kind(EP, lambda: req(F.affine(1, 1, 1), 16, SEQ))
    raises_kind(EP, lambda: req(F.bounded_shape_buckets([bucket(2, 8, 1, 8)]), 16, SEQ))
    raises_kind(EP, lambda: req(F.fixed(U64_MAX), 16))
    for ok in (
        F.fixed(8),
        F.tokens(8),
        F.pages(8, 2),
        F.affine(1, 0, 1),
        F.bounded_shape_buckets([bucket(1, 8, 1, 8)]),
    ):
        assert req(ok, 16, SEQ).scope is SEQ


def test_align_up_edges() -> None:
    assert align_up(0, 16) == 0 and align_up(17, 16) == 32 and align_up(U64_MAX, 1) == U64_MAX
    raises_kind(EP, lambda: align_up(U64_MAX, 16))
    raises_kind(EP, lambda: align_up(1, 0))
    raises_kind(EP, lambda: align_up(1, 3))


def test_formula_and_requirement_wire() -> None:
    formulas = [
        F.fixed(64),
        F.actual_sequences(7),
        F.tokens(7),
        F.affine(5, 7, 3),
        F.pages(4096, 8),
        F.bounded_shape_buckets([bucket(1, 8, 2, 64), bucket(2, 8, 2, 64)]),
    ]
    for formula in formulas:
        wire = formula.to_wire()
        assert F.from_wire(wire) == formula
        schemas.validate("resolution/size_formula.json", wire)
        requirement = req(formula, 16, INV)
        assert ProviderWorkspaceRequirement.from_wire(requirement.to_wire()) == requirement
        schemas.validate("resolution/workspace_requirement.json", requirement.to_wire())
    assert req(F.fixed(64)).to_wire() == {
        "size_formula": {"fixed": {"bytes": 64}},
        "alignment_bytes": 16,
        "scope": "invocation",
        "reuse_policy": "overwrite_before_read",
        "storage": {"accepted_profiles": [{"allocator": "linear_arena", "view": "contiguous"}]},
    }
    for bad in (
        {"tokens": {"bytes_per_token": 7, "maximum_tokens": 9}},
        {"tokens": {"bytes_per_token": 0}},
        {"affine": {"fixed_bytes": 1, "bytes_per_sequence": 0, "bytes_per_token": 0}},
        {
            "bounded_shape_buckets": {
                "buckets": [{"maximum_sequences": 1, "maximum_tokens": 1, "maximum_pages": 1, "bytes": 1, "x": 0}]
            }
        },
        "fixed",
        {"fixed": {"bytes": 1}, "tokens": {"bytes_per_token": 1}},
    ):
        with pytest.raises(Serialization):
            F.from_wire(bad)
    good = req(F.tokens(8)).to_wire()
    for bad_req in (
        {**good, "extra": 1},
        {**good, "scope": "plan"},
        {**good, "alignment_bytes": 12},
        {**good, "reuse_policy": "Preserve"},
    ):
        with pytest.raises(Serialization):
            ProviderWorkspaceRequirement.from_wire(bad_req)
