"""Cluster state: Kubernetes objects stored as their JSON, an etcd-like event log, and flow traces.

Only `cluster.apiserver` writes these rows (docs/architecture.md rule 1).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Cluster(models.Model):
    """One simulated cluster: the teacher's demo or a student's sandbox."""

    name = models.SlugField(max_length=63, unique=True)
    # etcd's revision: every write bumps it and stamps it as the object's resourceVersion.
    revision = models.BigIntegerField(default=0)
    # Watches from a revision below this get 410 Gone (the log before it was compacted).
    compacted_revision = models.BigIntegerField(default=0)
    pace_ms = models.PositiveIntegerField(default=settings.KUBESIM_PACE_MS)
    step_mode = models.BooleanField(default=False)
    public = models.BooleanField(default=True, help_text="Visible to everyone (the classroom demo).")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="clusters"
    )
    # The presenter switch "class may write": everyone who sees a public cluster may change it
    # (through its quota and rate limits); otherwise only the teacher (and a sandbox's owner).
    class_may_write = models.BooleanField(default=False)
    # The teacher's overrides of the classroom quota (cluster/apiserver/admission/quota.py):
    # {"pods": 50, ...}.
    quota = models.JSONField(default=dict, blank=True)
    # How many seconds this cluster's clock runs ahead of real time: a teacher's jump to the next
    # CronJob schedule moves it (cluster/controlplane/clock.py).
    clock_offset = models.FloatField(default=0.0)
    # The kubelets the teacher stopped (a node failure, which kubectl cannot cause): node name ->
    # when it stopped posting, on the cluster's clock (cluster/kubelet/power.py).
    stopped_kubelets = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class FlowTrace(models.Model):
    """One user action that creates or changes a workload, and the 13 steps it causes."""

    id = models.CharField(max_length=16, primary_key=True)
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="traces")
    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    verb = models.CharField(max_length=20)  # create / update / patch / scale / delete
    client = models.CharField(max_length=200)  # who played kubectl's part: "kubectl", "web form", ...
    # Step mode: how many more steps the user has released with "next".
    permits = models.IntegerField(default=0)
    # Step mode: the lowest step a component of this trace waits at the gate for "next" (0: none).
    gate_step = models.PositiveSmallIntegerField(default=0)
    # How many pods the controller decided to create (step 6): the trace is not complete before
    # that many were created, even when the first ones already run.
    expected_pods = models.IntegerField(default=0)
    # The traces this one follows from without being part of them, space-separated ids: a
    # controller's replacement follows the deletions (evictions) of the pods it replaces; a
    # preemption victim's deletion follows the preemptor's trace.
    causes = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["cluster", "-created_at"])]


class FlowStep(models.Model):
    """A numbered step of the course's list-watch flow, recorded by the part that performed it."""

    # No index of its own: the unique (trace, seq) index serves lookups by trace, and one fewer
    # index to update per step (a 1,000-replica burst records ~7,000).
    trace = models.ForeignKey(FlowTrace, on_delete=models.CASCADE, related_name="steps", db_index=False)
    seq = models.PositiveIntegerField()  # order within the trace
    step = models.PositiveSmallIntegerField()  # the course's number, 1..13
    actor = models.CharField(max_length=40)  # kubectl/apiserver/etcd/controller-manager/scheduler/kubelet
    source = models.CharField(max_length=60)
    target = models.CharField(max_length=60)
    title_en = models.CharField(max_length=200)
    title_zh = models.CharField(max_length=200)
    detail_en = models.TextField()
    detail_zh = models.TextField()
    skipped = models.BooleanField(default=False)
    object_kind = models.CharField(max_length=40, blank=True)
    object_namespace = models.CharField(max_length=253, blank=True)
    object_name = models.CharField(max_length=253, blank=True)
    node = models.CharField(max_length=253, blank=True)
    revision = models.BigIntegerField(default=0)
    # An ending entry (step 0): how the trace, or one pod of it, ended ("completed", "deleted",
    # "failed"); `final` marks the trace's own ending. Numbered steps leave both empty.
    ending = models.CharField(max_length=20, blank=True, default="")
    final = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["trace", "seq"]
        constraints = [models.UniqueConstraint(fields=["trace", "seq"], name="flowstep_unique_seq")]


