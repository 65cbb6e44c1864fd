"""The endpoints controllers follow the Service's selector and its pods' readiness; the kubelet
takes env and volumes from ConfigMaps and Secrets and waits (CreateContainerConfigError) while one
is missing; exec's curl reaches a Service through its endpoints."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.shell.pods import context_for
from tests.shell.support import run
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)


def back_off_elapsed() -> None:
    """The kubelet's back-off period has passed: its pending retries are due now."""
    kubelets = runtime._running["demo"].kubelets
    kubelets.retries = {key: (0.0, retry) for key, (_due, retry) in kubelets.retries.items()}


def pod(name: str, app: str = "web", **container) -> dict:
    spec = {"containers": [{"name": "app", "image": "nginx:1.27"} | container]}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": spec,
    }


def web_service(name: str = "web", app: str = "web") -> dict:
    spec = {"selector": {"app": app}, "ports": [{"port": 80}]}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def events_of(cluster, name: str) -> list[tuple[str, str, str]]:
    events, _ = api.list_objects(cluster, "Event", "default")
    ours = [e for e in events if e["involvedObject"]["name"] == name]
    ours.sort(key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["type"], e["reason"], e["message"]) for e in ours]


def test_endpoints_follow_the_selector_and_readiness(demo):
    api.create(demo, web_service(), KUBECTL)
    drive()
    assert "subsets" not in api.get(demo, "Endpoints", "default", "web")
    slices, _ = api.list_objects(demo, "EndpointSlice", "default", "kubernetes.io/service-name=web")
    assert len(slices) == 1 and slices[0]["endpoints"] is None
    assert slices[0]["metadata"]["ownerReferences"][0]["kind"] == "Service"

    api.create(demo, pod("ready"), KUBECTL)
    # Not ready: its env names a ConfigMap that does not exist yet.
    api.create(demo, pod("waiting", envFrom=[{"configMapRef": {"name": "settings"}}]), KUBECTL)
    api.create(demo, pod("other", app="db"), KUBECTL)
    drive()
    ips = {p: api.get(demo, "Pod", "default", p)["status"]["podIP"] for p in ("ready", "waiting")}
    endpoints = api.get(demo, "Endpoints", "default", "web")
    [subset] = endpoints["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == [ips["ready"]]
    assert [a["ip"] for a in subset["notReadyAddresses"]] == [ips["waiting"]]
    assert subset["addresses"][0]["targetRef"]["name"] == "ready"
    assert subset["ports"] == [{"port": 80, "protocol": "TCP"}]
    [eps] = api.list_objects(demo, "EndpointSlice", "default", "kubernetes.io/service-name=web")[0]
    ready = {e["targetRef"]["name"]: e["conditions"]["ready"] for e in eps["endpoints"]}
    assert ready == {"ready": True, "waiting": False}

    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"A": "1"}}
    api.create(demo, cm, KUBECTL)
    back_off_elapsed()
    drive()  # the kubelet's retry starts the container; then the endpoints follow
    [subset] = api.get(demo, "Endpoints", "default", "web")["subsets"]
    assert sorted(a["ip"] for a in subset["addresses"]) == sorted(ips.values())
    assert "notReadyAddresses" not in subset

    api.delete(demo, "Pod", "default", "ready", KUBECTL)
    drive()
    [subset] = api.get(demo, "Endpoints", "default", "web")["subsets"]
    assert [a["ip"] for a in subset["addresses"]] == [ips["waiting"]]

    api.delete(demo, "Service", "default", "web", KUBECTL)
    drive()
    assert not [
        e for e in api.list_objects(demo, "Endpoints", "default")[0] if e["metadata"]["name"] == "web"
    ]
    assert not api.list_objects(demo, "EndpointSlice", "default", "kubernetes.io/service-name=web")[0]


def test_missing_config_map_is_create_container_config_error_until_it_exists(demo):
    api.create(demo, pod("p", envFrom=[{"configMapRef": {"name": "missing"}}]), KUBECTL)
    drive()
    status = api.get(demo, "Pod", "default", "p")["status"]
    waiting = status["containerStatuses"][0]["state"]["waiting"]
    assert waiting == {"reason": "CreateContainerConfigError", "message": 'configmap "missing" not found'}
    assert status["phase"] == "Pending" and status["podIP"]
    assert ("Warning", "Failed", 'Error: configmap "missing" not found') in events_of(demo, "p")
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "missing"}, "data": {"a": "b"}}
    api.create(demo, cm, KUBECTL)
    drive()
    waiting = api.get(demo, "Pod", "default", "p")["status"]["containerStatuses"][0]["state"]
    assert "waiting" in waiting  # until the back-off period (CONFIG_RETRY_SECONDS) has passed
    back_off_elapsed()
    drive()
    status = api.get(demo, "Pod", "default", "p")["status"]
    assert status["phase"] == "Running"
    assert "running" in status["containerStatuses"][0]["state"]


def test_missing_key_and_missing_secret_are_worded_as_the_kubelet_words_them(demo):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    api.create(demo, cm, KUBECTL)
    key_ref = [{"name": "X", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "x"}}}]
    api.create(demo, pod("key", env=key_ref), KUBECTL)
    secret_ref = [{"name": "PW", "valueFrom": {"secretKeyRef": {"name": "nope", "key": "pw"}}}]
    api.create(demo, pod("secret", env=secret_ref), KUBECTL)
    optional = [{"configMapRef": {"name": "absent", "optional": True}}]
    api.create(demo, pod("optional", envFrom=optional), KUBECTL)
    drive()

    def waiting(name):
        state = api.get(demo, "Pod", "default", name)["status"]["containerStatuses"][0]["state"]
        return state.get("waiting", {}).get("message")

    assert waiting("key") == "couldn't find key x in ConfigMap default/c"
    assert waiting("secret") == 'secret "nope" not found'
    assert waiting("optional") is None


