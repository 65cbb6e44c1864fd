"""The served OpenAPI v3 documents and the checks that read the same table: upstream's words."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver.kinds import kind_info
from cluster.apiserver.typecheck import type_error
from cluster.kubeapi import openapi
from k8s.numbers import int_from_text

SCHEMAS = "#/components/schemas/"


def _schemas(path: str) -> dict:
    return openapi.group_version_document(path)["components"]["schemas"]


def test_a_field_names_its_type_and_carries_upstreams_description():
    schemas = _schemas("api/v1")
    affinity = schemas["io.k8s.api.core.v1.Affinity"]
    assert affinity["description"] == "Affinity is a group of affinity scheduling rules."
    anti = affinity["properties"]["podAntiAffinity"]
    assert anti["allOf"] == [{"$ref": SCHEMAS + "io.k8s.api.core.v1.PodAntiAffinity"}]
    assert anti["description"].startswith("Describes pod anti-affinity scheduling rules")
    assert schemas["io.k8s.api.core.v1.Container"]["required"] == ["name"]
    containers = schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-list-map-keys"] == ["name"]
    assert containers["items"] == {"allOf": [{"$ref": SCHEMAS + "io.k8s.api.core.v1.Container"}]}


def test_int_or_string_and_quantity_are_one_of_two_json_types_as_in_v3():
    schemas = _schemas("apis/apps/v1")
    surge = schemas["io.k8s.api.apps.v1.RollingUpdateDeployment"]["properties"]["maxSurge"]
    assert surge["allOf"] == [{"$ref": SCHEMAS + "io.k8s.apimachinery.pkg.util.intstr.IntOrString"}]
    int_or_string = schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
    assert int_or_string["oneOf"] == [{"type": "integer"}, {"type": "string"}] and "type" not in int_or_string
    quantity = schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]
    assert quantity["oneOf"] == [{"type": "string"}, {"type": "number"}]


def test_each_version_of_a_kind_gets_its_own_definition():
    v1 = _schemas("apis/autoscaling/v1")["io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec"]
    v2 = _schemas("apis/autoscaling/v2")["io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec"]
    assert "targetCPUUtilizationPercentage" in v1["properties"] and "metrics" in v2["properties"]


def test_every_served_kind_is_strictly_decoded_in_its_own_version():
    service = {"spec": {"ports": [{"port": 80, "portt": 1}], "selectorr": {}}}
    assert openapi.strict_decode("Service", service) == ["spec.ports[0].portt", "spec.selectorr"]
    hpa = {"spec": {"targetCPUUtilizationPercentage": 50, "metrics": []}}
    assert openapi.strict_decode("HorizontalPodAutoscaler", hpa, "v1") == ["spec.metrics"]
    v2 = openapi.strict_decode("HorizontalPodAutoscaler", hpa, "v2")
    assert v2 == ["spec.targetCPUUtilizationPercentage"]


@pytest.mark.parametrize(
    ("kind", "body", "error"),
    [
        (
            "Pod",
            {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 2**31}]}]}},
            "json: cannot unmarshal number 2147483648 into Go struct field "
            "ContainerPort.spec.containers.ports.containerPort of type int32",
        ),
        (
            "Pod",
            {"spec": {"activeDeadlineSeconds": 2**31}},
            None,  # int64: in range
        ),
        (
            "Pod",
            {"spec": {"volumes": [{"name": "v", "configMap": {"defaultMode": "0644"}}]}},
            "json: cannot unmarshal string into Go struct field "
            "ConfigMapVolumeSource.spec.volumes.configMap.defaultMode of type int32",
        ),
        (
            "Service",
            {"spec": {"ports": [{"port": 80, "targetPort": True}]}},
            # IntOrString's UnmarshalJSON decodes a non-string into an int32; Go's decoder adds the field
            "json: cannot unmarshal bool into Go struct field "
            "ServicePort.spec.ports.targetPort of type int32",
        ),
        (
            "HorizontalPodAutoscaler",
            {"spec": {"metrics": [{"type": "Resource", "resource": {"target": {"averageValue": True}}}]}},
            # Quantity's UnmarshalJSON hands the raw `true` to ParseQuantity, whose error is returned as is
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            "Service",
            {"spec": {"ports": [{"port": 80, "targetPort": 1.5}]}},
            "json: cannot unmarshal number 1.5 into Go struct field "
            "ServicePort.spec.ports.targetPort of type int32",
        ),
        (
            "Service",
            {"spec": {"ports": [{"port": 80, "targetPort": "http"}]}},
            None,
        ),
        (
            "Pod",
            {"metadata": {"creationTimestamp": 7}},
            # metav1.Time's UnmarshalJSON decodes into a string first
            "json: cannot unmarshal number into Go struct field "
            "ObjectMeta.metadata.creationTimestamp of type string",
        ),
        (
            "Pod",
            {"metadata": {"creationTimestamp": "yesterday"}},
            'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
        ),
        (
            "Pod",
            {"metadata": {"deletionTimestamp": "2026-02-30T10:00:00Z"}},
            'parsing time "2026-02-30T10:00:00Z": day out of range',
        ),
        (
            "Pod",
            {"metadata": {"creationTimestamp": "2026-12-05T14:00:00.5+01:00"}},
            None,  # Go reads a fraction the layout does not name, and a numeric zone
        ),
        (
            "Lease",
            {"spec": {"renewTime": "2026-12-05T14:00:00Z"}},
            # metav1.MicroTime's layout names six fractional digits, which Go then requires
            'parsing time "2026-12-05T14:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": '
            'cannot parse "Z" as ".000000"',
        ),
        (
            "Pod",
            {"spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "32MMi"}}}]}},
            "unable to parse quantity's suffix",
        ),
    ],
)
def test_the_type_check_reads_upstreams_field_types(kind, body, error):
    assert type_error(kind_info(kind), body) == error


def test_a_number_past_int64_is_quoted_as_its_literal():
    body = json.loads('{"spec": {"activeDeadlineSeconds": 18446744073709551616}}', parse_int=int_from_text)
    assert type_error(kind_info("Pod"), body) == (
        "json: cannot unmarshal number 18446744073709551616 into Go struct field "
        "PodSpec.spec.activeDeadlineSeconds of type int64"
    )
