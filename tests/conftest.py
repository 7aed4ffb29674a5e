"""Shared fixtures: the repository root and a scratch copy of the project."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the real catalogs in a scratch directory, to break on purpose."""
    for name in ("data", "slides", "schemas"):
        source = ROOT / name
        if source.exists():
            shutil.copytree(source, tmp_path / name)
    return tmp_path
