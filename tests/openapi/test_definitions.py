"""The committed type table (cluster/openapi/definitions.json) is the generator's output, and it
covers every kind KubeSim serves."""

from __future__ import annotations

import json

from cluster.apiserver import kinds
from cluster.openapi import definitions, generate


def test_the_committed_table_is_what_the_generator_writes_from_it():
    committed = generate.OUTPUT.read_text()
    assert generate.render(generate.generate(json.loads(committed), "unused")) == committed


def test_the_table_records_its_upstream_source():
    assert definitions.SOURCE["release"] == "v1.33"
    assert definitions.SOURCE["document"] == "kubernetes/kubernetes api/openapi-spec/swagger.json"
    assert len(definitions.SOURCE["sha256"]) == 64


def test_every_served_kind_and_subresource_kind_has_its_upstream_definition():
    for info in kinds.KINDS.values():
        for version in info.versions:
            name = definitions.for_kind(info.group, version, info.kind)
            assert name is not None, (info.kind, version)
            props = definitions.DEFINITIONS[name]["properties"]
            assert {"apiVersion", "kind", "metadata"} <= props.keys(), info.kind
        for sub in info.subresources:
            if sub.name not in ("log", "exec", "attach", "portforward", "proxy"):
                assert definitions.for_kind(sub.group, sub.version, sub.kind), (info.kind, sub.name)


def test_every_reference_resolves_inside_the_table():
    for name, schema in definitions.DEFINITIONS.items():
        for ref in generate._refs(schema):
            assert ref in definitions.DEFINITIONS, (name, ref)


def test_fields_carry_upstreams_types():
    affinity = definitions.fields("io.k8s.api.core.v1.Affinity")
    assert affinity["podAntiAffinity"] == "io.k8s.api.core.v1.PodAntiAffinity"
    assert definitions.fields("io.k8s.api.apps.v1.RollingUpdateDeployment")["maxSurge"] == "IntOrString"
    assert definitions.fields("io.k8s.api.core.v1.ResourceRequirements")["limits"] == "{Quantity}"
    assert definitions.fields("io.k8s.api.core.v1.ContainerPort")["containerPort"] == "int32"
    assert definitions.fields("io.k8s.api.core.v1.PodSpec")["activeDeadlineSeconds"] == "int64"
    assert definitions.fields("io.k8s.api.core.v1.PodSpec")["containers"] == "[io.k8s.api.core.v1.Container]"
    assert definitions.fields("io.k8s.api.apps.v1.ControllerRevision")["data"] == "object"
    assert definitions.merge_keys("io.k8s.api.core.v1.PodSpec")["containers"] == "name"
    assert definitions.merge_keys("io.k8s.api.core.v1.Container")["ports"] == "containerPort"
