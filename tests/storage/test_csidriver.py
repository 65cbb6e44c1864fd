"""CSIDrivers as the API server serves them: SetDefaults_CSIDriver, ValidateCSIDriver(Update)'s
words and printCSIDriver's cells."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kubeapi.tables import to_table
from tests.support.demo import KUBECTL, demo  # noqa: F401


def driver(name: str = "disk.csi.example.com", **spec) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": name}, "spec": spec}


def cells(obj: dict) -> dict:
    table = to_table("CSIDriver", [obj])
    names = [c["name"] for c in table["columnDefinitions"]]
    return dict(zip(names, table["rows"][0]["cells"], strict=True))


def test_defaults_and_the_table(demo):  # noqa: F811
    made = api.create(demo, driver(), KUBECTL)
    assert made["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "volumeLifecycleModes": ["Persistent"],
        "requiresRepublish": False,
        "seLinuxMount": False,
    }
    row = cells(made)
    del row["Age"]
    assert row == {
        "Name": "disk.csi.example.com",
        "AttachRequired": True,
        "PodInfoOnMount": False,
        "StorageCapacity": False,
        "TokenRequests": "<unset>",
        "RequiresRepublish": False,
        "Modes": "Persistent",
    }
    tokens = driver("t.example.com", tokenRequests=[{"audience": "a"}, {"audience": "b"}])
    tokens["spec"]["volumeLifecycleModes"] = ["Persistent", "Ephemeral"]
    row = cells(api.create(demo, tokens, KUBECTL))
    assert (row["TokenRequests"], row["Modes"]) == ("a,b", "Persistent,Ephemeral")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"fsGroupPolicy": "Any"},
            'spec.fsGroupPolicy: Unsupported value: "Any": supported values: '
            '"File", "None", "ReadWriteOnceWithFSType"',
        ),
        (
            {"volumeLifecycleModes": ["Forever"]},
            'spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: '
            '"Persistent", "Ephemeral"',
        ),
        (
            {"tokenRequests": [{"audience": "a", "expirationSeconds": 60}]},
            "spec.tokenRequests[0].expirationSeconds: Invalid value: 60: "
            "may not specify a duration less than 10 minutes",
        ),
        (
            {"tokenRequests": [{"audience": "a"}, {"audience": "a"}]},
            'spec.tokenRequests[1].audience: Duplicate value: "a"',
        ),
        (
            {"nodeAllocatableUpdatePeriodSeconds": 5},
            "spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: "
            "must be greater than or equal to 10 seconds",
        ),
    ],
)
def test_upstreams_validation_words(demo, spec, message):  # noqa: F811
    with pytest.raises(ApiError) as refused:
        api.create(demo, driver(**spec), KUBECTL)
    assert refused.value.code == 422 and message in refused.value.message


def test_attach_required_and_modes_are_immutable(demo):  # noqa: F811
    made = api.create(demo, driver(), KUBECTL)
    made["spec"]["attachRequired"] = False
    made["spec"]["volumeLifecycleModes"] = ["Ephemeral"]
    with pytest.raises(ApiError) as refused:
        api.update(demo, made, KUBECTL)
    assert "spec.attachedRequired: Invalid value: false: field is immutable" in refused.value.message
    assert (
        'spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: '
        "field is immutable"
    ) in refused.value.message
