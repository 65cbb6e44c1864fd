"""A StatefulSet's claims and their owners under persistentVolumeClaimRetentionPolicy: upstream's
tables from `pkg/controller/statefulset/stateful_set_utils_test.go` (TestUpdateClaimOwnerRefForSetAndPod,
TestUpdateClaimControllerRef, TestHasUnexpectedController), ported."""

from __future__ import annotations

import itertools

import pytest

from cluster.controllers.statefulset import claim_owner_refs, has_stale_owner_ref, has_unexpected_controller

RETAIN, DELETE = "Retain", "Delete"


def stateful_set(name: str, uid: str, when_scaled: str | None, when_deleted: str | None) -> dict:
    spec: dict = {"replicas": 5}
    if when_scaled is not None:
        spec["persistentVolumeClaimRetentionPolicy"] = {
            "whenScaled": when_scaled,
            "whenDeleted": when_deleted,
        }
    return {"metadata": {"name": name, "uid": uid}, "spec": spec}


def pod(name: str, uid: str) -> dict:
    return {"metadata": {"name": name, "uid": uid}}


def controller_ref(obj: dict, api_version: str, kind: str) -> dict:
    meta = obj["metadata"]
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def is_controller(refs: list[dict], owner: dict) -> bool:
    """The test's check: the owner's ref, if any, is a controller ref."""
    for ref in refs:
        if ref.get("uid") == owner["metadata"]["uid"]:
            return bool(ref.get("controller"))
    return False


# name, whenScaled, whenDeleted, condemned, needsPodRef, needsSetRef, unexpectedController
UPDATE_CASES = [
    ("retain", RETAIN, RETAIN, False, False, False, False),
    ("delete with set", RETAIN, DELETE, False, False, True, False),
    ("delete with scaledown, not condemned", DELETE, RETAIN, False, False, False, False),
    ("delete on scaledown, condemned", DELETE, RETAIN, True, True, False, False),
    ("delete on both, not condemned", DELETE, DELETE, False, False, True, False),
    ("delete on both, condemned", DELETE, DELETE, True, True, False, False),
    ("unexpected controller", DELETE, DELETE, True, False, False, True),
]


@pytest.mark.parametrize(
    ("scaled", "deleted", "condemned", "needs_pod", "needs_set", "unexpected"),
    [case[1:] for case in UPDATE_CASES],
    ids=[case[0] for case in UPDATE_CASES],
)
@pytest.mark.parametrize("variation", range(8))
def test_update_claim_owner_ref_for_set_and_pod(
    scaled, deleted, condemned, needs_pod, needs_set, unexpected, variation
):
    has_pod_ref, has_set_ref, extra_owner = variation & 1, variation & 2, variation & 3
    sts = stateful_set("ss", "ss-123", scaled, deleted)
    the_pod = pod("pod-8" if condemned else "pod-1", "pod-456")  # 5 replicas: ordinal 8 is condemned
    refs: list[dict] = []
    if has_pod_ref:
        refs.append(controller_ref(the_pod, "v1", "Pod"))
    if has_set_ref:
        refs.append(controller_ref(sts, "apps/v1", "StatefulSet"))
    if extra_owner:  # it must not change our refs
        refs.append({"apiVersion": "custom/v1", "kind": "random", "name": "random", "uid": "abc"})
    if unexpected:
        refs.append(
            {
                "apiVersion": "custom/v1",
                "kind": "Unknown",
                "name": "unknown",
                "uid": "xyz",
                "controller": True,
            }
        )
    updated = claim_owner_refs(refs, sts, the_pod, scaled_down=condemned)
    assert is_controller(updated, the_pod) == needs_pod
    assert is_controller(updated, sts) == needs_set
    if extra_owner:
        assert {"apiVersion": "custom/v1", "kind": "random", "name": "random", "uid": "abc"} in updated


SET_REF = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "sts", "uid": "123", "controller": True}
CONTROLLER_REF_CASES = [
    (
        "set correctly",
        [SET_REF, {"apiVersion": "someone", "kind": "Else", "name": "foo"}],
        [SET_REF, {"apiVersion": "someone", "kind": "Else", "name": "foo"}],
    ),
    ("missing controller", [{**SET_REF, "controller": None}], [SET_REF]),
    (
        "matching name but missing",
        [{"apiVersion": "someone", "kind": "else", "name": "sts", "uid": "456"}],
        [{"apiVersion": "someone", "kind": "else", "name": "sts", "uid": "456"}, SET_REF],
    ),
    ("not present", [], [SET_REF]),
    # A missing uid reads as an unexpected stale reference.
    ("controller, but no UID", [{k: v for k, v in SET_REF.items() if k != "uid"}], []),
    ("neither controller nor UID", [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "sts"}], []),
]


