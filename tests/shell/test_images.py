"""Each image's files, programs and answers, and the runtime's view of a missing program."""

from __future__ import annotations

import pytest

from cluster.shell.images_files import NGINX_INDEX
from tests.shell.support import context, run, sh

pytestmark = pytest.mark.django_db


def test_nginx_files_and_links():
    assert run(["cat", "/usr/share/nginx/html/index.html"])[1] == NGINX_INDEX
    assert "include /etc/nginx/conf.d/*.conf;" in run(["cat", "/etc/nginx/nginx.conf"])[1]
    assert "root   /usr/share/nginx/html;" in run(["cat", "/etc/nginx/conf.d/default.conf"])[1]
    assert run(["cat", "/docker-entrypoint.sh"])[1].startswith("#!/bin/sh\n")
    long = run(["ls", "-l", "/var/log/nginx"])[1]
    assert "access.log -> /dev/stdout" in long and "error.log -> /dev/stderr" in long


def test_versions_follow_the_tag():
    assert run(["nginx", "-v"], "nginx:1.25") == (0, "", "nginx version: nginx/1.25.5\n")
    assert run(["nginx", "-v"], "nginx:1.14")[2] == "nginx version: nginx/1.14.2\n"
    assert run(["redis-cli", "ping"], "redis:7") == (0, "PONG\n", "")
    assert run(["redis-cli", "--version"], "redis:6")[1] == "redis-cli 6.2.18\n"
    assert run(["httpd", "-v"], "httpd:2.4")[1].startswith("Server version: Apache/2.4.63 (Unix)\n")
    assert run(["python", "--version"], "python:3.12")[1] == "Python 3.12.11\n"
    assert "mysql  Ver 8.0.42" in run(["mysql", "--version"], "mysql:8.0")[1]


def test_busybox_has_sh_but_no_bash():
    status, out, _err = run(["bash"], "busybox:1.36")
    assert status == 127
    assert out == (
        "OCI runtime exec failed: exec failed: unable to start container process: "
        'exec: "bash": executable file not found in $PATH: unknown\n'
    )
    assert run(["sh", "-c", "echo ok"], "busybox:1.36")[1] == "ok\n"
    assert run(["cat", "/etc/os-release"], "alpine:3.20")[1].startswith('NAME="Alpine Linux"\n')


def test_distroless_images_have_no_shell():
    assert run(["sh"], "registry.k8s.io/pause:3.10")[0] == 127


def test_working_directory_is_the_images():
    assert run(["pwd"], "httpd:2.4")[1] == "/usr/local/apache2\n"
    assert run(["pwd"], "redis:7")[1] == "/data\n"
    assert run(["pwd"], "nginx:1.25")[1] == "/\n"


def test_environment_has_the_container_env_and_the_kubernetes_service():
    ctx = context(spec_env=[("GREETING", "hi")])
    env = run(["env"], ctx=ctx)[1].splitlines()
    assert env[0].startswith("PATH=") and env[1] == "HOSTNAME=web"
    assert "GREETING=hi" in env and "NGINX_VERSION=1.25.5" in env
    assert "KUBERNETES_SERVICE_HOST=10.96.0.1" in env and "KUBERNETES_SERVICE_PORT=443" in env
    assert run(["printenv", "GREETING"], ctx=ctx)[1] == "hi\n"
    assert run(["printenv", "NOPE"], ctx=ctx)[0] == 1


def test_who_and_where():
    assert run(["hostname"])[1] == "web\n"
    assert run(["id"])[1] == "uid=0(root) gid=0(root) groups=0(root)\n"
    assert run(["whoami"])[1] == "root\n"
    assert run(["uname", "-a"])[1].startswith("Linux web 5.15.0-122-generic ")
    assert run(["cat", "/etc/hostname"])[1] == "web\n"
    assert "10.244.1.5\tweb" in run(["cat", "/etc/hosts"])[1]
    assert run(["cat", "/etc/resolv.conf"])[1].startswith("search default.svc.cluster.local ")
    df = run(["df"])[1].splitlines()
    assert df[0].split() == ["Filesystem", "1K-blocks", "Used", "Available", "Use%", "Mounted", "on"]
    assert df[1].startswith("overlay ") and df[1].endswith(" /")


def test_ps_where_the_image_has_it():
    out = run(["ps"], "busybox:1.36", ctx=context("busybox:1.36", command=["sleep", "3600"]))[1]
    assert out.splitlines()[0] == "PID   USER     TIME  COMMAND"
    assert "    1 root      0:00 sleep 3600" in out
    assert run(["ps"], "nginx:1.25")[0] == 127  # Debian's nginx image ships without procps
    full = run(["ps", "aux"], "tomcat:9")[1]
    assert "org.apache.catalina.startup.Bootstrap start" in full.splitlines()[1]


def test_the_overlay_lives_as_long_as_the_container():
    ctx = context()
    assert sh("mkdir -p /srv/a/b && touch /srv/a/b/f && ls /srv/a/b", ctx=ctx)[1] == "f\n"
    assert sh("rm /etc/nginx/nginx.conf; cat /etc/nginx/nginx.conf", ctx=ctx)[2] == (
        "cat: /etc/nginx/nginx.conf: No such file or directory\n"
    )
    restarted = context(container_id="docker://another")
    assert sh("ls /srv", ctx=restarted)[1] == ""
    assert "worker_processes" in sh("cat /etc/nginx/nginx.conf", ctx=restarted)[1]


