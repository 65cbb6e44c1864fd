"""The web console's server side: kubectl's commands, output and errors, through the API server."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.controlplane.demo import create_demo
from tests.support.auth import teacher_client

RC = """\
apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  replicas: 3
  selector:
    app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
        - name: nginx
          image: nginx:1.15
"""


@pytest.fixture
def demo(db):
    return create_demo()


def run(command: str, stdin: str = "", client: Client | None = None) -> dict:
    response = (client or teacher_client()).post(
        "/clusters/demo/ui/console", json.dumps({"command": command, "stdin": stdin}), "application/json"
    )
    assert response.status_code == 200
    return response.json()


def test_label_overwrite_and_unlabel_follow_kubectl(demo):
    assert run("label nodes node1 zz=cxk")["output"] == "node/node1 labeled\n"
    assert api.get(demo, "Node", "", "node1")["metadata"]["labels"]["zz"] == "cxk"
    refused = run("label nodes node1 zz=abc")
    assert refused == {
        "output": "error: 'zz' already has a value (cxk), and --overwrite is false\n",
        "exit_code": 1,
        "ui": {},
    }
    assert run("kubectl label --overwrite nodes node1 zz=abc")["output"] == "node/node1 labeled\n"
    assert run("label nodes node1 zz-")["output"] == "node/node1 unlabeled\n"
    assert "zz" not in api.get(demo, "Node", "", "node1")["metadata"]["labels"]


def test_cordon_taint_and_their_reversals_change_the_node(demo):
    assert run("cordon node2")["output"] == "node/node2 cordoned\n"
    assert run("cordon node2")["output"] == "node/node2 already cordoned\n"
    assert api.get(demo, "Node", "", "node2")["spec"]["unschedulable"] is True
    assert run("uncordon node2")["output"] == "node/node2 uncordoned\n"
    assert run("taint nodes node1 dedicated=gpu:NoSchedule")["output"] == "node/node1 tainted\n"
    taints = api.get(demo, "Node", "", "node1")["spec"]["taints"]
    assert taints == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    again = run("taint nodes node1 dedicated=cpu:NoSchedule")
    assert again["exit_code"] == 1 and "--overwrite is false" in again["output"]
    assert run("taint nodes node1 dedicated:NoSchedule-")["output"] == "node/node1 untainted\n"
    assert not api.get(demo, "Node", "", "node1")["spec"].get("taints")


def test_apply_from_pasted_yaml_then_scale_and_get_several_kinds(demo):
    assert run("apply -f -", RC)["output"] == "replicationcontroller/nginx created\n"
    assert run("apply -f -", RC)["output"] == "replicationcontroller/nginx unchanged\n"
    assert run("scale rc nginx --replicas=2")["output"] == "replicationcontroller/nginx scaled\n"
    table = run("get rc,rs,deploy")["output"].splitlines()
    assert table[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    assert table[1].startswith("replicationcontroller/nginx   2 ")


def test_get_wide_prints_the_api_servers_columns_with_tabwriter_padding(demo):
    lines = run("get nodes -o wide")["output"].splitlines()
    assert lines[0].split()[:6] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP"]
    assert lines[0].index("STATUS") == len("master") + 3  # the widest name plus padding 3
    assert [line.split()[0] for line in lines[1:]] == ["master", "node1", "node2"]
    labels = run("get nodes --show-labels")["output"].splitlines()
    assert labels[0].endswith("LABELS")
    assert "disktype=ssd" in labels[2]


def test_errors_read_as_kubectl_prints_them(demo):
    assert run("get pod nope") == {
        "output": 'Error from server (NotFound): pods "nope" not found\n',
        "exit_code": 1,
        "ui": {},
    }
    assert run("get pods --frobnicate")["output"] == (
        "error: unknown flag: --frobnicate\nSee 'kubectl get --help' for usage.\n"
    )
    assert run("get widgets")["output"] == 'error: the server doesn\'t have a resource type "widgets"\n'
    assert run("get pods")["output"] == "No resources found in default namespace.\n"


def test_explain_scheduling_and_watch_hand_instructions_to_the_page(demo):
    run(
        "create -f -",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n"
        "    - name: c\n      image: nginx:1.15\n",
    )
    assert run("explain-scheduling web")["ui"] == {"panel": "scheduler", "namespace": "default", "pod": "web"}
    watch = run("get pods -w -o wide")["ui"]["watch"]
    assert watch == {"kind": "Pod", "resource": "pods", "namespace": "default", "name": None, "wide": True}


def test_console_posts_need_the_csrf_token(demo):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/clusters/demo/ui/console", json.dumps({"command": "get pods"}), "application/json"
    )
    assert response.status_code == 403
    page = strict.get("/clusters/demo/")
    token = page.cookies["csrftoken"].value
    ok = strict.post(
        "/clusters/demo/ui/console",
        json.dumps({"command": "get pods"}),
        "application/json",
        headers={"X-CSRFToken": token},
    )
    assert ok.status_code == 200


# -- the whole course: files, help, version, get all, describe of every kind ------------------


def test_the_working_directory_holds_the_examples_and_uploaded_files(demo):
    client = Client()
    listing = run("ls", client=client)["output"].split()
    assert {"rc-nginx.yaml", "pod-nodename.yaml", "pod-nodeselector.yaml"} <= set(listing)
    assert run("cat rc-nginx.yaml", client=client)["output"].startswith(
        "apiVersion: v1\nkind: ReplicationController"
    )
    saved = client.post(
        "/clusters/demo/ui/files",
        json.dumps({"name": "C:\\fakepath\\mine.yaml", "text": RC}),
        "application/json",
    )
    assert saved.json() == {"name": "mine.yaml"}
    assert "mine.yaml" in run("ls", client=client)["output"].split()
    assert "mine.yaml" not in run("ls")["output"].split()  # another browser's directory
    assert run("cat nope.yaml", client=client) == {
        "output": "cat: nope.yaml: No such file or directory\n",
        "exit_code": 1,
        "ui": {},
    }
    bad = client.post("/clusters/demo/ui/files", json.dumps({"name": "..", "text": ""}), "application/json")
    assert bad.status_code == 400


def test_apply_create_and_delete_take_files_from_the_working_directory(demo):
    result = run("kubectl apply -f pod-nodeselector.yaml")
    assert result["output"] == "pod/pod-example created\n"
    assert result["ui"]["created"] == [
        {"kind": "Pod", "namespace": "default", "name": "pod-example", "ref": "pod/pod-example"}
    ]
    assert run("apply -f pod-nodeselector.yaml")["output"] == "pod/pod-example unchanged\n"
    again = run("create -f pod-nodeselector.yaml")
    assert again["exit_code"] == 1
    assert again["output"] == (
        'Error from server (AlreadyExists): error when creating "pod-nodeselector.yaml": '
        'pods "pod-example" already exists\n'
    )
    assert run("kubectl delete -f pod-nodeselector.yaml")["output"] == 'pod "pod-example" deleted\n'
    assert run("apply -f missing.yaml") == {
        "output": 'error: the path "missing.yaml" does not exist\n',
        "exit_code": 1,
        "ui": {},
    }
    assert run("delete -f -")["output"] == "error: no objects passed to delete\n"


def test_every_command_has_kubectls_help_and_version_answers(demo):
    for verb in (
        "get",
        "describe",
        "label",
        "apply",
        "create",
        "delete",
        "scale",
        "logs",
        "taint",
        "api-resources",
    ):
        text = run(f"kubectl {verb} --help")["output"]
        assert "\nUsage:\n  kubectl " + verb in text and "\nExamples:\n" in text, verb
    label = run("label --help")["output"]
    assert label.startswith("Update the labels on a resource.")
    assert "    --overwrite=false:\n\tIf true, allow labels to be overwritten" in label
    assert run("version")["output"] == (
        "Client Version: v1.33.1\nKustomize Version: v5.6.0\nServer Version: v1.33.1\n"
    )


def test_api_resources_lists_the_served_kinds_and_a_false_boolean_flag_is_false(demo):
    listing = run("kubectl api-resources --namespaced=false")["output"].splitlines()
    assert listing[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert [line.split()[0] for line in listing[1:3]] == ["namespaces", "nodes"]
    assert all(" false " in line for line in listing[1:])
    assert "--overwrite=false" not in run("label nodes node1 zz=a --overwrite=false")["output"]
    assert "already has a value" in run("label nodes node1 zz=b --overwrite=false")["output"]


def test_get_all_and_describe_rc_print_as_kubectl_does(demo):
    run("apply -f -", RC)
    everything = run("get all")["output"]
    assert everything.startswith("NAME") and "replicationcontroller/nginx" in everything
    described = run("describe rc nginx")["output"]
    assert described.startswith("Name:         nginx\nNamespace:    default\nSelector:     app=nginx\n")
    assert "Replicas:     0 current / 3 desired\n" in described and "Pod Template:\n" in described
    assert "apiVersion" not in described  # not YAML
    assert run("describe ns default")["output"].startswith("Name:         default\n")


def test_describe_pod_shows_only_the_events_of_this_pod_not_an_earlier_one_with_its_name(demo):
    from cluster.client import event_recorder
    from tests.support.demo import KUBECTL, example

    old = api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    event_recorder.record(demo, old, "Pulled", "from the pod before", KUBECTL, component="kubelet")
    event_recorder.flush("demo")
    api.delete(demo, "Pod", "default", "pod-example", KUBECTL)
    new = api.create(demo, example("pod-nodeselector.yaml"), KUBECTL)
    event_recorder.record(demo, new, "Seen", "from this pod", KUBECTL, component="kubelet")
    event_recorder.flush("demo")
    described = run("describe pod pod-example")["output"]
    assert "from this pod" in described and "from the pod before" not in described
    events = Client().get("/clusters/demo/ui/events/Pod/default/pod-example").content.decode()
    assert "from this pod" in events and "from the pod before" not in events


def test_a_viewer_without_write_rights_gets_the_apis_403_for_a_write(demo):
    viewer = Client()  # not signed in: the page's rights are read-only
    refused = run("label nodes node1 zz=cxk", client=viewer)
    assert refused["exit_code"] == 1 and refused["output"].startswith("Error from server (Forbidden): ")
    assert 'User "system:anonymous" cannot patch resource "nodes"' in refused["output"]
    assert run("apply -f pod-nodeselector.yaml", client=viewer)["output"].startswith(
        "Error from server (Forbidden): "
    )
    assert "zz" not in api.get(demo, "Node", "", "node1")["metadata"]["labels"]
    assert run("get nodes", client=viewer)["exit_code"] == 0


def test_create_quota_then_a_refused_pod_and_describe_namespace(demo):
    assert run("create quota q --hard=pods=1,requests.cpu=0.5")["output"] == "resourcequota/q created\n"
    assert run("run a --image=nginx")["output"] == (
        'Error from server (Forbidden): pods "a" is forbidden: failed quota: q: '
        "must specify requests.cpu for: a\n"
    )
    assert run("create quota bad --hard=pods")["output"] == (
        "error: Invalid argument syntax pods, expected <resource>=<value>\n"
    )
    described = run("describe namespace default")["output"]
    assert "Resource Quotas\n  Name:" in described
    assert described.endswith("\nNo LimitRange resource.\n")


def test_console_writes_are_owned_by_kubectls_managers_and_shown_only_when_asked(demo):
    assert run("create configmap owned --from-literal=k=v")["output"] == "configmap/owned created\n"
    run("label configmap owned team=blue")
    stored = api.get(demo, "ConfigMap", "default", "owned")["metadata"]["managedFields"]
    assert [(e["manager"], e["operation"]) for e in stored] == [
        ("kubectl-create", "Update"),
        ("kubectl-label", "Update"),
    ]
    assert "managedFields" not in run("get configmap owned -o yaml")["output"]
    shown = json.loads(run("get configmap owned -o json --show-managed-fields")["output"])
    assert [e["manager"] for e in shown["metadata"]["managedFields"]] == ["kubectl-create", "kubectl-label"]
