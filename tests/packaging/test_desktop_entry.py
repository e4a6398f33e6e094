"""The desktop entry: ``.mcap`` files are an MCAP log to the desktop (shared-mime-info), and
the bundle's ``desktop/install.sh`` makes ``fieldstation`` the application that opens them."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.test_bundle import bundle  # noqa: F401 (the fixture)

REPO = Path(__file__).resolve().parents[2]
DESKTOP = REPO / "packaging" / "desktop"
MCAP_MAGIC = b"\x89MCAP0\r\n"

pytestmark = pytest.mark.skipif(shutil.which("update-mime-database") is None,
                                reason="needs shared-mime-info")


def mime_type_of(path: Path, data_home: Path) -> str:
    """What Qt (as the desktop does, from the shared-mime-info database) calls ``path``."""
    script = ("import sys; from PySide6.QtCore import QMimeDatabase; "
              "print(QMimeDatabase().mimeTypeForFile(sys.argv[1]).name())")
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    result = subprocess.run([sys.executable, "-c", script, str(path)], env=env,
                            capture_output=True, text=True, timeout=60, check=True)
    return result.stdout.strip()


def test_mcap_files_are_an_mcap_log_by_name_and_by_content(tmp_path: Path) -> None:
    log = tmp_path / "drive.mcap"
    log.write_bytes(MCAP_MAGIC + bytes(64))
    renamed = tmp_path / "drive.bin"
    renamed.write_bytes(MCAP_MAGIC + bytes(64))
    data = tmp_path / "share"
    assert mime_type_of(log, data) != "application/x-mcap"
    (data / "mime" / "packages").mkdir(parents=True)
    shutil.copy(DESKTOP / "fieldstation-mcap.xml", data / "mime" / "packages")
    subprocess.run(["update-mime-database", str(data / "mime")], check=True, timeout=60)
    assert mime_type_of(log, data) == "application/x-mcap"
    assert mime_type_of(renamed, data) == "application/x-mcap"


def test_the_desktop_entry_opens_mcap_files_with_fieldstation() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    entry.read(DESKTOP / "fieldstation.desktop")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"] == "fieldstation %f"
    assert "application/x-mcap" in desktop["MimeType"].split(";")
    assert desktop["Icon"] == "fieldstation" and desktop["Type"] == "Application"
    if shutil.which("desktop-file-validate"):
        subprocess.run(["desktop-file-validate", str(DESKTOP / "fieldstation.desktop")],
                       check=True, timeout=60)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_bundles_installer_puts_fieldstation_on_the_path_for_mcap_files(
        bundle: Path, tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_DATA_HOME", None)
    subprocess.run([str(bundle.parent / "desktop" / "install.sh")], env=env, check=True,
                   capture_output=True, timeout=120)
    data = home / ".local" / "share"
    assert (data / "applications" / "fieldstation.desktop").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "fieldstation.svg").is_file()
    log = tmp_path / "drive.mcap"
    log.write_bytes(MCAP_MAGIC + bytes(64))
    assert mime_type_of(log, data) == "application/x-mcap"
    version = subprocess.run([str(home / ".local" / "bin" / "fieldstation"), "--version"],
                             capture_output=True, text=True, timeout=60, check=True)
    assert version.stdout.startswith("fieldstation ")
