"""StatefulSets on the demo cluster, driven through the whole control plane: stable names and
identities, OrderedReady and Parallel, scale-down in reverse order, rolling updates with a
partition, OnDelete, a finished pod recreated, and claims KubeSim does not simulate yet."""

from __future__ import annotations

import pytest

from cluster.apiserver import kinds
from cluster.apiserver import service as api
from cluster.apiserver.defaults import no_defaults
from cluster.controllers import history
from cluster.controllers.statefulset import POD_INDEX_LABEL, POD_NAME_LABEL
from cluster.kubeapi.tables import NAME_COLUMN, TableSpec
from cluster.models import FlowTrace
from tests.services.test_endpoints_and_config import exec_in
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
STRATEGIC = "application/strategic-merge-patch+json"


def web(replicas: int = 2, image: str = "nginx:1.27", **spec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web"},
        "spec": {
            "serviceName": "web",
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image}]},
            },
            **spec,
        },
    }


def pods(cluster) -> dict[str, dict]:
    items, _ = api.list_objects(cluster, "Pod", "default", label_selector="app=web")
    return {p["metadata"]["name"]: p for p in items}


def live(cluster) -> list[str]:
    return sorted(name for name, p in pods(cluster).items() if not p["metadata"].get("deletionTimestamp"))


def events(cluster) -> list[str]:
    items, _ = api.list_objects(cluster, "Event", "default")
    return [e["message"] for e in sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))]


def settle(fake_clock, rounds: int = 3) -> None:
    for _ in range(rounds):  # a terminating nginx takes a second to stop
        drive()
        fake_clock.advance(2)
    drive()


def set_image(cluster, image: str) -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}}
    api.patch(cluster, "StatefulSet", "default", "web", patch, STRATEGIC, KUBECTL)


def test_pods_get_stable_names_and_identities_in_ordinal_order(demo):
    drive()
    api.create(demo, web(), KUBECTL)
    drive()
    found = pods(demo)
    assert sorted(found) == ["web-0", "web-1"]
    for index, name in enumerate(("web-0", "web-1")):
        pod = found[name]
        assert pod["spec"]["hostname"] == name and pod["spec"]["subdomain"] == "web"
        assert pod["metadata"]["generateName"] == "web-"
        assert pod["metadata"]["labels"][POD_NAME_LABEL] == name
        assert pod["metadata"]["labels"][POD_INDEX_LABEL] == str(index)
        assert pod["status"]["phase"] == "Running"
    assert events(demo).index("create Pod web-0 in StatefulSet web successful") < events(demo).index(
        "create Pod web-1 in StatefulSet web successful"
    )
    status = api.get(demo, "StatefulSet", "default", "web")["status"]
    assert status["replicas"] == status["readyReplicas"] == status["availableReplicas"] == 2
    assert status["currentRevision"] == status["updateRevision"]
    (revision,) = api.list_objects(demo, "ControllerRevision", "default")[0]
    assert revision["metadata"]["name"] == status["currentRevision"]
    assert {p["metadata"]["labels"][history.REVISION_LABEL] for p in found.values()} == {
        status["currentRevision"]
    }


def test_ordered_ready_waits_for_a_pod_that_never_becomes_ready(demo):
    drive()
    api.create(demo, web(image="nginx:no-such-tag"), KUBECTL)
    drive()
    assert sorted(pods(demo)) == ["web-0"]  # web-1 waits for web-0 to be Running and Ready


def test_parallel_creates_every_pod_at_once(demo):
    drive()
    api.create(demo, web(image="nginx:no-such-tag", podManagementPolicy="Parallel"), KUBECTL)
    drive()
    assert sorted(pods(demo)) == ["web-0", "web-1"]


