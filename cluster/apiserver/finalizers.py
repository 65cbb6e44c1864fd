"""`metadata.finalizers`, as kube-apiserver's generic store honours them (`registry/generic/registry`
`Store.Delete` and `shouldDeleteDuringUpdate`, `ValidateNoNewFinalizers`).

A delete of an object that names finalizers does not remove it: the object gets
`metadata.deletionTimestamp` (now) and `deletionGracePeriodSeconds: 0` and stays, Terminating,
until whoever owns each finalizer removes it with an update or a patch; the update that removes
the last one removes the object (one DELETED watch event). No finalizer may be added once the
object is being deleted.
"""

from __future__ import annotations

from cluster.apiserver import store
from cluster.apiserver.fielderrors import FieldErrors
from k8s import clock

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# The garbage collector's own finalizers (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents).
ORPHAN = "orphan"
FOREGROUND = "foregroundDeletion"


def of(body: dict) -> list[str]:
    found = (body.get("metadata") or {}).get("finalizers")
    return [f for f in found if isinstance(f, str)] if isinstance(found, list) else []


def mark_deleting(body: dict, add: str | None = None) -> dict | None:
    """The object to store instead of removing it (deletionTimestamp set if unset, grace period
    0, `add` appended), or None when that is what is stored already."""
    marked = store.clone(body)
    meta = marked["metadata"]
    if add and add not in of(marked):
        meta["finalizers"] = [*of(marked), add]
    meta.setdefault("deletionTimestamp", clock.now().strftime(TIME_FORMAT))
    meta["deletionGracePeriodSeconds"] = 0
    return None if marked == body else marked


def without(body: dict, finalizer: str) -> dict:
    """A copy of `body` with `finalizer` removed (the field dropped when none is left)."""
    changed = store.clone(body)
    kept = [f for f in of(changed) if f != finalizer]
    if kept:
        changed["metadata"]["finalizers"] = kept
    else:
        changed["metadata"].pop("finalizers", None)
    return changed


def released(old: dict, new: dict) -> bool:
    """shouldDeleteDuringUpdate: an update of an object being deleted that leaves no finalizer
    removes it, unless a graceful deletion still runs (a pod its kubelet has not stopped yet)."""
    old_meta = old.get("metadata") or {}
    if of(new) or not old_meta.get("deletionTimestamp"):
        return False
    if new.get("kind") == "Namespace" and (new.get("spec") or {}).get("finalizers"):
        return False  # ShouldDeleteNamespaceDuringUpdate: its spec.finalizers too must be empty
    return old_meta.get("deletionGracePeriodSeconds") in (None, 0)


def check_no_new(errors: FieldErrors, new: dict, old: dict) -> None:
    """ValidateNoNewFinalizers, on the update of an object being deleted."""
    if not (old.get("metadata") or {}).get("deletionTimestamp"):
        return
    extra = sorted(set(of(new)) - set(of(old)))
    if extra:
        listed = ", ".join(f'"{f}"' for f in extra)
        errors.forbidden(
            "metadata.finalizers",
            "no new finalizers can be added if the object is being deleted, "
            f"found new finalizers []string{{{listed}}}",
        )
