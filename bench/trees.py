"""Another revision's tree beside this one, for interleaved A/B measurements."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

__all__ = ["ROOT", "export"]

ROOT = Path(__file__).resolve().parents[1]


def export(rev: str, into: Path) -> Path:
    """The files of git revision ``rev`` extracted under ``into`` (no checkout, no index touched)."""
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    tar_path = into / "tree.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"