def test_scale_down_removes_the_highest_ordinal_first_one_at_a_time(demo, fake_clock):
    drive()
    api.create(demo, web(replicas=3), KUBECTL)
    drive()
    api.scale(demo, "StatefulSet", "default", "web", 1, KUBECTL)
    drive()
    assert live(demo) == ["web-0", "web-1"]  # web-2 terminates; web-1 waits for it
    settle(fake_clock)
    assert live(demo) == ["web-0"]
    deletions = [m for m in events(demo) if m.startswith("delete Pod")]
    assert deletions == [
        "delete Pod web-2 in StatefulSet web successful",
        "delete Pod web-1 in StatefulSet web successful",
    ]


def test_a_rolling_update_stops_at_the_partition_then_finishes(demo, fake_clock):
    drive()
    api.create(
        demo,
        web(replicas=3, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}),
        KUBECTL,
    )
    drive()
    set_image(demo, "nginx:1.25")
    settle(fake_clock)
    images = {name: p["spec"]["containers"][0]["image"] for name, p in pods(demo).items()}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.27", "web-2": "nginx:1.25"}
    status = api.get(demo, "StatefulSet", "default", "web")["status"]
    assert status["updatedReplicas"] == 1 and status["currentRevision"] != status["updateRevision"]
    partition = {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}}
    api.patch(demo, "StatefulSet", "default", "web", partition, STRATEGIC, KUBECTL)
    settle(fake_clock, rounds=6)
    assert {p["spec"]["containers"][0]["image"] for p in pods(demo).values()} == {"nginx:1.25"}
    status = api.get(demo, "StatefulSet", "default", "web")["status"]
    assert status["currentRevision"] == status["updateRevision"] and status["currentReplicas"] == 3
    updates = [m for m in events(demo) if m.startswith("delete Pod")]
    assert updates == [f"delete Pod web-{n} in StatefulSet web successful" for n in (2, 1, 0)]


def test_on_delete_replaces_a_pod_only_when_it_is_deleted(demo, fake_clock):
    drive()
    api.create(demo, web(updateStrategy={"type": "OnDelete"}), KUBECTL)
    drive()
    set_image(demo, "nginx:1.25")
    settle(fake_clock)
    assert {p["spec"]["containers"][0]["image"] for p in pods(demo).values()} == {"nginx:1.27"}
    api.delete(demo, "Pod", "default", "web-1", KUBECTL)
    settle(fake_clock)
    images = {name: p["spec"]["containers"][0]["image"] for name, p in pods(demo).items()}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.25"}


def test_stateful_set_pods_go_through_the_13_steps_with_step_6_naming_its_controller(demo):
    drive()
    api.create(demo, web(), KUBECTL)
    drive()
    trace = FlowTrace.objects.get(kind="StatefulSet", name="web")
    assert sorted({s.step for s in trace.steps.all()}) == list(range(14))
    step_6 = trace.steps.get(step=6)
    assert step_6.detail_en.startswith(
        "The StatefulSet controller counts 0 of 2 replicas for StatefulSet default/web: it creates "
        "web-0, web-1 in ordinal order, web-0 first"
    )
    assert trace.finished_at is not None


def test_spec_fields_but_the_mutable_ones_are_immutable(demo):
    api.create(demo, web(), KUBECTL)
    current = api.get(demo, "StatefulSet", "default", "web")
    current["spec"]["serviceName"] = "other"
    with pytest.raises(api.ApiError) as refused:
        api.update(demo, current, KUBECTL)
    assert refused.value.code == 422
    assert refused.value.message.endswith(
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', "
        "'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
        "'minReadySeconds' are forbidden"
    )


