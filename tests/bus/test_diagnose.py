"""The reasons a refused connection is given, each against a real zenoh router on loopback
(test_security.py covers passwords and CAs with the shipped configs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.bus.diagnose import TlsSettings, probe
from app.bus.session import BusError, BusSession
from tests.bus.certs import Certs, make_certs
from tests.conftest import free_port


def tls_router(folder: Path, certs: Certs, mtls: bool = False) -> tuple[BusSession, int]:
    port = free_port()
    config = folder / "router.json5"
    config.write_text(json.dumps({
        "mode": "router", "listen": {"endpoints": [f"tls/127.0.0.1:{port}"]},
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
        "transport": {"link": {"tls": {
            "listen_certificate": str(certs.router), "listen_private_key": str(certs.router_key),
            "root_ca_certificate": str(certs.ca), "enable_mtls": mtls}}},
    }))
    return BusSession(BusConfig(config_file=str(config))), port


@pytest.fixture
def router_elsewhere(tmp_path: Path) -> Iterator[tuple[Certs, int]]:
    """A TLS router whose certificate is for another name than the loopback address."""
    certs = make_certs(tmp_path, names=("robots.example",))
    router, port = tls_router(tmp_path, certs)
    try:
        yield certs, port
    finally:
        router.close()


def test_a_certificate_for_another_name(router_elsewhere) -> None:
    certs, port = router_elsewhere
    assert probe(f"tls/127.0.0.1:{port}", TlsSettings(root_ca=str(certs.ca)), None) == (
        "TLS: the router's certificate is not for '127.0.0.1' (connect by a name the "
        "certificate holds, or set transport/link/tls/verify_name_on_connect to false)")
    # Not checking the name, the link is fine and what is left is zenoh's own handshake.
    unchecked = TlsSettings(root_ca=str(certs.ca), verify_name=False)
    assert probe(f"tls/127.0.0.1:{port}", unchecked, "station").startswith(
        "the router refused our user name and password (user 'station')")


def test_a_router_that_wants_client_certificates(tmp_path: Path) -> None:
    certs = make_certs(tmp_path)
    router, port = tls_router(tmp_path, certs, mtls=True)
    try:
        with pytest.raises(BusError) as refused:
            BusSession(BusConfig(mode="client", connect=[f"tls/localhost:{port}"],
                                 config_file=_client_config(tmp_path, certs)))
    finally:
        router.close()
    assert str(refused.value) == (
        f"cannot connect to tls/localhost:{port}: TLS: the router wants a client certificate "
        "it trusts (mutual TLS: transport/link/tls/connect_certificate and "
        "connect_private_key)")


def _client_config(folder: Path, certs: Certs) -> str:
    path = folder / "client.json5"
    path.write_text(json.dumps({
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
        "transport": {"link": {"tls": {"root_ca_certificate": str(certs.ca)}}}}))
    return str(path)


def test_nothing_listening_and_a_plain_router_on_a_tls_endpoint(free_endpoint: str) -> None:
    port = free_endpoint.rsplit(":", 1)[1]
    assert probe(f"tcp/127.0.0.1:{port}", TlsSettings(), None) == (
        "nothing listens there (connection refused)")
    plain = BusSession(BusConfig(mode="router", listen=[free_endpoint]))
    try:
        assert probe(f"tls/127.0.0.1:{port}", TlsSettings(), None) == (
            "no TLS answer: is this a plain tcp/ endpoint?")
    finally:
        plain.close()


def test_an_unknown_host_and_an_endpoint_it_cannot_probe() -> None:
    assert probe("tcp/no-such-host.invalid:7447", TlsSettings(), None) == (
        "unknown host 'no-such-host.invalid'")
    assert probe("udp/127.0.0.1:7447", TlsSettings(), None) == (
        "zenoh could not open a session there")
