"""The API server's TLS: a CA of our own and a serving certificate signed by it.

Generated at first run with the `cryptography` package into the state directory, as kubeadm
generates a cluster's CA and apiserver certificate. kubectl trusts the CA through the kubeconfig's
`certificate-authority-data`; the serving certificate names 127.0.0.1, localhost and the hosts in
ALLOWED_HOSTS, and is made again whenever that list of names changes.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from django.conf import settings

from cluster.auth.state import replace_private, state_dir, write_private

VALID_DAYS = 3650


@dataclass(frozen=True)
class TlsFiles:
    ca_cert: Path
    cert: Path
    key: Path

    def ca_pem(self) -> bytes:
        return self.ca_cert.read_bytes()


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _key_pem(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(subject: x509.Name, issuer: x509.Name, public_key) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
    )


def _make_ca(directory: Path) -> None:
    key = _key()
    name = _name("kubesim-ca")
    cert = (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(key, hashes.SHA256())
    )
    if write_private(directory / "ca.key", _key_pem(key)):
        replace_private(directory / "ca.crt", cert.public_bytes(serialization.Encoding.PEM))


def serving_names(hosts: list[str]) -> list[str]:
    """127.0.0.1, localhost and every concrete host name (no wildcards, no leading dots)."""
    names = ["127.0.0.1", "localhost", "::1"]
    for host in hosts:
        host = host.strip().strip("[]")
        if host and not host.startswith(".") and host != "*" and host not in names and host != "testserver":
            names.append(host)
    return names


def _san(names: list[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def _make_serving(directory: Path, names: list[str]) -> None:
    ca_key = serialization.load_pem_private_key((directory / "ca.key").read_bytes(), None)
    ca_cert = x509.load_pem_x509_certificate((directory / "ca.crt").read_bytes())
    key = _key()
    cert = (
        _builder(_name("kubesim-apiserver"), ca_cert.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_san(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    (directory / "apiserver.key").unlink(missing_ok=True)
    write_private(directory / "apiserver.key", _key_pem(key))
    replace_private(directory / "apiserver.crt", cert.public_bytes(serialization.Encoding.PEM))
    replace_private(directory / "apiserver.names", ("\n".join(names) + "\n").encode())


def ensure(hosts: list[str]) -> TlsFiles:
    """The CA and a serving certificate for `hosts`, generated if missing or if the names changed."""
    directory = state_dir() / "pki"
    directory.mkdir(mode=0o700, exist_ok=True)
    if not (directory / "ca.crt").exists():
        _make_ca(directory)
    names = serving_names(hosts)
    recorded = directory / "apiserver.names"
    current = recorded.read_text().split() if recorded.exists() else []
    if current != names or not (directory / "apiserver.crt").exists():
        _make_serving(directory, names)
    return TlsFiles(directory / "ca.crt", directory / "apiserver.crt", directory / "apiserver.key")


_ca_cache: dict[str, tuple[float, str]] = {}


def root_ca_pem() -> str:
    """The CA's certificate (PEM), what kube-root-ca.crt and a pod's ca.crt hold; read again only
    when the file changes."""
    path = state_dir() / "pki" / "ca.crt"
    if not path.exists():
        ensure(settings.ALLOWED_HOSTS)
    mtime = path.stat().st_mtime
    cached = _ca_cache.get(str(path))
    if cached is None or cached[0] != mtime:
        cached = _ca_cache[str(path)] = (mtime, path.read_text())
    return cached[1]
