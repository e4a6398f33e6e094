"""Why a zenoh session reaches none of its connect endpoints, in one line a user understands.

zenoh itself only says "Unable to connect to any of [...]": a refused password, an untrusted
certificate and a router that is not running read the same. So this retraces the way zenoh
connects, with plain sockets and Python's ``ssl``: a TCP connection, then for ``tls/``
endpoints a TLS handshake with the configured CA. When both succeed, what is left is zenoh's
own handshake, where a router turns a session away for its user name and password. zenoh
does not say which of the two was wrong, nor tell a wrong password from a router that uses
none; whether we gave any, our own config says.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import zenoh

from app.bus.config import connect_endpoints

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 2.0
FIRST_CHECK_S = 2.0  # a session just opened may still be linking: not a problem yet
RECHECK_S = 5.0  # how often a session without a link is probed again
SNIFF_TIMEOUT_S = 1.0  # a zenoh tcp listener sits silent on a TLS hello: that means "plain"
TLS_KEYS = "transport/link/tls"
USRPWD_KEYS = "transport/auth/usrpwd"
# OpenSSL's X509_V_ERR_* codes that have their own sentence
CERT_EXPIRED, CERT_NOT_YET_VALID = 10, 9
NAME_MISMATCH = {62, 64}  # a host name, an IP address the certificate does not hold


@dataclass(frozen=True)
class TlsSettings:
    root_ca: str | None = None
    verify_name: bool = True
    certificate: str | None = None  # mutual TLS: our own certificate and key
    private_key: str | None = None


def explain(conf: zenoh.Config) -> str:
    """One line: why each of ``conf``'s connect endpoints refused or did not answer."""
    endpoints = connect_endpoints(conf)
    tls = TlsSettings(
        root_ca=_get(conf, f"{TLS_KEYS}/root_ca_certificate"),
        verify_name=json.loads(conf.get_json(f"{TLS_KEYS}/verify_name_on_connect")) is not False,
        certificate=_get(conf, f"{TLS_KEYS}/connect_certificate"),
        private_key=_get(conf, f"{TLS_KEYS}/connect_private_key"),
    )
    user = _get(conf, f"{USRPWD_KEYS}/user")
    reasons = [f"{endpoint}: {probe(endpoint, tls, user)}" for endpoint in endpoints]
    return "; ".join(reasons) or "no endpoint to connect to"


class LinkCheck:
    """Why a session that keeps retrying has no link yet: :func:`explain` run on a thread of
    its own (a probe may take seconds), again every :data:`RECHECK_S` while asked."""

    def __init__(self, conf: zenoh.Config) -> None:
        self._conf = conf
        self._reason = ""
        self._due = time.monotonic() + FIRST_CHECK_S
        self._running = False
        self._lock = threading.Lock()

    def reason(self) -> str:
        """The latest explanation ("" until the first probe ends); starts a probe if due."""
        with self._lock:
            start = not self._running and time.monotonic() >= self._due
            self._running = self._running or start
            reason = self._reason
        if start:
            threading.Thread(target=self._check, name="link check", daemon=True).start()
        return reason

    def _check(self) -> None:
        try:
            reason = explain(self._conf)
        except Exception as exc:  # a probe's failure must not end the station's checks
            log.warning("link check failed: %s", exc)
            reason = ""
        with self._lock:
            self._reason = reason
            self._running = False
            self._due = time.monotonic() + RECHECK_S


def probe(endpoint: str, tls: TlsSettings, user: str | None) -> str:
    """Why ``endpoint`` turned a zenoh session away, as far as a probe can tell."""
    proto, _, address = endpoint.partition("/")
    address = address.split("?", 1)[0].split("#", 1)[0]
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]")
    if proto not in ("tcp", "tls") or not host or not port_text.isdigit():
        return "zenoh could not open a session there"
    port = int(port_text)
    if proto == "tls":
        problem = _tls_files_problem(tls)
        if problem:
            return problem
    try:
        raw = socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S)
    except socket.gaierror:
        return f"unknown host {host!r}"
    except ConnectionRefusedError:
        return "nothing listens there (connection refused)"
    except TimeoutError:
        return f"no answer within {PROBE_TIMEOUT_S:g} s (wrong address, or a firewall?)"
    except OSError as exc:
        return exc.strerror or str(exc)
    with raw:
        problem = _tls_problem(raw, host, tls) if proto == "tls" else _speaks_tls(raw, host)
    return problem or _refused(user)


