"""The embedded PostgreSQL's memory setting (applied, with a restart, by the launcher's prepare step)."""

from __future__ import annotations

import os

import pytest

from ragsite.embedded import shared_buffers_wanted


def test_shared_buffers_default_is_a_quarter_of_memory_up_to_8_gb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POSTGRES_SHARED_BUFFERS", raising=False)
    quarter_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**20
    assert shared_buffers_wanted() == f"{min(quarter_mb, 8192)}MB"
    monkeypatch.setenv("POSTGRES_SHARED_BUFFERS", "512MB")
    assert shared_buffers_wanted() == "512MB"
