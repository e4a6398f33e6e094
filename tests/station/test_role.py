"""The station's role, read from the user name of its zenoh config (the router's access
control grants and enforces it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.station.role import refusal, role_of

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "zenoh"


def config_of_user(folder: Path, user: str) -> BusConfig:
    path = folder / "station.json5"
    path.write_text(f'{{ mode: "client", transport: {{ auth: {{ usrpwd: {{ user: "{user}", '
                    f'password: "secret" }} }} }} }}')
    return BusConfig(config_file=str(path))


@pytest.mark.parametrize(("user", "role"), [
    ("viewer", "viewer"), ("operator", "operator"), ("admin", "admin"), ("owner", "owner"),
    ("ana-operator", "operator"), ("bo-admin", "admin"), ("site-3-viewer", "viewer"),
    ("Cy-Owner", "owner"),
])
def test_a_user_name_that_ends_with_a_role_is_granted_it(tmp_path: Path, user: str,
                                                          role: str) -> None:
    assert role_of(config_of_user(tmp_path, user)) == (role, f"from user '{user}'")


@pytest.mark.parametrize("user", ["admin-ana", "administrator", "ana_admin", "-"])
def test_a_user_name_that_names_no_role_is_an_operator(tmp_path: Path, user: str) -> None:
    assert role_of(config_of_user(tmp_path, user)) == ("operator",
                                                       f"user '{user}' names no role")


def test_the_shipped_station_sample_names_no_role() -> None:
    config = BusConfig(config_file=str(SAMPLES / "station-tls-auth.json5"))
    assert role_of(config) == ("operator", "user 'station' names no role")


@pytest.mark.parametrize("config", [
    BusConfig(),  # the embedded simulator, --connect
    BusConfig(config_file=str(SAMPLES / "depot" / "station.json5")),  # no credentials
    BusConfig(config_file="/nowhere/station.json5"),  # opening the session says why
], ids=["no config file", "no credentials", "missing file"])
def test_a_station_without_a_user_name_is_an_operator(config: BusConfig) -> None:
    assert role_of(config) == ("operator", "no user name in the zenoh config")


def test_a_control_needs_its_role_or_a_higher_one() -> None:
    assert refusal("admin", "operator") == refusal("admin", "admin") == ""
    assert refusal("operator", "admin") == "needs the admin role (this station: operator)"
    assert refusal("owner", 7) == "needs role 7, unknown to this station"
