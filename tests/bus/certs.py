"""Certificates made for a test, as an operator makes them with openssl: a CA of one's own
and a router certificate it signs, for the names clients connect by."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LOOPBACK_NAMES = ("localhost", "127.0.0.1")


@dataclass(frozen=True)
class Certs:
    ca: Path
    router: Path
    router_key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def make_certs(folder: Path, prefix: str = "",
               names: tuple[str, ...] = LOOPBACK_NAMES) -> Certs:
    """``<prefix>ca.pem`` and ``<prefix>router.pem`` / ``router-key.pem`` (valid for
    ``names``, DNS names or IP addresses) in ``folder``."""
    now = datetime.datetime.now(datetime.UTC)
    valid = (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder()
          .subject_name(_name(f"{prefix}test CA")).issuer_name(_name(f"{prefix}test CA"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(valid[0]).not_valid_after(valid[1])
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False),
                         critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    alt_names: list[x509.GeneralName] = []
    for name in names:
        try:
            alt_names.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt_names.append(x509.DNSName(name))
    router = (x509.CertificateBuilder()
              .subject_name(_name("test router")).issuer_name(ca.subject)
              .public_key(key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(valid[0]).not_valid_after(valid[1])
              .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
              .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                             critical=False)
              .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    return Certs(
        ca=_pem(folder / f"{prefix}ca.pem", ca.public_bytes(pem)),
        router=_pem(folder / f"{prefix}router.pem", router.public_bytes(pem)),
        router_key=_pem(folder / f"{prefix}router-key.pem", key.private_bytes(
            pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())),
    )
