"""Mesa's software OpenGL is kept off the cores the window and the decoders need."""

from __future__ import annotations

import os

import pytest

from app.qt.application import limit_software_gl_threads


@pytest.mark.parametrize(("cores", "threads"), [(1, "0"), (2, "0"), (4, "2"), (16, "14")])
def test_llvmpipe_gets_the_cores_beyond_two(monkeypatch: pytest.MonkeyPatch, cores: int,
                                            threads: str) -> None:
    monkeypatch.delenv("LP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    limit_software_gl_threads()
    assert os.environ["LP_NUM_THREADS"] == threads


def test_a_setting_of_the_users_own_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LP_NUM_THREADS", "8")
    limit_software_gl_threads()
    assert os.environ["LP_NUM_THREADS"] == "8"
