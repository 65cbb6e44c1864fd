"""The protobuf codec against byte strings written by hand and bytes captured from kubectl v1.32.

Captured bodies (tests/fixtures/protobuf/*.bin) were recorded by a forwarding server between the
real kubectl and KubeSim; where kubectl can print the same object as JSON (`--dry-run=client -o
json`, saved beside as *.json), the decoded dict must equal it exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluster.protobuf import codec, schema
from cluster.protobuf.codec import ProtobufError, decode
from tests.protobuf.wirebytes import PREFIX, entry, envelope, msg, num, tag, text, varint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "protobuf"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@pytest.mark.parametrize("name", ["deployment-web", "deployment-api-two-images", "namespace-team-a", "job-j"])
def test_captured_kubectl_bodies_decode_to_kubectls_own_json(name):
    want = json.loads((FIXTURES / f"{name}.json").read_text())
    assert decode(fixture(f"{name}.bin")) == want


def test_captured_self_subject_access_review():
    assert decode(fixture("selfsubjectaccessreview-create-pods.bin")) == {
        "kind": "SelfSubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "spec": {"resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}},
        "status": {"allowed": False},
    }


def test_captured_self_subject_review_and_rules_review():
    assert decode(fixture("selfsubjectreview.bin")) == {
        "kind": "SelfSubjectReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": None},
        "status": {"userInfo": {}},
    }
    rules = decode(fixture("selfsubjectrulesreview.bin"))
    assert rules["spec"] == {"namespace": "default"}
    assert rules["status"] == {"resourceRules": None, "nonResourceRules": None, "incomplete": False}


def test_captured_drain_delete_options_are_empty_options():
    assert decode(fixture("deleteoptions-drain.bin")) == {"kind": "DeleteOptions", "apiVersion": "v1"}


def test_an_envelope_of_a_kind_no_table_registers_is_refused_as_upstream():
    body = envelope("v1", "ComponentStatus", b"")
    with pytest.raises(ProtobufError) as err:
        decode(body)
    assert str(err.value) == (
        'no kind "ComponentStatus" is registered for version "v1" in scheme '
        '"k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"'
    )


def _deployment(spec: bytes, meta: bytes = text(1, "web")) -> bytes:
    return msg(1, meta) + msg(2, spec)


def test_hand_built_deployment_maps_every_go_json_rule():
    container = (
        text(1, "web")
        + text(2, "nginx:1.27")
        + text(5, "")  # workingDir: a zero non-pointer string, omitempty: dropped
        + msg(6, num(3, 80))  # ports[0].containerPort
        + msg(8, entry(1, "cpu", text(1, "500m")), entry(1, "memory", text(1, "64Mi")))  # limits
        + msg(10, msg(1, msg(2, text(1, "/healthz"), msg(2, num(1, 1), text(3, "http")))))  # probe, inlined
    )
    pod_spec = msg(1, text(1, "data"), msg(2, msg(2))) + msg(2, container)  # volumes: emptyDir {}
    template = msg(1, entry(11, "app", "web")) + msg(2, pod_spec)
    rolling = msg(1, num(1, 1), text(3, "25%")) + msg(2, num(1, 0), num(2, 2))  # string, then int
    spec = (
        num(1, 0)  # replicas: a *int32 sent as 0 stays 0
        + msg(2, entry(1, "app", "web"))
        + msg(3, template)
        + msg(4, text(1, "RollingUpdate"), msg(2, rolling))
        + num(5, 0)  # minReadySeconds 0: dropped (omitempty, not a pointer)
    )
    meta = text(1, "web") + msg(8, num(1, 1_700_000_000)) + entry(12, "note", "x")
    body = envelope("apps/v1", "Deployment", _deployment(spec, meta))
    assert decode(body) == {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "web",
            "creationTimestamp": "2023-11-14T22:13:20Z",
            "annotations": {"note": "x"},
        },
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"creationTimestamp": None, "labels": {"app": "web"}},
                "spec": {
                    "volumes": [{"name": "data", "emptyDir": {}}],
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx:1.27",
                            "ports": [{"containerPort": 80}],
                            "resources": {"limits": {"cpu": "500m", "memory": "64Mi"}},
                            "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
                        }
                    ],
                },
            },
            "strategy": {
                "type": "RollingUpdate",
                "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 2},
            },
        },
        "status": {},
    }


def test_absent_non_pointer_struct_is_empty_and_absent_pointer_is_left_out():
    body = envelope("apps/v1", "Deployment", _deployment(b""))
    # A *LabelSelector without omitempty is null, as Go writes it; spec.template is a struct: {}.
    assert decode(body)["spec"] == {
        "selector": None,
        "template": {"metadata": {"creationTimestamp": None}, "spec": {"containers": None}},
        "strategy": {},
    }


def test_micro_time_and_pointer_scalars_of_a_lease():
    spec = text(1, "kubesim-1") + num(2, 4) + msg(3, num(1, 1_700_000_000), num(2, 123456000)) + num(5, 0)
    body = envelope("coordination.k8s.io/v1", "Lease", msg(1, text(1, "lock")) + msg(2, spec))
    assert decode(body)["spec"] == {
        "holderIdentity": "kubesim-1",
        "leaseDurationSeconds": 4,
        "acquireTime": "2023-11-14T22:13:20.123456Z",
        "leaseTransitions": 0,
    }


def test_delete_options_keep_a_zero_grace_period_and_preconditions():
    raw = num(1, 0) + msg(2, text(2, "42")) + text(4, "Foreground") + text(5, "All")
    assert decode(envelope("v1", "DeleteOptions", raw)) == {
        "kind": "DeleteOptions",
        "apiVersion": "v1",
        "gracePeriodSeconds": 0,
        "preconditions": {"resourceVersion": "42"},
        "propagationPolicy": "Foreground",
        "dryRun": ["All"],
    }


def test_delete_options_decode_under_any_group_version():
    assert decode(envelope("apps/v1", "DeleteOptions", num(1, 30)))["gracePeriodSeconds"] == 30


def test_scale_and_eviction():
    scale = msg(1, text(1, "web"), text(6, "7")) + msg(2, num(1, 5))
    assert decode(envelope("autoscaling/v1", "Scale", scale)) == {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {"name": "web", "resourceVersion": "7", "creationTimestamp": None},
        "spec": {"replicas": 5},
        "status": {"replicas": 0},
    }
    eviction = msg(1, text(1, "web-1"), text(3, "default")) + msg(2, num(1, 0))
    assert decode(envelope("policy/v1", "Eviction", eviction)) == {
        "kind": "Eviction",
        "apiVersion": "policy/v1",
        "metadata": {"name": "web-1", "namespace": "default", "creationTimestamp": None},
        "deleteOptions": {"gracePeriodSeconds": 0},
    }


def test_the_endpoints_kind_and_version_fill_an_envelope_that_leaves_them_out():
    body = envelope("", "", msg(1, text(1, "ns1")))
    assert decode(body, "v1", "Namespace") == {
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": {"name": "ns1", "creationTimestamp": None},
        "spec": {},
        "status": {},
    }
    with pytest.raises(ProtobufError, match=r"^Object 'Kind' is missing in 'runtime.TypeMeta"):
        decode(body)


def test_json_inside_the_envelope():
    body = envelope("v1", "Namespace", b'{"metadata":{"name":"j"}}', content_type="application/json")
    assert decode(body) == {"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "j"}}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty data"),
        (PREFIX, "empty body"),
        (
            b'{"kind":"Deployment"}',
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        ),
        (PREFIX + b"\x0a\x05ab", "unexpected EOF"),
        (PREFIX + b"\x00", "proto: Unknown: illegal tag 0 (wire type 0)"),
        (PREFIX + b"\x0c", "proto: Unknown: wiretype end group for non-group"),
        (PREFIX + b"\x0a" + b"\xff" * 11, "proto: integer overflow"),
        (PREFIX + tag(9, 7), "proto: illegal wireType 7"),
    ],
)
def test_a_broken_envelope_names_the_problem(body, message):
    with pytest.raises(ProtobufError) as err:
        decode(body)
    assert str(err.value) == message
    assert err.value.kind == ""


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (msg(2, num(1, 2))[:-1], "unexpected EOF"),
        (text(2, msg(1, text(1, "x"))), "proto: wrong wireType = 2 for field Replicas"),
        (msg(2, tag(2, 2) + varint(1 << 63)), "proto: negative length found during unmarshaling"),
        (msg(2, msg(4, msg(2, msg(1, num(1, 7))))), "impossible IntOrString.Type"),
    ],
)
def test_a_broken_typed_message_names_the_problem_and_the_kind(raw, message):
    with pytest.raises(ProtobufError) as err:
        decode(envelope("apps/v1", "Deployment", raw))
    assert str(err.value) == message
    assert (err.value.kind, err.value.version) == ("Deployment", "v1")


@pytest.mark.parametrize(("encoding", "content_type"), [("gzip", ""), ("", "application/cbor")])
def test_an_encoding_or_content_type_we_do_not_read_is_unsupported(encoding, content_type):
    with pytest.raises(ProtobufError) as err:
        decode(envelope("v1", "Namespace", b"", encoding, content_type))
    assert err.value.unsupported


def test_summary_is_upstreams_summarize_data():
    assert codec.summarize(b"") == "<empty>"
    assert codec.summarize(b'{"a":1}') == '{"a":1}'
    assert codec.summarize(b"\x01\x02") == "0102"
    assert codec.summarize(b"x" * 40) == "78" * 30 + " ..."


def test_every_served_kind_has_a_message():
    from cluster.apiserver.kinds import KINDS

    for info in KINDS.values():
        assert schema.message_for(info.api_version, info.kind), info.kind


def test_tables_match_the_descriptors_the_protobuf_package_built():
    for full_name, fields in schema.FIELDS.items():
        descriptor = schema.POOL.FindMessageTypeByName(full_name)
        assert [(f.number, f.name) for f in descriptor.fields] == [(f.number, f.name) for f in fields]


def test_invalid_utf8_is_replaced_in_values_and_refused_in_map_keys():
    name = decode(envelope("apps/v1", "Deployment", msg(1, text(1, b"web\xff"))))["metadata"]["name"]
    assert name == "web\ufffd"
    with pytest.raises(ProtobufError, match="map key is not valid UTF-8"):
        decode(envelope("apps/v1", "Deployment", msg(1, msg(11, text(1, b"\xff"), text(2, "x")))))


def test_unknown_fields_are_skipped_but_endless_groups_are_refused():
    unknown = num(99, 1) + text(98, "x") + tag(97, 3) + num(1, 1) + tag(97, 4)
    assert decode(envelope("v1", "Namespace", unknown + msg(1, text(1, "n"))))["metadata"]["name"] == "n"
    nested = tag(97, 3) * 5000
    with pytest.raises(ProtobufError, match="nested too deeply"):
        decode(envelope("v1", "Namespace", nested))
