"""curl and wget, answered by the simulated servers of this container or of another pod."""

from __future__ import annotations

import posixpath
from urllib.parse import urlsplit

from cluster.shell import agnhost, apicall, dns, web
from cluster.shell.context import KUBERNETES_SERVICE_IP
from cluster.shell.filesystem import FileSystem, FsError

SERVICE_ACCOUNT_CA = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
CERTIFICATE_PROBLEM = (
    "curl: (60) SSL certificate problem: unable to get local issuer certificate\n"
    "More details here: https://curl.se/docs/sslcerts.html\n\n"
    "curl failed to verify the legitimacy of the server and therefore could not\n"
    "establish a secure connection to it. To learn more about this situation and\n"
    "how to fix it, please visit the web page mentioned above.\n"
)


class Unreachable(Exception):
    def __init__(self, kind: str, host: str, port: int) -> None:
        self.kind, self.host, self.port = kind, host, port


def _api_server(sh, headers: dict[str, str]):
    """kube-apiserver behind the `kubernetes` Service: with a bearer token, the cluster's own API
    (cluster/shell/apicall.py); without one, what it answers an anonymous caller."""
    authorization = headers.get("authorization", "")
    if not authorization:
        return web.api_server
    agent = headers.get("user-agent", "curl/8.5.0")
    return lambda path, method: apicall.call(sh.ctx.cluster, path, method, authorization, agent)


def _headers(values: list[str]) -> dict[str, str]:
    found = {}
    for value in values:
        name, _, text = value.partition(":")
        found[name.strip().lower()] = text.strip()
    return found


def _target(sh, url: str, headers: dict[str, str] | None = None):
    """(respond(path, method) -> Response, path, tls) of the server a URL reaches; raises Unreachable.
    The host goes through the pod's DNS (cluster/shell/dns.py) like any name in the pod."""
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    ctx = sh.ctx
    found = dns.resolve(ctx, "localhost" if host == "::1" else host)
    if found is None:
        raise Unreachable("resolve", host, port)
    address = found[1]
    if address == KUBERNETES_SERVICE_IP:
        if port != 443:
            raise Unreachable("refused", host, port)
        return _api_server(sh, headers or {}), path, True
    if ctx.services is not None and ctx.services.by_ip(address) is not None:
        # A ClusterIP: kube-proxy sends the connection to a ready endpoint at its target port.
        route = ctx.services.route(address, port)
        if isinstance(route, str):
            raise Unreachable(route, host, port)
        address, port = route
    elif ctx.services is not None and address in ctx.services.nodes:
        # A node's address: kube-proxy there forwards a Service's nodePort to a ready endpoint;
        # any other port is the node's own (its hostNetwork pods', or closed: refused).
        route = ctx.services.node_port_route(address, port)
        if isinstance(route, str):
            raise Unreachable(route, host, port)
        if route is not None:
            address, port = route
    if address in ("127.0.0.1", ctx.pod_ip):
        # The pod's containers share its network: localhost reaches the others' servers too.
        mates = ctx.find_pod_by_ip(ctx.pod_ip) if ctx.find_pod_by_ip and ctx.pod_ip else []
        containers = [(ctx, sh.fs), *((mate, None) for mate in mates if mate.container != ctx.container)]
    else:
        peers = ctx.find_pod_by_ip(address) if ctx.find_pod_by_ip else []
        if not peers:
            on_node = ctx.services is not None and address in ctx.services.nodes
            raise Unreachable("refused" if on_node else "timeout", host, port)
        containers = [(peer, None) for peer in peers]
    for peer, fs in containers:
        served = agnhost.server_of(peer.profile.family, peer.command)
        if served is not None and served[1] == port:
            return (
                lambda path, method, sub=served[0], peer=peer: agnhost.serve(
                    sub, path, peer.hostname, peer.started_at
                ),
                path,
                False,
            )
        profile = peer.profile
        if profile.port == port and port and web.speaks_http(profile):
            fs = fs or FileSystem(peer)
            return (
                (lambda path, method, profile=profile, fs=fs: web.serve(profile, fs, path, method)),
                path,
                False,
            )
        if profile.port == port and port:
            raise Unreachable("not-http", host, port)
    raise Unreachable("refused", host, port)