def test_a_missing_config_map_volume_keeps_the_pod_creating(demo):
    volume_pod = pod("vol", volumeMounts=[{"name": "cfg", "mountPath": "/etc/config"}])
    volume_pod["spec"]["volumes"] = [{"name": "cfg", "configMap": {"name": "later"}}]
    api.create(demo, volume_pod, KUBECTL)
    drive()
    state = api.get(demo, "Pod", "default", "vol")["status"]["containerStatuses"][0]["state"]
    assert state == {"waiting": {"reason": "ContainerCreating"}}
    message = 'MountVolume.SetUp failed for volume "cfg" : configmap "later" not found'
    assert ("Warning", "FailedMount", message) in events_of(demo, "vol")


def exec_in(cluster, name: str, argv: list[str]):
    target = api.get(cluster, "Pod", "default", name)
    return run(argv, ctx=context_for(cluster, target, "app", tty=False))


def test_exec_sees_env_and_files_from_config_maps_and_secrets(demo):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b", "mode": "x"}}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"pw": "s3cret"}}
    api.create(demo, cm, KUBECTL)
    api.create(demo, secret, KUBECTL)
    env = [{"name": "PW", "valueFrom": {"secretKeyRef": {"name": "s", "key": "pw"}}}]
    target = pod("app", env=env, envFrom=[{"configMapRef": {"name": "c"}, "prefix": "CFG_"}])
    target["spec"]["containers"][0]["volumeMounts"] = [{"name": "cfg", "mountPath": "/etc/config"}]
    target["spec"]["volumes"] = [{"name": "cfg", "configMap": {"name": "c"}}]
    api.create(demo, target, KUBECTL)
    drive()
    status, out, _ = exec_in(
        demo, "app", ["sh", "-c", "echo $CFG_a $CFG_mode $PW; cat /etc/config/a; ls /etc/config"]
    )
    assert status == 0
    assert out == "b x s3cret\nba\nmode\n"  # /etc/config/a holds "b" with no newline


def test_curl_reaches_a_service_through_its_ready_endpoints(demo):
    api.create(demo, pod("client", app="client"), KUBECTL)
    api.create(demo, web_service(), KUBECTL)
    api.create(demo, web_service("empty", app="nothing"), KUBECTL)
    drive()
    ip = api.get(demo, "Service", "default", "web")["spec"]["clusterIP"]
    for name in ("web", "web.default", "web.default.svc.cluster.local", ip):
        status, _, err = exec_in(demo, "client", ["curl", "-sS", name])
        assert status == 7, name  # no endpoint yet: kube-proxy rejects the connection
        assert (
            err == f"curl: (7) Failed to connect to {name} port 80 after 0 ms: Couldn't connect to server\n"
        )
    api.create(demo, pod("backend"), KUBECTL)
    drive()
    for name in ("web", "web.default", "web.default.svc.cluster.local", ip):
        status, out, _ = exec_in(demo, "client", ["curl", "-s", name])
        assert status == 0 and "<title>Welcome to nginx!</title>" in out, name
    api.create(demo, pod("bb", app="bb", image="busybox:1.36", command=["sleep", "3600"]), KUBECTL)
    drive()
    status, out, _ = exec_in(demo, "bb", ["nslookup", "web"])  # busybox has it; nginx's Debian has not
    assert out.endswith(f"Name:\tweb.default.svc.cluster.local\nAddress: {ip}\n\n")
    status, out, _ = exec_in(demo, "client", ["getent", "hosts", "web"])
    assert out == f"{ip:<15} web.default.svc.cluster.local\n"
    status, out, _ = exec_in(demo, "client", ["curl", "-sS", "empty"])
    assert status == 7
    status, _, err = exec_in(demo, "client", ["curl", "-sS", "nosuch"])
    assert (status, err) == (6, "curl: (6) Could not resolve host: nosuch\n")
    status, out, _ = exec_in(demo, "client", ["cat", "/etc/resolv.conf"])
    assert out == (
        "search default.svc.cluster.local svc.cluster.local cluster.local\n"
        "nameserver 10.96.0.10\noptions ndots:5\n"
    )


def test_service_links_are_the_services_that_existed_when_the_container_started(demo, fake_clock):
    api.create(demo, pod("early", app="client"), KUBECTL)
    drive()
    fake_clock.advance(5)
    api.create(demo, web_service(), KUBECTL)
    ip = api.get(demo, "Service", "default", "web")["spec"]["clusterIP"]
    fake_clock.advance(5)
    api.create(demo, pod("late", app="client"), KUBECTL)
    drive()
    _, early, _ = exec_in(demo, "early", ["env"])
    _, late, _ = exec_in(demo, "late", ["env"])
    assert "WEB_SERVICE_HOST" not in early  # started before the Service: as on a real cluster
    for line in (
        f"WEB_SERVICE_HOST={ip}",
        "WEB_SERVICE_PORT=80",
        f"WEB_PORT=tcp://{ip}:80",
        f"WEB_PORT_80_TCP=tcp://{ip}:80",
        "WEB_PORT_80_TCP_PROTO=tcp",
        "WEB_PORT_80_TCP_PORT=80",
        f"WEB_PORT_80_TCP_ADDR={ip}",
    ):
        assert f"\n{line}\n" in late, line