class ApiObject(models.Model):
    """Any Kubernetes object, stored as its JSON with indexed columns for what is queried."""

    # Lookups by cluster use the composite indexes below, which start with it.
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="api_objects", db_index=False)
    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=253, blank=True)  # "" for cluster-scoped kinds
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=36)
    resource_version = models.BigIntegerField()
    body = models.JSONField()
    node_name = models.CharField(max_length=253, blank=True)  # Pod: spec.nodeName
    phase = models.CharField(max_length=40, blank=True)  # Pod: status.phase
    owner_uid = models.CharField(max_length=36, blank=True)  # controller ownerReference
    # metadata.deletionTimestamp is set: a controller counts its active pods without parsing bodies.
    deleting = models.BooleanField(default=False)
    trace = models.ForeignKey(FlowTrace, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "kind", "namespace", "name"], name="apiobject_unique")
        ]
        indexes = [
            models.Index(fields=["cluster", "kind", "node_name"]),
            models.Index(fields=["cluster", "kind", "phase"]),
            models.Index(fields=["cluster", "owner_uid"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


class Label(models.Model):
    """Labels as first-class rows, so label selectors run as queries."""

    # Lookups by object use the unique (obj, key) index.
    obj = models.ForeignKey(ApiObject, on_delete=models.CASCADE, related_name="label_rows", db_index=False)
    key = models.CharField(max_length=317)
    value = models.CharField(max_length=63, blank=True)

    class Meta:
        indexes = [models.Index(fields=["key", "value"])]
        constraints = [models.UniqueConstraint(fields=["obj", "key"], name="label_unique_key")]


class WatchEvent(models.Model):
    """The ordered event log: etcd's history. `revision` is the resourceVersion it produced."""

    # Lookups by cluster use the unique (cluster, revision) index.
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="events_log", db_index=False)
    revision = models.BigIntegerField()
    type = models.CharField(max_length=10)  # ADDED / MODIFIED / DELETED
    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    object = models.JSONField()
    # The flow trace this change belongs to, so list-watch clients carry the flow along.
    trace = models.ForeignKey(FlowTrace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "revision"], name="watchevent_unique_revision")
        ]


class ContainerLayer(models.Model):
    """A container's writable layer: what commands run by `kubectl exec` wrote over the image.

    Keyed by the runtime's container id, so a restarted container (a new id) starts clean, as
    with Docker; shared by every process that serves an exec into it.
    """

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="container_layers")
    container_id = models.CharField(max_length=100)
    files = models.JSONField(default=dict)  # path -> content
    dirs = models.JSONField(default=list)
    deleted = models.JSONField(default=list)  # whiteouts over the image's paths
    kv = models.JSONField(default=dict)  # a redis container's keys (its memory)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["cluster", "container_id"], name="containerlayer_unique_id")
        ]


class ContainerLogChunk(models.Model):
    """A piece of a container's log, as the kubelet flushed it: lines of `<RFC 3339 time> <text>`.

    Keyed by the runtime's container id (each run of a container has its own log, `--previous`
    reads the last one); removed with the pod, and a log over its cap is rotated away
    (cluster/kubelet/containerlogs.py, docs/containers.md).
    """

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="container_logs")
    pod_uid = models.CharField(max_length=36)
    container_id = models.CharField(max_length=100)
    text = models.TextField()

    class Meta:
        indexes = [
            models.Index(fields=["cluster", "container_id", "id"], name="containerlog_by_container"),
            models.Index(fields=["cluster", "pod_uid"], name="containerlog_by_pod"),
        ]


