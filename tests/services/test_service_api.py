"""Services through the API server: defaults, upstream's validation messages, ClusterIP and
NodePort allocation (no duplicates, exhaustion), and the `kubernetes` Service every cluster has."""

from __future__ import annotations

import ipaddress

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db


@pytest.fixture
def cluster(db):
    return Cluster.objects.create(name="svc-test")


def service(name: str, **spec) -> dict:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}}
    body["spec"] = {"selector": {"app": name}, "ports": [{"port": 80}], **spec}
    return body


def invalid(cluster, body) -> list[str]:
    with pytest.raises(ApiError) as err:
        api.create(cluster, body, KUBECTL)
    assert err.value.code == 422, err.value.message
    return [f"{c['field']}: {c['message']}" for c in err.value.status()["details"]["causes"]]


def test_defaults_and_a_cluster_ip_from_the_service_cidr(cluster):
    created = api.create(cluster, service("web"), KUBECTL)
    spec = created["spec"]
    assert spec["type"] == "ClusterIP" and spec["sessionAffinity"] == "None"
    assert spec["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    assert spec["ipFamilies"] == ["IPv4"] and spec["ipFamilyPolicy"] == "SingleStack"
    assert spec["internalTrafficPolicy"] == "Cluster"
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/12")
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert spec["clusterIP"] not in ("10.96.0.1", "10.96.0.10")  # kubernetes, cluster DNS
    assert created["status"] == {"loadBalancer": {}}


def test_validation_messages_are_upstreams(cluster):
    assert invalid(cluster, service("a", ports=[])) == ["spec.ports: Required value"]
    # targetPort defaults to the port, so both are out of range, as upstream reports them.
    assert invalid(cluster, service("b", ports=[{"port": 70000}])) == [
        "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
        "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    ]
    two = [{"port": 80}, {"port": 443}]
    assert invalid(cluster, service("c", ports=two)) == [
        "spec.ports[0].name: Required value",
        "spec.ports[1].name: Required value",
    ]
    assert invalid(cluster, service("d", type="Bogus")) == [
        'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", '
        '"LoadBalancer", "NodePort"'
    ]
    assert invalid(cluster, service("e", ports=[{"port": 80, "nodePort": 30080}])) == [
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
    ]
    assert invalid(cluster, service("f", clusterIP="nonsense")) == [
        'spec.clusterIPs[0]: Invalid value: "nonsense": must be a valid IP address, '
        "(e.g. 10.9.8.7 or 2001:db8::ffff)"
    ]
    assert invalid(cluster, service("g", type="NodePort", ports=[{"port": 80, "nodePort": 80}])) == [
        "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. "
        "The range of valid ports is 30000-32767"
    ]
    assert not api.list_objects(cluster, "Service", "default")[0][1:]  # only `kubernetes` is there


def test_requested_cluster_ip_out_of_range_or_taken(cluster):
    assert invalid(cluster, service("a", clusterIP="10.0.0.5")) == [
        'spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: the '
        "provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/12"
    ]
    api.create(cluster, service("b", clusterIP="10.96.1.1"), KUBECTL)
    assert invalid(cluster, service("c", clusterIP="10.96.1.1")) == [
        'spec.clusterIPs: Invalid value: []string{"10.96.1.1"}: failed to allocate IP 10.96.1.1: '
        "provided IP is already allocated"
    ]
    assert invalid(cluster, service("d", clusterIP="10.96.0.1")) == [
        'spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: '
        "provided IP is already allocated"
    ]


def test_no_duplicate_addresses_until_the_range_is_full(cluster, settings):
    # A /28: 14 hosts, less kubernetes (.1) and cluster DNS (.10): 12 Services fit.
    settings.KUBESIM_SERVICE_CIDR = "10.96.0.0/28"
    ips = [api.create(cluster, service(f"s{i}"), KUBECTL)["spec"]["clusterIP"] for i in range(12)]
    assert len(set(ips)) == 12
    assert not {"10.96.0.0", "10.96.0.1", "10.96.0.10", "10.96.0.15"} & set(ips)
    with pytest.raises(ApiError) as err:
        api.create(cluster, service("full"), KUBECTL)
    assert err.value.code == 500
    assert err.value.message == "Internal error occurred: failed to allocate a serviceIP: range is full"
    api.delete(cluster, "Service", "default", "s3", KUBECTL)  # frees its address
    assert api.create(cluster, service("again"), KUBECTL)["spec"]["clusterIP"] == ips[3]


def test_node_ports_are_allocated_once_and_kept_on_update(cluster):
    first = api.create(cluster, service("np", type="NodePort"), KUBECTL)
    port = first["spec"]["ports"][0]["nodePort"]
    assert 30000 <= port <= 32767
    taken = service("np2", type="NodePort", ports=[{"port": 80, "nodePort": port}])
    assert invalid(cluster, taken) == [
        f"spec.ports[0].nodePort: Invalid value: {port}: provided port is already allocated"
    ]
    changed = api.get(cluster, "Service", "default", "np")
    changed["metadata"]["labels"] = {"tier": "web"}
    del changed["spec"]["clusterIP"], changed["spec"]["clusterIPs"], changed["spec"]["ports"][0]["nodePort"]
    updated = api.update(cluster, changed, KUBECTL)
    assert updated["spec"]["ports"][0]["nodePort"] == port
    assert updated["spec"]["clusterIP"] == first["spec"]["clusterIP"]
    moved = api.get(cluster, "Service", "default", "np")
    moved["spec"]["clusterIP"] = moved["spec"]["clusterIPs"][0] = "10.96.5.5"
    with pytest.raises(ApiError) as err:
        api.update(cluster, moved, KUBECTL)
    assert 'spec.clusterIPs[0]: Invalid value: "10.96.5.5": may not change once set' in err.value.message


def test_headless_service_has_no_cluster_ip(cluster):
    created = api.create(cluster, service("db", clusterIP="None"), KUBECTL)
    assert created["spec"]["clusterIP"] == "None" and created["spec"]["clusterIPs"] == ["None"]


def test_every_cluster_has_the_kubernetes_service(cluster):
    svc = api.get(cluster, "Service", "default", "kubernetes")
    assert svc["spec"]["clusterIP"] == "10.96.0.1"
    assert svc["spec"]["ports"] == [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]
    endpoints = api.get(cluster, "Endpoints", "default", "kubernetes")
    assert endpoints["subsets"][0]["addresses"] == [{"ip": "192.168.56.10"}]
    names = [s["metadata"]["name"] for s in api.list_objects(cluster, "Service")[0]]
    assert names == ["kubernetes"]
    with pytest.raises(ApiError) as err:
        api.create(cluster, service("kubernetes"), KUBECTL)
    assert err.value.code == 409
    # A label written to it is kept; deleting it brings the built-in one back (the reconciler).
    labelled = api.patch(
        cluster, "Service", "default", "kubernetes", {"metadata": {"labels": {"x": "y"}}},
        "application/merge-patch+json", KUBECTL,
    )  # fmt: skip
    assert labelled["metadata"]["labels"]["x"] == "y"
    api.delete(cluster, "Service", "default", "kubernetes", KUBECTL)
    assert "x" not in api.get(cluster, "Service", "default", "kubernetes")["metadata"]["labels"]


def test_config_map_and_secret(cluster):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    assert api.create(cluster, cm, KUBECTL)["data"] == {"a": "b"}
    bad = {**cm, "metadata": {"name": "d"}, "data": {"bad key": "x"}}
    assert invalid(cluster, bad) == [
        'data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric '
        "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
        "validation is '[-._a-zA-Z0-9]+')"
    ]
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"pw": "hi"}}
    stored = api.create(cluster, secret, KUBECTL)
    assert stored["type"] == "Opaque" and stored["data"] == {"pw": "aGk="} and "stringData" not in stored
    with pytest.raises(ApiError) as err:
        api.create(cluster, {**secret, "metadata": {"name": "t"}, "data": {"x": "no!"}}, KUBECTL)
    assert err.value.code == 400
    assert err.value.message == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2'
    )


