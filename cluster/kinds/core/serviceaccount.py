"""ServiceAccounts (core/v1, `serviceaccounts`, short name `sa`): upstream
`pkg/registry/core/serviceaccount` (namespaced, no status), ValidateServiceAccount (metadata only),
printServiceAccount (NAME, SECRETS, AGE), kubectl's ServiceAccountDescriber, and the `token`
subresource (TokenRequest, `kubectl create token`: cluster/api/tokenrequest.py).

Every namespace has a `default` ServiceAccount (cluster/kinds/core/everynamespace.py), as the
serviceaccounts controller keeps one in each.
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.kinds import BuiltinObjects, KindInfo, Subresource
from cluster.apiserver.validators import metadata_only
from cluster.kinds.core import everynamespace
from cluster.kubeapi.describe import events_of, object_head, with_events
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock

DEFAULT = "default"


def _default_account(cluster, namespace: str, name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": everynamespace.metadata(cluster, "ServiceAccount", namespace, name),
    }


# -- kubectl get ----------------------------------------------------------------------------------
def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], len(obj.get("secrets") or []), age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Secrets", "string", "", 0), AGE_COLUMN), _row)


# -- kubectl describe -----------------------------------------------------------------------------
_HEADERS = ("Image pull secrets:", "Mountable secrets: ", "Tokens:            ")
_CONTINUED = "                   "


def describe_service_account(account: dict, events: list[dict], now: datetime) -> str:
    """describeServiceAccount: the three lists of secret names under their padded headers."""
    pull = [str((ref or {}).get("name", "")) for ref in account.get("imagePullSecrets") or []]
    mount = [str((ref or {}).get("name", "")) for ref in account.get("secrets") or []]
    lines = object_head(account)
    for header, names in zip(_HEADERS, (pull, mount, []), strict=True):
        if not names:
            lines.append(f"{header}\t<none>")
        for index, name in enumerate(names):
            lines.append(f"{header if index == 0 else _CONTINUED}\t{name}")
    return with_events(lines, events, now)


def describe(read, namespace: str, name: str) -> str:
    account = read.get("ServiceAccount", namespace, name)
    return describe_service_account(account, events_of(read, account), clock.now())


KIND = KindInfo(
    kind="ServiceAccount",
    plural="serviceaccounts",
    singular="serviceaccount",
    group="",
    version="v1",
    namespaced=True,
    short_names=("sa",),
    subresources=(Subresource("token", "TokenRequest", ("create",), "authentication.k8s.io", "v1"),),
    reset_rank=60,  # after the pods that run as one
    defaults=no_defaults,
    validate=metadata_only,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        build=_default_account,
        stored_on_write=True,
        in_every_namespace=DEFAULT,
        namespaces=everynamespace.namespaces,
    ),
)
