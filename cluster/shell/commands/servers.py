"""The images' own programs: version and health commands of nginx, redis, httpd, mysql, tomcat, python."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.shell.filesystem import FileSystem


def nginx(sh, argv, io) -> int:
    version = sh.ctx.profile.version
    flags = argv[1:]
    if "-v" in flags:
        io.write_err(f"nginx version: nginx/{version}\n")
        return 0
    if "-V" in flags:
        io.write_err(
            f"nginx version: nginx/{version}\nbuilt by gcc 12.2.0 (Debian 12.2.0-14)\n"
            "built with OpenSSL 3.0.11 19 Sep 2023\nTLS SNI support enabled\n"
            "configure arguments: --prefix=/etc/nginx --sbin-path=/usr/sbin/nginx "
            "--conf-path=/etc/nginx/nginx.conf\n"
        )
        return 0
    if "-t" in flags:
        io.write_err(
            "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"
            "nginx: configuration file /etc/nginx/nginx.conf test is successful\n"
        )
        return 0
    stamp = datetime.now(UTC).strftime("%Y/%m/%d %H:%M:%S")
    if "-s" in flags:
        io.write_err(f"{stamp} [notice] 42#42: signal process started\n")
        return 0
    for _ in range(5):
        io.write_err(
            f"{stamp} [emerg] 42#42: bind() to 0.0.0.0:80 failed (98: Address already in use)\n"
            f"nginx: [emerg] bind() to 0.0.0.0:80 failed (98: Address already in use)\n"
        )
    io.write_err(f"{stamp} [emerg] 42#42: still could not bind()\nnginx: [emerg] still could not bind()\n")
    return 1


def redis_cli(sh, argv, io) -> int:
    args = argv[1:]
    if "--version" in args or "-v" in args:
        io.write_out(f"redis-cli {sh.ctx.profile.version}\n")
        return 0
    host = "127.0.0.1"
    while args and args[0] in ("-h", "-p", "-a", "-n"):
        if args[0] == "-h" and len(args) > 1:
            host = args[1]
        args = args[2:]
    own = host in ("127.0.0.1", "localhost", sh.ctx.pod_ip, sh.ctx.hostname)
    if not own or sh.ctx.profile.family != "redis":
        if not own:
            peers = sh.ctx.find_pod_by_ip(host) if sh.ctx.find_pod_by_ip else []
            for peer in peers:
                if peer.profile.family == "redis":
                    peer_fs = FileSystem(peer)
                    try:
                        return _redis_command(peer_fs.layer.kv, args, io, sh)
                    finally:
                        peer_fs.save()
        io.write_err(f"Could not connect to Redis at {host}:6379: Connection refused\n")
        return 1
    return _redis_command(sh.fs.layer.kv, args, io, sh)


def _redis_command(store: dict, args: list[str], io, sh) -> int:
    if not args:
        io.write_err("redis-cli: interactive mode needs a terminal; give the command as arguments\n")
        return 1
    command = args[0].lower()
    if command == "ping":
        io.write_out("PONG\n")
    elif command == "set" and len(args) >= 3:
        store[args[1]] = args[2]
        io.write_out("OK\n")
    elif command == "get" and len(args) == 2:
        value = store.get(args[1])
        io.write_out(
            f'"{value}"\n'
            if value is not None and sh.ctx.tty
            else f"{value}\n"
            if value is not None
            else ("(nil)\n" if sh.ctx.tty else "\n")
        )
    elif command == "keys":
        keys = sorted(store)
        io.write_out(
            "".join(f'{i}) "{k}"\n' for i, k in enumerate(keys, 1))
            if sh.ctx.tty
            else "".join(f"{k}\n" for k in keys)
        )
    elif command == "dbsize":
        io.write_out(f"{'(integer) ' if sh.ctx.tty else ''}{len(store)}\n")
    elif command == "info":
        io.write_out(
            f"# Server\r\nredis_version:{sh.ctx.profile.version}\r\nredis_mode:standalone\r\n"
            "os:Linux 5.15.0-122-generic x86_64\r\ntcp_port:6379\r\n"
        )
    else:
        io.write_out(f"(error) ERR unknown command '{args[0]}', with args beginning with: \n")
    return 0


def redis_server(sh, argv, io) -> int:
    if "--version" in argv or "-v" in argv:
        version = sh.ctx.profile.version
        io.write_out(
            f"Redis server v={version} sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=3f6fd4a9e1b1d5c2\n"
        )
        return 0
    io.write_err(
        "# Warning: Could not create server TCP listening socket *:6379: bind: Address already in use\n"
    )
    return 1


def httpd(sh, argv, io) -> int:
    if "-v" in argv or "-V" in argv:
        version = sh.ctx.profile.version
        io.write_out(f"Server version: Apache/{version} (Unix)\nServer built:   Jan 23 2025 00:57:55\n")
        return 0
    io.write_err(
        "(98)Address already in use: AH00072: make_sock: could not bind to address 0.0.0.0:80\n"
        "no listening sockets available, shutting down\nAH00015: Unable to open logs\n"
    )
    return 1


def mysql(sh, argv, io) -> int:
    version = sh.ctx.profile.version
    if "--version" in argv or "-V" in argv:
        io.write_out(f"mysql  Ver {version} for Linux on x86_64 (MySQL Community Server - GPL)\n")
        return 0
    io.write_err("ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: NO)\n")
    return 1


def mysqld(sh, argv, io) -> int:
    if "--version" in argv or "-V" in argv:
        version = sh.ctx.profile.version
        io.write_out(f"/usr/sbin/mysqld  Ver {version} for Linux on x86_64 (MySQL Community Server - GPL)\n")
        return 0
    return 1


def python(sh, argv, io) -> int:
    if "--version" in argv or "-V" in argv:
        io.write_out(f"Python {sh.ctx.profile.version}\n")
        return 0
    io.write_err("python: KubeSim runs no Python interpreter inside its containers; try python --version\n")
    return 126


def java(sh, argv, io) -> int:
    if any(a in ("-version", "--version") for a in argv):
        io.write_err(
            'openjdk version "21.0.4" 2024-07-16 LTS\n'
            "OpenJDK Runtime Environment Temurin-21.0.4+7 (build 21.0.4+7-LTS)\n"
            "OpenJDK 64-Bit Server VM Temurin-21.0.4+7 (build 21.0.4+7-LTS, mixed mode, sharing)\n"
        )
        return 0
    io.write_err("Usage: java [options] <mainclass> [args...]\n")
    return 1


def tomcat_version(sh, argv, io) -> int:
    version = sh.ctx.profile.version
    io.write_out(
        "Using CATALINA_BASE:   /usr/local/tomcat\nUsing CATALINA_HOME:   /usr/local/tomcat\n"
        f"Server version: Apache Tomcat/{version}\nServer number:  {version}.0\n"
        f"OS Name:        Linux\nOS Version:     5.15.0-122-generic\nArchitecture:   amd64\n"
        "JVM Version:    21.0.4+7-LTS\nJVM Vendor:     Eclipse Adoptium\n"
    )
    return 0


PROGRAMS = {
    "nginx": nginx,
    "redis-cli": redis_cli,
    "redis-server": redis_server,
    "httpd": httpd,
    "apachectl": httpd,
    "mysql": mysql,
    "mysqld": mysqld,
    "python": python,
    "python3": python,
    "java": java,
    "version.sh": tomcat_version,
}