def _essence(refs: list[dict]) -> list[tuple]:
    """ownerRefsChanged compares apiVersion, kind, name, uid and controller, in any order."""
    return sorted(
        (r.get("apiVersion"), r.get("kind"), r.get("name"), r.get("uid"), bool(r.get("controller")))
        for r in refs
    )


@pytest.mark.parametrize(
    ("original", "expected"),
    [case[1:] for case in CONTROLLER_REF_CASES],
    ids=[case[0] for case in CONTROLLER_REF_CASES],
)
def test_update_claim_controller_ref(original, expected):
    sts = stateful_set("sts", "123", DELETE, DELETE)
    sts["spec"]["replicas"] = 1
    updated = claim_owner_refs(original, sts, pod("pod-0", "456"), scaled_down=False)
    assert _essence(updated) == _essence(expected)


def _ref(api_version: str, kind: str, name: str, uid: str, controller: bool | None = None) -> dict:
    ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}
    if controller is not None:
        ref["controller"] = controller
    return ref


UNEXPECTED_CASES = [
    ("custom controller", [_ref("chipmunks/v1", "CustomController", "simon", "other-uid", True)], True),
    ("custom non-controller", [_ref("chipmunks/v1", "CustomController", "simon", "other-uid", False)], False),
    (
        "custom unspecified controller",
        [_ref("chipmunks/v1", "CustomController", "simon", "other-uid")],
        False,
    ),
    ("other pod controller", [_ref("v1", "Pod", "simon", "other-uid", True)], True),
    ("other set controller", [_ref("apps/v1", "Set", "simon", "other-uid", True)], True),
    ("own set controller", [_ref("apps/v1", "StatefulSet", "set", "set-uid", True)], False),
    ("own set controller, stale uid", [_ref("apps/v1", "StatefulSet", "set", "stale-uid", True)], True),
    ("own pod controller", [_ref("v1", "Pod", "pod", "pod-uid", True)], False),
    ("own pod controller, stale uid", [_ref("v1", "Pod", "pod", "stale-uid", True)], True),
    (
        "own controller and another",
        [
            _ref("v1", "Pod", "pod", "pod-uid", True),
            _ref("chipmunks/v1", "CustomController", "simon", "other-uid", True),
        ],
        True,
    ),
    (
        "own controller and a non-controller",
        [
            _ref("v1", "Pod", "pod", "pod-uid", True),
            _ref("chipmunks/v1", "CustomController", "simon", "other-uid", False),
        ],
        False,
    ),
]


@pytest.mark.parametrize(
    ("refs", "unexpected"),
    [case[1:] for case in UNEXPECTED_CASES],
    ids=[case[0] for case in UNEXPECTED_CASES],
)
def test_has_unexpected_controller(refs, unexpected):
    the_pod = pod("pod", "pod-uid")
    # Any controller is allowed when no retention policy (Retain on both) is given.
    assert not has_unexpected_controller(refs, stateful_set("set", "set-uid", None, None), the_pod)
    for scaled, deleted in ((DELETE, RETAIN), (RETAIN, DELETE), (DELETE, DELETE)):
        sts = stateful_set("set", "set-uid", scaled, deleted)
        assert has_unexpected_controller(refs, sts, the_pod) == unexpected


def test_a_stale_owner_ref_names_the_object_with_another_uid():
    sts = stateful_set("set", "set-uid", DELETE, DELETE)
    assert has_stale_owner_ref(
        [_ref("apps/v1", "StatefulSet", "set", "old-uid")], sts, "apps/v1", "StatefulSet"
    )
    assert not has_stale_owner_ref(
        [_ref("apps/v1", "StatefulSet", "set", "set-uid")], sts, "apps/v1", "StatefulSet"
    )
    assert not has_stale_owner_ref(
        [_ref("apps/v1", "StatefulSet", "other", "x")], sts, "apps/v1", "StatefulSet"
    )


def test_every_policy_pair_gives_at_most_one_controller():
    sts_pod = pod("web-3", "p")
    for scaled, deleted, down in itertools.product((RETAIN, DELETE), (RETAIN, DELETE), (False, True)):
        refs = claim_owner_refs([], stateful_set("web", "s", scaled, deleted), sts_pod, scaled_down=down)
        assert sum(1 for r in refs if r.get("controller")) <= 1