class ExecSession(models.Model):
    """One `kubectl exec` into a pod: who, what, when, and how it ended (not one of the 13 steps)."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="exec_sessions")
    # Handed out under the cluster row lock at open and again at close: readers see changes in order.
    seq = models.BigIntegerField()
    namespace = models.CharField(max_length=253)
    pod = models.CharField(max_length=253)
    container = models.CharField(max_length=253)
    command = models.JSONField(default=list)
    user = models.CharField(max_length=200)
    client = models.CharField(max_length=40)  # kubectl / web / api
    tty = models.BooleanField(default=False)
    opened_at = models.DateTimeField(auto_now_add=True)
    # Renewed by the serving process while the session is open: a session whose process died
    # (no close was written) counts as ended once this is old.
    seen_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    exit_code = models.IntegerField(null=True, blank=True)
    # Whose turn it takes (cluster/execsessions.py's per-user cap): "user:<pk>", or
    # "addr:<client address>" for an anonymous caller.
    holder = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["cluster", "seq"]),
            models.Index(fields=["holder", "closed_at"], name="execsession_holder_open"),
        ]


class Termination(models.Model):
    """Who asked for a graceful deletion still in progress: the object's kubelet removes it later,
    and the trace's ending then names the one who asked (a user, a controller, the garbage
    collector), not the kubelet that carried it out."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="terminations")
    uid = models.CharField(max_length=36)
    client = models.CharField(max_length=40)
    detail = models.CharField(max_length=300, blank=True)
    by = models.CharField(max_length=300, blank=True)
    reason_en = models.TextField(blank=True)
    reason_zh = models.TextField(blank=True)
    # The deletion's own trace (a user's delete or eviction, a preemption), ended when the object
    # is gone; "" when the deletion started none.
    trace_id = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["cluster", "uid"], name="termination_unique_uid")]


class ControlPlaneMember(models.Model):
    """A `manage.py controlplane` process that is alive (the scale-out profile), so that the
    processes share the clusters' leadership out (cluster/controlplane/share.py): not Kubernetes
    state. Each process renews its own row every second with the database's clock, so processes on
    several machines agree on who is alive without synchronized clocks."""

    identity = models.CharField(max_length=200, unique=True)  # the Lease holder identity it writes
    host = models.CharField(max_length=253)
    pid = models.IntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    renewed_at = models.DateTimeField()
    # What it leads now: cluster name -> that cluster's measured weight (1 + its work).
    leads = models.JSONField(default=dict)

    def __str__(self) -> str:
        return self.identity


class PredictionRound(models.Model):
    """The teacher's prediction round on a cluster (peer instruction for the scheduler): the class
    guesses which node the scheduler will pick for the next pod; the round closes when that pod's
    trace records step 9, with the decision as its answer (cluster/flow/prediction.py). One per
    cluster: arming a new round replaces the old one and its guesses."""

    # A ForeignKey, the old round deleted once the new one exists: ids only grow (SQLite reuses
    # the highest rowid when it is deleted), so a page tells a new round from the old one.
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="prediction_rounds")
    armed_at = models.DateTimeField()
    armed_by = models.CharField(max_length=200)
    ask_plugin = models.BooleanField(default=False)  # also ask "which plugin decides?"
    nodes = models.JSONField(default=list)  # the choices: the schedulable nodes when armed
    plugins = models.JSONField(default=list)  # the plugin choices, when ask_plugin
    closed_at = models.DateTimeField(null=True, blank=True)
    cancelled = models.BooleanField(default=False)
    trace = models.ForeignKey(FlowTrace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    answer = models.JSONField(null=True, blank=True)
    # Bumped by every change (a guess, the close, the explanation, a cancel): the hubs send the
    # round again when (id, version) moves.
    version = models.PositiveIntegerField(default=1)


class PredictionGuess(models.Model):
    """One voter's guess in a round (a student, or a browser session): changeable until it closes."""

    round = models.ForeignKey(PredictionRound, on_delete=models.CASCADE, related_name="guesses")
    voter = models.CharField(max_length=100)
    node = models.CharField(max_length=253)
    plugin = models.CharField(max_length=100, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "voter"], name="prediction_one_guess_per_voter")
        ]