def test_immutable_config_map_keeps_its_data(cluster):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    api.create(cluster, {**cm, "immutable": True}, KUBECTL)
    changed = api.get(cluster, "ConfigMap", "default", "c")
    changed["data"] = {"a": "c"}
    with pytest.raises(ApiError) as err:
        api.update(cluster, changed, KUBECTL)
    assert "data: Forbidden: field is immutable when `immutable` is set" in err.value.message
    assert api.get(cluster, "ConfigMap", "default", "c")["data"] == {"a": "b"}


def test_wrong_json_types_are_the_decoders_400(cluster):
    cases = [
        (service("a", ports="x"), "cannot unmarshal string into Go struct field ServiceSpec.spec.ports "
         "of type []v1.ServicePort"),
        (service("b", ports=[{"port": "80"}]), "cannot unmarshal string into Go struct field "
         "ServicePort.spec.ports.port of type int32"),
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": 5}},
         "cannot unmarshal number into Go struct field ConfigMap.data of type string"),
        ({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e"},
          "subsets": [{"addresses": [5]}]},
         "cannot unmarshal number into Go struct field EndpointSubset.subsets.addresses of type "
         "v1.EndpointAddress"),
    ]  # fmt: skip
    for body, message in cases:
        with pytest.raises(ApiError) as err:
            api.create(cluster, body, KUBECTL)
        assert err.value.code == 400 and err.value.message.endswith(f": json: {message}")


def test_a_lab_reset_removes_services_and_config_but_not_the_kubernetes_service(cluster):
    from labs.sandbox import clear

    api.create(cluster, service("web"), KUBECTL)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    api.create(cluster, cm, KUBECTL)
    before = cluster.revision
    clear(cluster)
    assert [s["metadata"]["name"] for s in api.list_objects(cluster, "Service")[0]] == ["kubernetes"]
    # Only the CA bundle every namespace has stays (its controller's, not the class's).
    left = {c["metadata"]["name"] for c in api.list_objects(cluster, "ConfigMap")[0]}
    assert left == {"kube-root-ca.crt"}
    assert api.get(cluster, "Service", "default", "kubernetes")["metadata"]["resourceVersion"] == "1"
    assert cluster.revision == before + 2  # the two deletions only
