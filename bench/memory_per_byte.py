"""Peak memory per input byte of the strict input path: bounded read, then the strict decoder.

Usage::

    python bench/memory_per_byte.py [--mib N] [--max-ratio R]

For each input shape (one long string, one of escapes, whitespace, nesting 127 repeated,
nesting 128 repeated (refused), an array of small integers, an object of many members) a fresh
child process reads an ``N`` MiB file of it with ``read_bounded`` and decodes it with
``loads_strict``; the figure printed is how far the child's peak resident memory (``VmHWM``,
reset before reading) rose, divided by the input size. Text and whitespace cost the read and
the decoder's working copies only; a decoded value costs what its Python objects cost on top (a
two-byte ``[]`` is a list object of about 60 bytes), so nested and many-small-value shapes show
the largest ratio, bounded by that object size per byte. With ``--max-ratio`` the exit status is
1 when a shape's ratio exceeds ``R``. Not a timed test: it measures memory only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
MIB: Final = 1024 * 1024

_CHILD: Final = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from reference.bounded_read import read_bounded
from reference.canonical import loads_strict
from reference.errors import Serialization

def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)

path = Path(sys.argv[2])
size = path.stat().st_size
Path("/proc/self/clear_refs").write_text("5")  # the peak (VmHWM) starts again from the current size
before = status("VmRSS")
data = read_bounded(path, max_bytes=size, context="bench")
try:
    value = loads_strict(data, context="bench")
    outcome = "decoded"
except Serialization as exc:
    outcome = "refused: " + exc.message_text[:60]
peak = status("VmHWM")
print(json.dumps({"size": size, "rise": peak - before, "outcome": outcome}))
"""


def _shapes(size: int) -> dict[str, bytes]:
    """Each input shape, about ``size`` bytes."""
    deep = b"[" * 126 + b"0" + b"]" * 126  # 127 deep inside the outer array
    too_deep = b"[" * 127 + b"0" + b"]" * 127
    member = b'"k0000000":0,'
    return {
        "string": b'"' + b"a" * (size - 2) + b'"',
        "escaped-string": b'"' + b"\\n" * ((size - 2) // 2) + b'"',
        "whitespace": b" " * (size - 2) + b"{}",
        "nesting-127": b"[" + b",".join([deep] * (size // (len(deep) + 1))) + b"]",
        "nesting-128-refused": b"[" + b",".join([too_deep] * (size // (len(too_deep) + 1))) + b"]",
        "small-integers": b"[" + b",".join([b"7"] * (size // 2)) + b"]",
        "many-members": b"{" + b",".join(b'"k%08d":0' % index for index in range(size // len(member))) + b"}",
    }


def measure(name: str, data: bytes, directory: Path) -> tuple[int, int, str]:
    """``(input bytes, peak memory rise in bytes, outcome)`` of reading and decoding ``data`` in a child."""
    path = directory / f"{name}.json"
    path.write_bytes(data)
    try:
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(ROOT), str(path)],
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
        ).stdout
    finally:
        path.unlink()
    result = json.loads(out)
    return int(result["size"]), int(result["rise"]), str(result["outcome"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mib", type=int, default=15, help="input size in MiB (default: 15)")
    parser.add_argument("--max-ratio", type=float, default=None, help="fail when a shape exceeds this ratio")
    args = parser.parse_args(argv)
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="vnext-memory-bench-") as tmp:
        for name, data in _shapes(args.mib * MIB).items():
            size, rise, outcome = measure(name, data, Path(tmp))
            ratio = rise / size
            worst = max(worst, ratio)
            print(
                f"{name:20} {size / MIB:6.1f} MiB  peak rise {rise / MIB:8.1f} MiB  "
                f"{ratio:6.2f} bytes per input byte  ({outcome})"
            )
    print(f"worst: {worst:.2f} bytes of peak memory per input byte")
    return 1 if args.max_ratio is not None and worst > args.max_ratio else 0


if __name__ == "__main__":
    sys.exit(main())