def test_curl_and_wget_reach_the_simulated_servers():
    ctx = context()
    assert run(["curl", "-s", "localhost"], ctx=ctx)[1] == NGINX_INDEX
    head = run(["curl", "-I", "http://127.0.0.1/"], ctx=ctx)[1]
    assert head.startswith("HTTP/1.1 200 OK\r\nServer: nginx/1.25.5\r\n")
    assert "404 Not Found" in run(["curl", "-s", "localhost/missing"], ctx=ctx)[1]
    assert run(["curl", "localhost:8080"], ctx=ctx)[2].startswith(
        "curl: (7) Failed to connect to localhost port 8080"
    )
    assert run(["curl", "web-svc"], ctx=ctx)[2] == "curl: (6) Could not resolve host: web-svc\n"
    peer = context("httpd:2.4", pod="apache")
    ctx = context("busybox:1.36", find_pod_by_ip=lambda ip: [peer] if ip == "10.244.2.7" else [])
    assert (
        run(["wget", "-qO-", "http://10.244.2.7"], ctx=ctx)[1]
        == "<html><body><h1>It works!</h1></body></html>\n"
    )


def test_the_kubernetes_service_answers_as_kube_apiserver_does_to_anonymous():
    assert run(["curl", "https://kubernetes.default"])[0] == 60  # the cluster's CA is not trusted
    forbidden = run(["curl", "-sk", "https://kubernetes.default.svc/api"])[1]
    assert '"message": "forbidden: User \\"system:anonymous\\" cannot get path \\"/api\\""' in forbidden
    version = run(["curl", "-k", "https://10.96.0.1/version"])[1]
    assert '"gitVersion": "v1.33.1"' in version
    assert run(["curl", "-k", "https://kubernetes/healthz"])[1] == "ok"


def test_which_ls_long_options_and_programs_not_simulated():
    assert run(["which", "nginx"])[1] == "/usr/sbin/nginx\n"
    assert run(["which", "bash"], "busybox:1.36")[0] == 1
    assert run(["ls", "--color=auto", "/etc/nginx"])[1] == "conf.d\nmime.types\nnginx.conf\n"
    status, _out, err = run(["apt-get", "update"])
    assert status == 126 and "KubeSim does not simulate it" in err
    assert run(["apt-get", "update"], "alpine:3.20")[0] == 127  # alpine has apk, not apt


def test_env_from_field_references(demo_cluster):
    from cluster.shell.pods import spec_env

    pod = {"metadata": {"name": "web", "namespace": "default"}, "spec": {"nodeName": "node1"},
           "status": {"podIP": "10.244.1.5"}}  # fmt: skip
    env = [
        {"name": "A", "value": "1"},
        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
    ]
    assert spec_env(demo_cluster, pod, {"env": env}) == [("A", "1"), ("POD", "web"), ("IP", "10.244.1.5"),
                                                          ("NODE", "node1")]  # fmt: skip


def test_names_resolve_through_the_cluster_dns():
    peer = context("nginx:1.25", pod="other")
    ctx = context("busybox:1.36", find_pod_by_ip=lambda ip: [peer] if ip == "10.244.2.7" else [])
    status, out, _err = run(["nslookup", "kubernetes.default"], ctx=ctx)
    assert status == 0
    assert out == (
        "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n"
        "Name:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n"
    )
    status, out, _err = run(["nslookup", "web-svc"], ctx=ctx)
    assert status == 1 and "** server can't find web-svc.default.svc.cluster.local: NXDOMAIN" in out
    assert (
        "<h1>Welcome to nginx!</h1>"
        in run(["wget", "-qO-", "10-244-2-7.default.pod.cluster.local"], ctx=ctx)[1]
    )
    assert run(["ping", "-c", "2", "10.244.2.7"], ctx=ctx)[1].splitlines()[-2] == (
        "2 packets transmitted, 2 packets received, 0% packet loss"
    )
    lost = run(["ping", "-c", "1", "kubernetes.default"], ctx=ctx)  # a ClusterIP is virtual
    assert lost[0] == 1 and "1 packets transmitted, 0 packets received, 100% packet loss" in lost[1]


def test_agnhost_serves_what_its_arguments_say():
    from cluster.shell import agnhost

    assert agnhost.server_of("agnhost", ["liveness"]) == ("liveness", 8080)
    assert agnhost.server_of("agnhost", ["/agnhost", "netexec", "--http-port=8081"]) == ("netexec", 8081)
    assert agnhost.server_of("agnhost", ["serve-hostname"]) == ("serve-hostname", 9376)
    assert agnhost.server_of("agnhost", ["pause"]) is None and agnhost.server_of("nginx", ["netexec"]) is None
    ctx = context("registry.k8s.io/e2e-test-images/agnhost:2.40", command=["netexec"])
    assert run(["curl", "-s", "localhost:8080/hostname"], ctx=ctx)[1] == "web"
    assert run(["curl", "-s", "localhost:8080/echo?msg=hi"], ctx=ctx)[1] == "hi"
