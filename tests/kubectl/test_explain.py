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


_LINE = re.compile(r"^((?:  )+)(\w+)\t<(.+?)>( -required-)?$")


def _child(name: str, field: str) -> str | None:
    """The definition whose fields kubectl lists under `field` of `name` (through lists and maps)."""
    spec = (definitions.fields(name) or {}).get(field, "").strip("[]{}")
    return spec if definitions.fields(spec) else None


def _check_recursive(root: str, out: str) -> int:
    """Every line of `explain --recursive` names a field of its parent's upstream definition with
    kubectl's type guess and required mark, and every expanded type lists all of its fields."""
    stack: list[str | None] = [root]  # the definition of each open level
    listed: dict[int, list[str]] = {}  # level -> fields printed so far under the open parent
    checked = 0

    def close(level: int) -> None:
        for depth in sorted((d for d in listed if d > level), reverse=True):
            parent = stack[depth - 1]
            if parent is not None and listed[depth]:
                assert listed[depth] == sorted(definitions.DEFINITIONS[parent]["properties"]), parent
            del listed[depth]

    for line in out.split("FIELDS:\n", 1)[1].splitlines():
        found = _LINE.match(line)
        if not found:
            assert not line.strip(), line
            continue
        level, field = len(found[1]) // 2, found[2]
        close(level)
        parent = stack[level - 1]
        assert parent is not None, line
        schema = definitions.DEFINITIONS[parent]
        assert field in schema["properties"], (parent, field)
        assert found[3] == _type_guess(schema["properties"][field]), (parent, field)
        assert bool(found[4]) == (field in schema.get("required", ())), (parent, field)
        listed.setdefault(level, []).append(field)
        del stack[level:]
        stack.append(_child(parent, field))
        checked += 1
    close(0)
    return checked


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
        assert _check_recursive(name, out) > len(top), info.kind
        plain = kubectl.ok("explain", info.plural, f"--api-version={info.api_version}")
        assert "<no description>" not in plain and "<empty>" not in plain, info.kind