def test_the_headless_service_answers_for_each_pod_by_its_stable_name(demo):
    headless = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"clusterIP": "None", "selector": {"app": "web"}, "ports": [{"port": 80}]},
    }
    api.create(demo, headless, KUBECTL)
    api.create(demo, web(), KUBECTL)
    client = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bb"},
        "spec": {"containers": [{"name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"]}]},
    }
    api.create(demo, client, KUBECTL)
    drive()
    ips = {name: p["status"]["podIP"] for name, p in pods(demo).items()}
    endpoints = api.get(demo, "Endpoints", "default", "web")
    hostnames = {a["ip"]: a["hostname"] for s in endpoints["subsets"] for a in s["addresses"]}
    assert hostnames == {ips["web-0"]: "web-0", ips["web-1"]: "web-1"}
    for name in ("web-0.web.default.svc.cluster.local", "web-0.web"):
        status, out, _ = exec_in(demo, "bb", ["nslookup", name])
        assert status == 0 and out.endswith(
            f"Name:\tweb-0.web.default.svc.cluster.local\nAddress: {ips['web-0']}\n\n"
        ), name
    status, out, _ = exec_in(demo, "bb", ["nslookup", "web"])  # the headless name: every ready pod
    assert out.count("Address: 10.") == 2
    status, _, _ = exec_in(demo, "bb", ["nslookup", "web-7.web"])
    assert status == 1


def _stand_in_claims():
    """A stand-in for the PersistentVolumeClaim kind (helper 42 brings the real one): enough of a
    kind for the StatefulSet controller to create, read and update claims."""
    return kinds.KindInfo(
        kind="PersistentVolumeClaim",
        plural="persistentvolumeclaims",
        singular="persistentvolumeclaim",
        group="",
        version="v1",
        namespaced=True,
        defaults=no_defaults,
        validate=lambda errors, obj, old: None,
        table=TableSpec((NAME_COLUMN,), lambda obj, now: [obj["metadata"]["name"]]),
        describe=lambda read, namespace, name: f"Name:\t{name}\n",
    )


@pytest.fixture
def claim_kind():
    if kinds.kind_info("PersistentVolumeClaim") is not None:  # the real kind has landed
        yield kinds.kind_info("PersistentVolumeClaim")
        return
    info = kinds.register(_stand_in_claims())
    yield info
    kinds.unregister("PersistentVolumeClaim")


def claim_owners(cluster) -> dict[str, list[tuple[str, str, bool]]]:
    items, _ = api.list_objects(cluster, "PersistentVolumeClaim", "default")
    return {
        c["metadata"]["name"]: [
            (r["kind"], r["name"], bool(r.get("controller")))
            for r in c["metadata"].get("ownerReferences") or []
        ]
        for c in items
        if not c["metadata"].get("deletionTimestamp")
    }


@pytest.mark.parametrize(
    ("when_scaled", "when_deleted", "after_scale_down"),
    [
        ("Retain", "Retain", {"www-web-0": [], "www-web-1": []}),
        (
            "Retain",
            "Delete",
            {"www-web-0": [("StatefulSet", "web", True)], "www-web-1": [("StatefulSet", "web", True)]},
        ),
        ("Delete", "Retain", {"www-web-0": []}),
        ("Delete", "Delete", {"www-web-0": [("StatefulSet", "web", True)]}),
    ],
)
def test_claims_follow_the_retention_policy_on_scale_down(
    demo, fake_clock, claim_kind, when_scaled, when_deleted, after_scale_down
):
    drive()
    body = web(persistentVolumeClaimRetentionPolicy={"whenScaled": when_scaled, "whenDeleted": when_deleted})
    body["spec"]["volumeClaimTemplates"] = [
        {
            "metadata": {"name": "www"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    ]
    api.create(demo, body, KUBECTL)
    drive()
    assert live(demo) == ["web-0", "web-1"]
    volumes = pods(demo)["web-1"]["spec"]["volumes"]
    assert {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-1"}} in volumes
    assert "create Claim www-web-1 Pod web-1 in StatefulSet web success" in events(demo)
    api.scale(demo, "StatefulSet", "default", "web", 1, KUBECTL)
    settle(fake_clock)
    assert live(demo) == ["web-0"]
    assert claim_owners(demo) == after_scale_down
