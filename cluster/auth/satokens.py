"""Service account tokens: JWTs signed with the cluster's own key, as kube-apiserver's TokenRequest
issues them (upstream `pkg/serviceaccount/claims.go`, `jwt.go`) and its authenticator checks them.

Each cluster has its own ECDSA P-256 signing key (ES256, as an apiserver given an EC
--service-account-signing-key-file signs), derived from SECRET_KEY, the cluster's name and its
row: nothing is stored, a token of one cluster is worthless on another, and a cluster made again
under the same name does not accept its predecessor's tokens. The claims are upstream's (`iss`,
`sub`, `aud`, `exp`, `iat`, `nbf`, `jti`, the private `kubernetes.io` claim naming the namespace,
the ServiceAccount and its uid, and the pod a bound token is for) plus one of KubeSim's,
`kubesim.io/cluster`, which tells the one API address which cluster the token is for
(cluster/auth/addressing.py).

A token authenticates while its signature holds, it is between `nbf` and `exp`, it is meant for
the API server (`aud` holds the issuer), and its ServiceAccount (and pod, when bound) still exists
with the same uid; otherwise the request is 401 Unauthorized.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from django.conf import settings

ISSUER = "https://kubernetes.default.svc.cluster.local"  # kubeadm's --service-account-issuer
API_AUDIENCES = (ISSUER,)  # --api-audiences defaults to the issuer
CLUSTER_CLAIM = "kubesim.io/cluster"
PRIVATE_CLAIM = "kubernetes.io"
_CURVE_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # P-256's n


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@lru_cache(maxsize=256)
def _key(cluster_pk: int, cluster_name: str, secret: str) -> ec.EllipticCurvePrivateKey:
    seed = hmac.new(
        secret.encode(), f"service-account-key:{cluster_pk}:{cluster_name}".encode(), hashlib.sha512
    )
    scalar = int.from_bytes(seed.digest(), "big") % (_CURVE_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


def signing_key(cluster) -> ec.EllipticCurvePrivateKey:
    return _key(cluster.pk, cluster.name, settings.SECRET_KEY)


def key_id(cluster) -> str:
    """keyIDFromPublicKey: the SHA-256 of the public key's DER form, base64url."""
    der = (
        signing_key(cluster)
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return _b64(hashlib.sha256(der).digest())


def _sign(cluster, signing_input: bytes) -> str:
    r, s = decode_dss_signature(signing_key(cluster).sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return _b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def issue(
    cluster, account: dict, audiences: list[str], seconds: int, bound: dict | None = None
) -> tuple[str, int]:
    """A signed token for the ServiceAccount `account`; (the token, its expiry in Unix seconds)."""
    now = int(time.time())
    meta = account["metadata"]
    private: dict = {
        "namespace": meta["namespace"],
        "serviceaccount": {"name": meta["name"], "uid": meta.get("uid", "")},
    }
    if bound is not None:  # a pod's projected token names its pod (and upstream its node, too)
        private[bound["kind"].lower()] = {"name": bound["name"], "uid": bound["uid"]}
    claims = {
        "aud": list(audiences),
        "exp": now + seconds,
        "iat": now,
        "iss": ISSUER,
        "jti": str(uuid.uuid4()),
        CLUSTER_CLAIM: cluster.name,
        PRIVATE_CLAIM: private,
        "nbf": now,
        "sub": f"system:serviceaccount:{meta['namespace']}:{meta['name']}",
    }
    header = {"alg": "ES256", "kid": key_id(cluster)}
    signing_input = f"{_b64(_json(header))}.{_b64(_json(claims))}"
    return f"{signing_input}.{_sign(cluster, signing_input.encode())}", now + seconds


def _json(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and token.startswith("eyJ")


def unverified_claims(token: str) -> dict:
    """The claims as written, before any check: only to route the request to its cluster."""
    try:
        claims = json.loads(_unb64(token.split(".")[1]))
    except (ValueError, IndexError):
        return {}
    return claims if isinstance(claims, dict) else {}


@dataclass(frozen=True)
class TokenSubject:
    """Who a valid token speaks for."""

    cluster: str
    namespace: str
    name: str
    uid: str
    jti: str
    pod: dict | None = None

    @property
    def username(self) -> str:
        return f"system:serviceaccount:{self.namespace}:{self.name}"

    @property
    def groups(self) -> tuple[str, ...]:
        return ("system:serviceaccounts", f"system:serviceaccounts:{self.namespace}", "system:authenticated")

    @property
    def extra(self) -> dict[str, list[str]]:
        extra = {"authentication.kubernetes.io/credential-id": [f"JTI={self.jti}"]}
        if self.pod:
            extra["authentication.kubernetes.io/pod-name"] = [self.pod.get("name", "")]
            extra["authentication.kubernetes.io/pod-uid"] = [self.pod.get("uid", "")]
        return extra


def verify(cluster, token: str, lookup) -> TokenSubject | None:
    """The token's subject if `cluster` signed it and it still holds; None otherwise.
    `lookup(kind, namespace, name)` reads an object of the cluster (None when there is none)."""
    try:
        head, body, signature = token.split(".")
        header = json.loads(_unb64(head))
        claims = json.loads(_unb64(body))
        raw = _unb64(signature)
    except ValueError:
        return None
    if (
        not isinstance(header, dict)
        or not isinstance(claims, dict)
        or header.get("alg") != "ES256"
        or len(raw) != 64
    ):
        return None
    try:
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        signing_key(cluster).public_key().verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return None
    now = time.time()
    audiences = claims.get("aud") if isinstance(claims.get("aud"), list) else [claims.get("aud")]
    private = claims.get(PRIVATE_CLAIM) if isinstance(claims.get(PRIVATE_CLAIM), dict) else {}
    account = private.get("serviceaccount") if isinstance(private.get("serviceaccount"), dict) else {}
    if (
        claims.get("iss") != ISSUER
        or claims.get(CLUSTER_CLAIM) != cluster.name
        or not isinstance(claims.get("exp"), int)
        or claims["exp"] <= now
        or (isinstance(claims.get("nbf"), int) and claims["nbf"] > now + 60)
        or not set(audiences) & set(API_AUDIENCES)
    ):
        return None
    namespace, name = str(private.get("namespace", "")), str(account.get("name", ""))
    stored = lookup("ServiceAccount", namespace, name)
    if stored is None or stored["metadata"].get("uid") != account.get("uid"):
        return None  # deleted (or deleted and made again): its tokens are void, as upstream's
    pod = private.get("pod") if isinstance(private.get("pod"), dict) else None
    if pod is not None:
        running = lookup("Pod", namespace, str(pod.get("name", "")))
        if running is None or running["metadata"].get("uid") != pod.get("uid"):
            return None
    return TokenSubject(
        cluster.name, namespace, name, str(account.get("uid", "")), str(claims.get("jti", "")), pod
    )
