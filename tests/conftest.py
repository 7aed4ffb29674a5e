"""Shared fixtures: the repository root and a scratch copy of the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from .sitebuild import copy_tracked

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the real catalogs in a scratch directory, to break on purpose."""
    copy_tracked(("data", "slides", "schemas"), tmp_path)
    return tmp_path
