"""MEDIA_ROOT follows VAR_DIR unless it is set (ragsite/settings.py), so a library restored into
a fresh VAR_DIR keeps its originals there, not in another library's media folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_security_headers import settings_process

PRINT = "from django.conf import settings; print(settings.MEDIA_ROOT)"


def media_root(env: dict[str, str]) -> Path:
    result = settings_process(env, PRINT)
    assert result.returncode == 0, result.stderr[-2000:]
    return Path(result.stdout.strip().splitlines()[-1])


def test_media_root_follows_var_dir_unless_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VAR_DIR", raising=False)
    monkeypatch.delenv("MEDIA_ROOT", raising=False)
    assert media_root({"VAR_DIR": str(tmp_path / "fresh")}) == tmp_path / "fresh" / "media"
    assert media_root({"VAR_DIR": str(tmp_path / "fresh"), "MEDIA_ROOT": str(tmp_path / "own")}) == tmp_path / "own"
    checkout = Path(__file__).resolve().parent.parent
    assert media_root({}) == checkout / "var" / "media"
