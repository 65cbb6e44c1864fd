"""The served OpenAPI v3 documents and the checks that read the same table: upstream's words."""

from __future__ import annotations

import pytest

from cluster.apiserver.kinds import kind_info
from cluster.apiserver.typecheck import type_error
from cluster.kubeapi import openapi

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
            "json: cannot unmarshal number 2.14748e+09 into Go struct field "
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
            "json: cannot unmarshal bool into Go struct field "
            "ServicePort.spec.ports.targetPort of type intstr.IntOrString",
        ),
        (
            "HorizontalPodAutoscaler",
            {"spec": {"metrics": [{"type": "Resource", "resource": {"target": {"averageValue": True}}}]}},
            "json: cannot unmarshal bool into Go struct field "
            "MetricTarget.spec.metrics.resource.target.averageValue of type resource.Quantity",
        ),
    ],
)
def test_the_type_check_reads_upstreams_field_types(kind, body, error):
    assert type_error(kind_info(kind), body) == error
