"""A depot for TLS tests: certificates made as README.md's openssl steps make them, a
password file, and the shipped sample configs (resources/zenoh/) pointed at them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.bus.certs import make_certs
from tests.conftest import free_port

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "zenoh"
# The station sample without its user name and password.
NO_PASSWORD = {'usrpwd: { user: "station", password: "station-password" },': ""}
# Users the access-control sample (router-tls-acl.json5) grants a role; password "<user>-password".
ROLE_USERS = ("viewer", "ana-operator", "bo-admin", "owner")


@dataclass(frozen=True)
class Depot:
    folder: Path
    port: int

    def config(self, role: str, name: str = "", sample: str = "", **replace: str) -> str:
        """The shipped sample for ``role`` (``<role>-tls-auth.json5``, or the file named
        ``sample``) at this depot's port and certificates, with ``replace`` (old text: new
        text) applied; its path."""
        text = (SAMPLES / (sample or f"{role}-tls-auth.json5")).read_text()
        text = text.replace('"certs/', f'"{self.folder}/certs/')
        text = text.replace("0.0.0.0:7447", f"127.0.0.1:{self.port}")
        text = text.replace("localhost:7447", f"localhost:{self.port}")
        for old, new in replace.items():
            assert old in text, f"the {role} sample no longer has {old!r}"
            text = text.replace(old, new)
        path = self.folder / f"{name or role}.json5"
        path.write_text(text)
        return str(path)


def make_depot(folder: Path) -> Depot:
    make_certs(folder / "certs")
    make_certs(folder / "certs", prefix="rogue-")  # a CA that did not sign the router's
    users = ("station", "robot", *ROLE_USERS)
    (folder / "certs" / "users.txt").write_text(
        "".join(f"{user}:{user}-password\n" for user in users))
    return Depot(folder, free_port())
