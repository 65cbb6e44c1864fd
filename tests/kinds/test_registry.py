"""The kind registry is the one source: every kind has its hooks, and every view agrees with it."""

from __future__ import annotations

import pytest
from django.urls import Resolver404, resolve

from cluster.api.paths import resolve as resolve_path
from cluster.apiserver import kinds
from cluster.apiserver.errors import ApiError
from cluster.kubeapi import discovery, openapi
from cluster.kubeapi.resources import REVIEWS
from dashboard.console import parser
from labs import schema, vocabulary


@pytest.mark.parametrize("info", list(kinds.KINDS.values()), ids=list(kinds.KINDS))
def test_every_kind_has_defaults_a_validator_a_table_and_a_describe(info):
    assert callable(info.defaults)
    assert callable(info.validate)
    assert info.table is not None and info.table.columns and callable(info.table.row)
    assert callable(info.describe) or info.describe == kinds.YAML_ONLY


def test_a_kind_without_hooks_is_refused():
    toy = kinds.KindInfo(
        kind="Gadget",
        plural="gadgets",
        singular="gadget",
        group="toys.example.com",
        version="v1",
        namespaced=False,
    )
    with pytest.raises(kinds.RegistryError, match="needs hooks: defaults, validate, table, describe"):
        kinds.register(toy)
    assert "Gadget" not in kinds.KINDS


def _discovered() -> dict[str, dict]:
    """kind -> its discovery entry, from /api/v1 and every /apis/<group>/<version>."""
    found = {}
    for group, members in kinds.groups().items():
        listing = discovery.api_resource_list(group, members[0].version)
        for entry in listing["resources"]:
            if "/" not in entry["name"]:
                found[entry["kind"]] = entry
    return found


def test_discovery_lists_exactly_the_registered_kinds_with_their_facts():
    found = _discovered()
    assert set(found) == set(kinds.KINDS)
    for info in kinds.KINDS.values():
        entry = found[info.kind]
        assert entry["name"] == info.plural and entry["singularName"] == info.singular
        assert entry["namespaced"] == info.namespaced
        assert entry.get("shortNames", []) == list(info.short_names)
        assert entry.get("categories", []) == list(info.categories)
    reviews = {r.kind for r in REVIEWS}
    assert not reviews & set(kinds.KINDS), "reviews store nothing: they are not registered kinds"


def test_discovery_lists_each_registered_subresource():
    for info in kinds.KINDS.values():
        listing = discovery.api_resource_list(info.group, info.version)
        subs = {
            e["name"].split("/", 1)[1]
            for e in listing["resources"]
            if e["name"].startswith(f"{info.plural}/")
        }
        assert subs == {s.name for s in info.subresources}, info.kind


def test_openapi_has_a_document_for_every_registered_group_version():
    for info in kinds.KINDS.values():
        path = f"apis/{info.group}/{info.version}" if info.group else f"api/{info.version}"
        doc = openapi.group_version_document(path)
        assert doc is not None
        assert any(p.endswith(f"/{info.plural}") for p in doc["paths"]), info.kind


def test_the_console_resolves_every_name_of_every_console_kind():
    for info in kinds.KINDS.values():
        for name in info.names:
            if info.console:
                assert parser.resource_for(name) is info
            else:
                with pytest.raises(parser.UsageError):
                    parser.resource_for(name)


def test_the_router_serves_exactly_the_registered_kinds_and_subresources():
    for info in kinds.KINDS.values():
        prefix = "namespaces/default/" if info.namespaced else ""
        target = resolve_path(info.group, info.version, f"{prefix}{info.plural}/x")
        assert target.info is info
        for sub in info.subresources:
            assert (
                resolve_path(info.group, info.version, f"{prefix}{info.plural}/x/{sub.name}").subresource
                == sub.name
            )
        with pytest.raises(ApiError):
            resolve_path(info.group, info.version, f"{prefix}{info.plural}/x/nosuchsubresource")
        url = f"/clusters/demo/apis/{info.group}/{info.version}/" if info.group else "/clusters/demo/api/v1/"
        resolve(url + f"{prefix}{info.plural}")
    with pytest.raises(ApiError):
        resolve_path("", "v1", "nosuchkinds")


def test_the_django_router_does_not_route_an_unknown_prefix():
    with pytest.raises(Resolver404):
        resolve("/clusters/demo/nowhere/v1/pods")


def test_labs_and_the_page_read_the_registry():
    assert schema.manifest_kinds() == tuple(k for k, i in kinds.KINDS.items() if i.lab_manifest)
    assert vocabulary.kinds() == tuple(k for k, i in kinds.KINDS.items() if i.lab_check)
    page = kinds.page_kinds()
    assert page["workloads"] == [
        "ReplicationController",
        "ReplicaSet",
        "Deployment",
        "DaemonSet",
        "StatefulSet",
        "Job",
        "CronJob",
    ]
    assert page["resources"]["ReplicaSet"] == {
        "plural": "replicasets",
        "group": "apps",
        "version": "v1",
        "namespaced": True,
        "shortNames": ["rs"],
    }
    assert set(page["resources"]) == set(kinds.KINDS)
    # Owners first: a controller must not recreate what a reset just deleted.
    order = kinds.reset_order()
    assert order.index("Deployment") < order.index("ReplicaSet") < order.index("Pod")
    assert order.index("ReplicationController") < order.index("Pod")
    assert "Lease" not in order
