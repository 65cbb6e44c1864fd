"""`kubectl explain` with the real kubectl 1.33: upstream's descriptions and type names, for every
served kind, read from the OpenAPI v3 documents built from cluster/openapi/definitions.json."""

from __future__ import annotations

import re

from cluster.apiserver import kinds
from cluster.openapi import definitions

# Upstream's text (k8s.io/api core/v1 types.go), byte for byte as kubectl 1.33 wraps it.
AFFINITY = """\
KIND:       Pod
VERSION:    v1

FIELD: affinity <Affinity>


DESCRIPTION:
    If specified, the pod's scheduling constraints
    Affinity is a group of affinity scheduling rules.
    \nFIELDS:
  nodeAffinity\t<NodeAffinity>
    Describes node affinity scheduling rules for the pod.

  podAffinity\t<PodAffinity>
    Describes pod affinity scheduling rules (e.g. co-locate this pod in the same
    node, zone, etc. as some other pod(s)).

  podAntiAffinity\t<PodAntiAffinity>
    Describes pod anti-affinity scheduling rules (e.g. avoid putting this pod in
    the same node, zone, etc. as some other pod(s)).


"""


def test_explain_pod_affinity_prints_upstreams_descriptions_and_type_names(kubectl):
    assert kubectl.ok("explain", "pod.spec.affinity") == AFFINITY


def test_int_or_string_and_quantity_fields_are_named_as_upstream_names_them(kubectl):
    surge = kubectl.ok("explain", "deployment.spec.strategy.rollingUpdate.maxSurge")
    assert "FIELD: maxSurge <IntOrString>" in surge
    assert "IntOrString is a type that can hold an int32 or a string." in surge
    resources = kubectl.ok("explain", "pod.spec.containers.resources")
    assert "  limits\t<map[string]Quantity>\n" in resources
    assert "  claims\t<[]ResourceClaim>\n" in resources
    probe = kubectl.ok("explain", "pod.spec.containers.livenessProbe.httpGet")
    assert "  port\t<IntOrString> -required-\n" in probe
    meta = kubectl.ok("explain", "pod.metadata")
    assert "  creationTimestamp\t<string>\n" in meta and "  labels\t<map[string]string>\n" in meta


def test_required_fields_are_marked(kubectl):
    containers = kubectl.ok("explain", "pod.spec.containers")
    assert "  name\t<string> -required-\n" in containers
    assert "  image\t<string>\n" in containers


def test_a_kind_served_in_two_versions_is_explained_in_each(kubectl):
    v2 = kubectl.ok("explain", "hpa.spec")
    assert "VERSION:    v2" in v2 and "  metrics\t<[]MetricSpec>\n" in v2
    v1 = kubectl.ok("explain", "hpa.spec", "--api-version=autoscaling/v1")
    assert "VERSION:    v1" in v1 and "  targetCPUUtilizationPercentage\t<integer>\n" in v1


def _type_guess(schema: dict) -> str:
    """kubectl's typeGuess (explain/v2/templates/plaintext.tmpl) over a v2 definition's property."""
    if "items" in schema:
        return "[]" + _type_guess(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        return "map[string]" + _type_guess(schema["additionalProperties"])
    ref = schema.get("$ref", "")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        target = definitions.DEFINITIONS[name]
        if name in definitions.SCALARS and definitions.SCALARS[name] in ("Quantity", "IntOrString"):
            return definitions.short(name)
        if target.get("type", "object") == "object":
            return definitions.short(name)
        return target["type"]
    return "Object" if schema.get("type", "object") == "object" else schema["type"]


def test_explain_recursive_lists_upstreams_fields_for_every_served_kind(kubectl):
    for info in kinds.KINDS.values():
        name = definitions.for_kind(info.group, info.version, info.kind)
        assert name, f"{info.kind} has no upstream definition"
        out = kubectl.ok("explain", info.plural, "--recursive", f"--api-version={info.api_version}")
        schema = definitions.DEFINITIONS[name]
        top = re.findall(r"^  (\w+)\t<(.+?)>( -required-)?$", out, re.MULTILINE)
        expected = [
            (field, _type_guess(prop), " -required-" if field in schema.get("required", ()) else "")
            for field, prop in sorted(schema["properties"].items())
        ]
        assert top == expected, info.kind
        plain = kubectl.ok("explain", info.plural, f"--api-version={info.api_version}")
        assert "<no description>" not in plain and "<empty>" not in plain, info.kind
