"""Which cluster a request to the API port's root address is for: the credential says.

One API server address serves every cluster, as a real cluster's does (`https://HOST:API_PORT`,
no path). A token of the form `<cluster>.<hmac>` (a student's sandbox token, a teacher's cluster
token: cluster/auth/access.py) names its cluster; the presenter token, no token and any other
credential name the class demo. Nothing is verified here: the request then goes through
`get_cluster` like any other, so a forged name is 401, a cluster the caller may not see 404.
`/clusters/NAME/…` names its cluster in the path and needs none of this.
"""

from __future__ import annotations

import re

DEFAULT_CLUSTER = "demo"
_NAMED = re.compile(r"(?P<cluster>[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)\.[0-9a-f]{40}")


def token_of(authorization: str) -> str:
    """The bearer token of an Authorization header ("" when there is none)."""
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def cluster_named_by(authorization: str) -> str:
    """The cluster a request with this Authorization header is for at the root address."""
    named = _NAMED.fullmatch(token_of(authorization))
    return named["cluster"] if named else DEFAULT_CLUSTER
