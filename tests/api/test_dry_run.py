"""Dry runs and PatchOptions over HTTP, as kube-apiserver answers them: a dry run stores nothing
and hands out no resourceVersion of its own; an apply names its field manager."""

from __future__ import annotations

import pytest

from cluster.models import ApiObject
from tests.api.conftest import PODS, pod_json, post_pod

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]


def test_a_dry_run_create_hands_out_no_resource_version(client, cluster):
    response = client.post(f"{PODS}?dryRun=All", pod_json(), content_type="application/json")
    assert response.status_code == 201
    assert "resourceVersion" not in response.json()["metadata"] and response.json()["metadata"]["uid"]
    assert not ApiObject.objects.exists()


def test_a_dry_run_write_keeps_the_stored_resource_version(client, cluster):
    stored = post_pod(client).json()["metadata"]["resourceVersion"]
    patch = '{"metadata":{"labels":{"x":"y"}}}'
    merge = "application/merge-patch+json"
    patched = client.patch(f"{PODS}/web?dryRun=All", patch, content_type=merge).json()
    assert patched["metadata"]["labels"] == {"x": "y"}
    assert patched["metadata"]["resourceVersion"] == stored
    applied = client.patch(
        f"{PODS}/web?dryRun=All&fieldManager=me", patch, content_type="application/apply-patch+yaml"
    ).json()
    assert applied["metadata"]["resourceVersion"] == stored
    assert client.get(f"{PODS}/web").json()["metadata"]["resourceVersion"] == stored


def test_an_apply_names_its_field_manager_and_only_an_apply_forces(client, cluster):
    post_pod(client)
    apply = "application/apply-patch+yaml"
    refused = client.patch(f"{PODS}/web", "{}", content_type=apply).json()
    assert refused["code"] == 422
    assert refused["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'
    )
    merge = "application/merge-patch+json"
    refused = client.patch(f"{PODS}/web?force=false", "{}", content_type=merge).json()
    assert refused["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: may not be specified for non-apply patch",
            "field": "force",
        }
    ]
