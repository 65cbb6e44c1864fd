"""What a name resolves to inside the pod, as CoreDNS answers: the `kubernetes` Service, pods by
their dashed IP (`10-244-1-5.default.pod.cluster.local`), this pod's own name via /etc/hosts."""

from __future__ import annotations

from cluster.shell.context import KUBERNETES_SERVICE_IP, ContainerContext

DOMAIN = "cluster.local"


def search_list(ctx: ContainerContext) -> list[str]:
    return [f"{ctx.namespace}.svc.{DOMAIN}", f"svc.{DOMAIN}", DOMAIN]


def _answer(fqdn: str) -> str | None:
    if fqdn == f"kubernetes.default.svc.{DOMAIN}":
        return KUBERNETES_SERVICE_IP
    head, _, rest = fqdn.partition(".")
    if rest.endswith(f".pod.{DOMAIN}"):
        ip = head.replace("-", ".")
        pieces = ip.split(".")
        if len(pieces) == 4 and all(p.isdigit() and int(p) < 256 for p in pieces):
            return ip
    return None


def candidates(ctx: ContainerContext, name: str) -> list[str]:
    """The names the resolver tries, in order (ndots:5: a short name goes through the search list)."""
    name = name.rstrip(".")
    searched = [f"{name}.{domain}" for domain in search_list(ctx)]
    return [*searched, name] if name.count(".") < 5 else [name, *searched]


def resolve(ctx: ContainerContext, name: str) -> tuple[str, str] | None:
    """(the name that answered, its address) or None (NXDOMAIN)."""
    if name in ("localhost", ctx.hostname):
        return name, "127.0.0.1" if name == "localhost" else (ctx.pod_ip or "127.0.0.1")
    if _is_ip(name):
        return name, name
    for fqdn in candidates(ctx, name):
        address = _answer(fqdn)
        if address:
            return fqdn, address
    return None


def _is_ip(text: str) -> bool:
    pieces = text.split(".")
    return len(pieces) == 4 and all(p.isdigit() for p in pieces)
