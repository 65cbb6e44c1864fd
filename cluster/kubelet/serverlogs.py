"""What the images' servers print when they start (nginx's entrypoint scripts, redis's banner):
the first lines of a server container's log."""

from __future__ import annotations

from cluster.kubelet.images import Image
from k8s import clock

_PROFILES = {
    "nginx": [
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
        "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
        "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
        "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
        "/docker-entrypoint.sh: Configuration complete; ready for start up",
        '{ts} [notice] 1#1: using the "epoll" event method',
        "{ts} [notice] 1#1: start worker processes",
    ],
    "httpd": [
        "AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using {ip}. "
        "Set the 'ServerName' directive globally to suppress this message",
        "[{ts}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4.62 (Unix) configured -- "
        "resuming normal operations",
        "[{ts}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'",
    ],
    "redis": [
        "1:C {ts} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
        "1:C {ts} * Redis version=7.2.5, bits=64, commit=00000000, modified=0, pid=1, just started",
        "1:M {ts} * monotonic clock: POSIX clock_gettime",
        "1:M {ts} * Running mode=standalone, port=6379.",
        "1:M {ts} * Server initialized",
        "1:M {ts} * Ready to accept connections tcp",
    ],
    "mysql": [
        "{ts} 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.39) starting as process 1",
        "{ts} 1 [System] [MY-013576] [InnoDB] InnoDB initialization has started.",
        "{ts} 1 [System] [MY-013577] [InnoDB] InnoDB initialization has ended.",
        "{ts} 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '8.0.39'  "
        "socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.",
    ],
    "tomcat": [
        "{ts} INFO [main] org.apache.catalina.startup.VersionLoggerListener.log Server version name:   "
        "Apache Tomcat/9.0.93",
        "{ts} INFO [main] org.apache.coyote.AbstractProtocol.start "
        'Starting ProtocolHandler ["http-nio-8080"]',
        "{ts} INFO [main] org.apache.catalina.startup.Catalina.start Server startup in [612] milliseconds",
    ],
}


def start_lines(image: Image | None, pod_ip: str) -> list[str]:
    """The server's start-up output, its own timestamps at the time it starts."""
    moment = clock.now()
    profile = _PROFILES.get(image.logs if image else "", [])
    return [template.format(ts=moment.strftime("%Y/%m/%d %H:%M:%S"), ip=pod_ip) for template in profile]
