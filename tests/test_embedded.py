"""PostgreSQL memory: the embedded server's shared_buffers (applied, with a restart, by the launcher's
prepare step) and the sort memory every connection asks for."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import connection

from ragsite.embedded import shared_buffers_wanted


def test_shared_buffers_default_is_a_quarter_of_memory_up_to_8_gb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POSTGRES_SHARED_BUFFERS", raising=False)
    quarter_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // 2**20
    assert shared_buffers_wanted() == f"{min(quarter_mb, 8192)}MB"
    monkeypatch.setenv("POSTGRES_SHARED_BUFFERS", "512MB")
    assert shared_buffers_wanted() == "512MB"


@pytest.mark.django_db
def test_every_connection_gets_the_configured_sort_memory() -> None:
    # The packed BM25 leg sorts megabytes of postings at a million chunks: 4 MB spills to disk.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_bytes(current_setting('work_mem')) = pg_size_bytes(%s)", [settings.DATABASE_WORK_MEM]
        )
        assert cursor.fetchone() == (True,)
    assert settings.DATABASE_WORK_MEM == "64MB"


@pytest.mark.django_db
def test_every_connection_asks_both_ends_to_probe_a_silent_peer() -> None:
    """A host lost mid-transaction must not hold its row locks for the operating system's two
    hours: the server gets the keepalive settings from the connection (over a Unix socket, as
    here, PostgreSQL keeps them but reads them as 0: there is no peer to lose), libpq its own."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, source FROM pg_settings WHERE name LIKE 'tcp_keepalives_%' ORDER BY name")
        assert cursor.fetchall() == [(f"tcp_keepalives_{k}", "client") for k in ("count", "idle", "interval")]
    dsn = connection.connection.info.dsn
    assert "keepalives=1" in dsn
    for key, value in settings.DATABASE_KEEPALIVES.items():
        assert f"tcp_keepalives_{key}={value}" in dsn
        assert f"keepalives_{key}={value}" in dsn
    probes = settings.DATABASE_KEEPALIVES
    assert probes["idle"] + probes["interval"] * probes["count"] <= 180  # a dead peer is noticed within minutes
