"""What a name resolves to inside the pod, as CoreDNS answers: Services
(`web.default.svc.cluster.local`, through cluster/shell/services.py), pods by their dashed IP
(`10-244-1-5.default.pod.cluster.local`), this pod's own name via /etc/hosts."""

from __future__ import annotations

from cluster.shell.context import KUBERNETES_SERVICE_IP, ContainerContext

DOMAIN = "cluster.local"


def search_list(ctx: ContainerContext) -> list[str]:
    return [f"{ctx.namespace}.svc.{DOMAIN}", f"svc.{DOMAIN}", DOMAIN]


def _answers(ctx: ContainerContext, fqdn: str) -> list[str]:
    if ctx.services is not None and (found := ctx.services.answer(fqdn)):
        return found
    if fqdn == f"kubernetes.default.svc.{DOMAIN}":
        return [KUBERNETES_SERVICE_IP]
    head, _, rest = fqdn.partition(".")
    if rest.endswith(f".pod.{DOMAIN}"):
        ip = head.replace("-", ".")
        pieces = ip.split(".")
        if len(pieces) == 4 and all(p.isdigit() and int(p) < 256 for p in pieces):
            return [ip]
    return []


def candidates(ctx: ContainerContext, name: str) -> list[str]:
    """The names the resolver tries, in order (ndots:5: a short name goes through the search list)."""
    name = name.rstrip(".")
    searched = [f"{name}.{domain}" for domain in search_list(ctx)]
    return [*searched, name] if name.count(".") < 5 else [name, *searched]


def resolve_all(ctx: ContainerContext, name: str) -> tuple[str, list[str]] | None:
    """(the name that answered, its addresses) or None (NXDOMAIN)."""
    if name in ("localhost", ctx.hostname):
        return name, ["127.0.0.1" if name == "localhost" else (ctx.pod_ip or "127.0.0.1")]
    if _is_ip(name):
        return name, [name]
    for fqdn in candidates(ctx, name):
        addresses = _answers(ctx, fqdn)
        if addresses:
            return fqdn, addresses
    return None


def resolve(ctx: ContainerContext, name: str) -> tuple[str, str] | None:
    """(the name that answered, its first address) or None (NXDOMAIN)."""
    found = resolve_all(ctx, name)
    return (found[0], found[1][0]) if found else None


def _is_ip(text: str) -> bool:
    pieces = text.split(".")
    return len(pieces) == 4 and all(p.isdigit() for p in pieces)
