"""The simulated fleet in its own process, for the command-line tests."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator

import pytest

from tests.cli.test_cli import FIELDSTATION, REPO


@pytest.fixture(scope="module")
def sim_endpoint() -> Iterator[str]:
    """``fieldstation sim`` in its own process, all three robots, a small cloud."""
    from tests.conftest import free_port

    endpoint = f"tcp/127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [*FIELDSTATION, "sim", "--points", "20000", "--listen", endpoint],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        assert "simulated fleet on" in proc.stdout.readline()
        yield endpoint
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        finally:
            proc.kill()