def _get(conf: zenoh.Config, key: str) -> str | None:
    """A text setting of ``conf`` (a path, a user name), None where unset."""
    value = json.loads(conf.get_json(key))
    return None if value is None else str(value)


def _refused(user: str | None) -> str:
    if user:
        return (f"the router refused our user name and password (user {user!r}): wrong "
                "user or password, or a router that does not use passwords")
    return ("the router refused the session: it probably requires a user name and password "
            f"({USRPWD_KEYS}/user and password in the zenoh config)")


def _tls_files_problem(tls: TlsSettings) -> str:
    files = (("CA certificate", tls.root_ca), ("client certificate", tls.certificate),
             ("client private key", tls.private_key))
    for what, path in files:
        if path and not Path(path).is_file():
            return f"TLS: {what} file not found: {path}"
    return ""


def _context(tls: TlsSettings) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=tls.root_ca or None)
    context.check_hostname = tls.verify_name
    if tls.certificate and tls.private_key:
        context.load_cert_chain(tls.certificate, tls.private_key)
    return context


def _tls_problem(raw: socket.socket, host: str, tls: TlsSettings) -> str:
    try:
        context = _context(tls)
    except (OSError, ssl.SSLError) as exc:
        return f"TLS: cannot read our certificates: {exc}"
    try:
        with context.wrap_socket(raw, server_hostname=host) as conn:
            # TLS 1.3 sends a refused client certificate after the handshake: read a moment.
            conn.settimeout(0.3)
            with contextlib.suppress(TimeoutError):  # silence: it waits for zenoh's hello
                conn.recv(1)
    except ssl.SSLCertVerificationError as exc:
        return _untrusted(exc, host, tls)
    except ssl.SSLError as exc:
        if "ALERT" in str(exc.reason) and "CERTIFICATE" in str(exc.reason):
            return ("TLS: the router wants a client certificate it trusts (mutual TLS: "
                    f"{TLS_KEYS}/connect_certificate and connect_private_key)")
        return f"TLS handshake failed: {exc.reason or exc}"
    except TimeoutError:
        return "no TLS answer: is this a plain tcp/ endpoint?"
    except OSError as exc:
        return f"TLS handshake failed: {exc.strerror or exc}"
    return ""


def _untrusted(exc: ssl.SSLCertVerificationError, host: str, tls: TlsSettings) -> str:
    if exc.verify_code in NAME_MISMATCH:
        return (f"TLS: the router's certificate is not for {host!r} (connect by a name the "
                f"certificate holds, or set {TLS_KEYS}/verify_name_on_connect to false)")
    if exc.verify_code == CERT_EXPIRED:
        return "TLS: the router's certificate has expired"
    if exc.verify_code == CERT_NOT_YET_VALID:
        return "TLS: the router's certificate is not valid yet (check the clocks)"
    if tls.root_ca:
        return f"TLS: the router's certificate is not trusted: not signed by {tls.root_ca}"
    return (f"TLS: the router's certificate is not trusted (no CA given: set "
            f"{TLS_KEYS}/root_ca_certificate)")


def _speaks_tls(raw: socket.socket, host: str) -> str:
    """For a tcp/ endpoint: whether a TLS listener answers there instead."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    raw.settimeout(SNIFF_TIMEOUT_S)
    try:
        with context.wrap_socket(raw, server_hostname=host):
            return "the router speaks TLS there: connect to a tls/ endpoint"
    except (OSError, ssl.SSLError):
        return ""
