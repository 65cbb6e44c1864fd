"""nslookup and ping: names through the cluster's DNS, and what answers an echo request."""

from __future__ import annotations

from cluster.shell import dns
from cluster.shell.context import CLUSTER_DNS_IP, KUBERNETES_SERVICE_IP


def nslookup(sh, argv, io) -> int:
    names = [a for a in argv[1:] if not a.startswith("-")]
    if not names:
        io.write_err("BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\n")
        io.write_err("Usage: nslookup HOST [DNS_SERVER]\n")
        return 1
    out = f"Server:\t\t{CLUSTER_DNS_IP}\nAddress:\t{CLUSTER_DNS_IP}:53\n\n"
    found = dns.resolve_all(sh.ctx, names[0])
    if found is None:
        for fqdn in dns.candidates(sh.ctx, names[0]):
            out += f"** server can't find {fqdn}: NXDOMAIN\n\n"
        io.write_out(out)
        return 1
    name, addresses = found
    io.write_out(out + "".join(f"Name:\t{name}\nAddress: {address}\n" for address in addresses) + "\n")
    return 0


def getent(sh, argv, io) -> int:
    """`getent hosts NAME`: the resolver's answer as glibc prints it (exit 2 when not found)."""
    if len(argv) < 3 or argv[1] not in ("hosts", "ahosts"):
        io.write_err(f"Unknown database: {argv[1]}\n" if len(argv) > 1 else "")
        return 1
    found = dns.resolve_all(sh.ctx, argv[2])
    if found is None:
        return 2
    name, addresses = found
    shown = name if name == argv[2] else f"{name}"
    io.write_out("".join(f"{address:<15} {shown}\n" for address in addresses))
    return 0


def _answers_echo(sh, address: str) -> bool:
    """Pods answer pings; a Service's ClusterIP is virtual (kube-proxy rules), so it does not."""
    if address == KUBERNETES_SERVICE_IP or (sh.ctx.services and sh.ctx.services.by_ip(address)):
        return False
    if address in ("127.0.0.1", sh.ctx.pod_ip):
        return True
    return bool(sh.ctx.find_pod_by_ip and sh.ctx.find_pod_by_ip(address))


def ping(sh, argv, io) -> int:
    args = iter(argv[1:])
    count, host = 4, ""  # without -c real ping runs until Ctrl+C; here it stops after 4
    for arg in args:
        if arg == "-c":
            count = max(1, int(next(args, "4") or 4))
        elif not arg.startswith("-"):
            host = arg
    if not host:
        io.write_err("ping: usage error: Destination address required\n")
        return 1
    found = dns.resolve(sh.ctx, host)
    if found is None:
        io.write_err(f"ping: bad address '{host}'\n")
        return 1
    address = found[1]
    replies = count if _answers_echo(sh, address) else 0
    lines = [f"PING {host} ({address}): 56 data bytes"]
    times = [0.071 + 0.001 * n for n in range(replies)]  # the same node's bridge: microseconds
    lines += [f"64 bytes from {address}: seq={n} ttl=64 time={t:.3f} ms" for n, t in enumerate(times)]
    loss = 100 - round(100 * replies / count)
    lines += ["", f"--- {host} ping statistics ---",
              f"{count} packets transmitted, {replies} packets received, {loss}% packet loss"]  # fmt: skip
    if replies:
        lines.append(
            f"round-trip min/avg/max = {min(times):.3f}/{sum(times) / len(times):.3f}/{max(times):.3f} ms"
        )
    io.write_out("\n".join(lines) + "\n")
    return 0 if replies else 1


PROGRAMS = {"nslookup": nslookup, "ping": ping, "getent": getent}