def curl(sh, argv, io) -> int:
    args = iter(argv[1:])
    url, output, head, include, silent, insecure = "", None, False, False, False, False
    headers: list[str] = []
    for arg in args:
        if arg in ("-H", "--header"):
            headers.append(next(args, ""))
        elif arg in ("-A", "--user-agent"):
            headers.append(f"User-Agent: {next(args, '')}")
        elif arg in ("-o", "--output"):
            output = next(args, None)
        elif arg in ("-k", "--insecure"):
            insecure = True
        elif arg == "--cacert":
            insecure = next(args, "") == SERVICE_ACCOUNT_CA
        elif arg in ("-I", "--head"):
            head = True
        elif arg in ("-i", "--include"):
            include = True
        elif arg in ("-s", "--silent", "-sS", "-S"):
            silent = True
        elif arg in ("-m", "--max-time", "-X", "-d"):
            next(args, None)
        elif arg.startswith("-"):
            insecure = insecure or "k" in arg[1:]
            include = include or "i" in arg[1:]
            head = head or "I" in arg[1:]
            silent = silent or "s" in arg[1:]
        else:
            url = arg
    if not url:
        io.write_err("curl: try 'curl --help' or 'curl --manual' for more information\n")
        return 2
    try:
        respond, path, tls = _target(sh, url, _headers(headers))
    except Unreachable as exc:
        if exc.kind == "resolve":
            io.write_err(f"curl: (6) Could not resolve host: {exc.host}\n")
            return 6
        if exc.kind == "not-http":
            io.write_err("curl: (1) Received HTTP/0.9 when not allowed\n")
            return 1
        after = "after 0 ms" if exc.kind == "refused" else "after 3 ms"
        io.write_err(
            f"curl: (7) Failed to connect to {exc.host} port {exc.port} {after}: Couldn't connect to server\n"
        )
        return 7
    if tls and not insecure:
        io.write_err(CERTIFICATE_PROBLEM)
        return 60
    response = respond(path, "HEAD" if head else "GET")
    text = ""
    if head or include:
        status_line = f"HTTP/1.1 {response.status} {response.reason}".rstrip()
        text += "\r\n".join([status_line, *(f"{k}: {v}" for k, v in response.headers)]) + "\r\n\r\n"
    if not head:
        text += response.body
    if output:
        try:
            sh.fs.write(sh.fs.resolve(sh.cwd, output), text)
        except FsError as exc:
            io.write_err(f"curl: (23) Failure writing output to destination: {exc}\n")
            return 23
        if not silent:
            io.write_err(_progress(len(text.encode())))
        return 0
    io.write_out(text)
    return 0


def _progress(size: int) -> str:
    return (
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
        "                                 Dload  Upload   Total   Spent    Left  Speed\n"
        f"100   {size:>3}  100   {size:>3}    0     0   {size * 100:>5}      0 "
        f"--:--:-- --:--:-- --:--:-- {size * 100:>5}\n"
    )


def wget(sh, argv, io) -> int:
    args = iter(argv[1:])
    url, output, quiet = "", None, False
    headers = ["User-Agent: Wget"]
    for arg in args:
        if arg == "--header":
            headers.append(next(args, ""))
        elif arg.startswith("--header="):
            headers.append(arg[len("--header=") :])
        elif arg in ("-O",):
            output = next(args, None)
        elif arg.startswith("-O"):
            output = arg[2:]
        elif arg in ("-qO-", "-qO"):
            quiet = True
            output = "-" if arg == "-qO-" else next(args, None)
        elif arg == "-q":
            quiet = True
        elif arg in ("-T", "--timeout"):
            next(args, None)
        elif not arg.startswith("-"):
            url = arg
    if not url:
        io.write_err(
            "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: wget [OPTIONS] URL...\n"
        )
        return 1
    parts = urlsplit(url if "://" in url else "http://" + url)
    host = parts.hostname or ""
    try:
        respond, path, _tls = _target(sh, url, _headers(headers))
    except Unreachable as exc:
        if exc.kind == "resolve":
            io.write_err(f"wget: bad address '{exc.host}'\n")
        elif exc.kind == "not-http":
            io.write_err("wget: server returned error: HTTP/0.9\n")
        else:
            if not quiet:
                io.write_err(f"Connecting to {exc.host} ({exc.host}:{exc.port})\n")
            io.write_err(f"wget: can't connect to remote host ({exc.host}): Connection refused\n")
        return 1
    if not quiet:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        io.write_err(f"Connecting to {host} ({host}:{port})\n")
    response = respond(path, "GET")
    if response.status != 200:
        io.write_err(
            f"wget: server returned error: HTTP/1.1 {response.status} {response.reason}".rstrip() + "\n"
        )
        return 1
    if output == "-":
        io.write_out(response.body)
        return 0
    name = output or posixpath.basename(path.split("?")[0].rstrip("/")) or "index.html"
    try:
        sh.fs.write(sh.fs.resolve(sh.cwd, name), response.body)
    except FsError as exc:
        io.write_err(f"wget: can't open '{name}': {exc}\n")
        return 1
    if not quiet:
        size = len(response.body.encode())
        io.write_err(
            f"saving to '{name}'\n"
            f"{name:<21}100% |********************************| {size:>5}  0:00:00 ETA\n"
            f"'{name}' saved\n"
        )
    return 0


PROGRAMS = {"curl": curl, "wget": wget}
