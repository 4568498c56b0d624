"""Shared fixtures for the BFCL tests: where the sample data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "bfcl"


@pytest.fixture(scope="session")
def bfcl_data() -> Path:
    return DATA
