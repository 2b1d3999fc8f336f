"""Contract vectors of spec 01 that every implementation shares: canonical bytes and fingerprints.

These run against the reference's own encoder; they pin the byte-level rules every backend's hashes rest on.
"""

from __future__ import annotations

from reference.api import canonical_bytes, fingerprint, sha256_hex

IDENTITY_MATERIALIZER_IMPLEMENTATION = {
    "id": "weight-materializer.identity",
    "version": {"major": 2, "minor": 0},
    "contract": "execution-weight-plan.identity.v2",
}


def test_worked_example_vector() -> None:
    v = {"b": {"y": "é\u0001", "x": [3, {"d": 1, "c": None}]}, "a": 1}
    assert fingerprint(v) == "1b83ef86003256dfd1b8bd4e33161bc817cd772c70ce93357be279cae49684ba"


def test_escaping_stress_vector() -> None:
    v = {"k": '"\\/\b\f\n\r\t\u0000\u001f\u007f\u00e9\u2028\U0001f600', "A": [], "_": {}}
    out = canonical_bytes(v)
    assert len(out) == 59
    assert sha256_hex(out) == "09aa58a6decc2416731a55b0735be6bd861beb307614c64b8c76c850a53fb8bf"


def test_identity_materializer_fingerprints() -> None:
    implementation = fingerprint(IDENTITY_MATERIALIZER_IMPLEMENTATION)
    assert implementation == "8b4938b533e7cdc431f40951c3a532b4426cc526a65d22fdacfd0fe5bf02caae"
    descriptor = {
        "id": "weight-materializer.identity",
        "version": {"major": 2, "minor": 0},
        "implementation_fingerprint": implementation,
        "fidelity": "exact",
        "required_capabilities": [],
    }
    assert fingerprint(descriptor) == "074500d1df7758b1e66cb360eb8c209524049c19d2d7e32a09eb4981be870304"


def test_layout_class_vectors() -> None:
    assert fingerprint("contiguous") == "2ee77f83e72ffcea31cc6ac29a81070a45403f9fe3e3d76aa284ffc351ead457"
    assert fingerprint("opaque_bytes_v1") == "309780bb231c537e8511cd06c6de0030f971c09499f8c0504e3bdee811fad897"
