"""Every string the page's JavaScript shows, translated by Django i18n, plus the 13-step legend."""

from __future__ import annotations

from django.utils.translation import gettext as _

from cluster.flow.steps import STEPS


def flow_steps() -> list[dict]:
    """The 13-step legend, in both languages, from the flow's own catalogue (one source of truth)."""
    return [
        {
            "step": step["step"],
            "from": step["from"],
            "to": step["to"],
            "title": step["title"],
        }
        for step in STEPS
    ]


def ui_strings() -> dict[str, str]:
    """Keyed strings for static/kubesim/*.js, in the request's language."""
    return {
        # header and connection
        "live": _("Live"),
        "connecting": _("Connecting…"),
        "reconnecting": _("Reconnecting…"),
        "resyncing": _("Re-syncing…"),
        "revision": _("revision"),
        "copied": _("Copied"),
        "class_may_write_on": _("The class may now change this cluster (within its quota)."),
        "class_may_write_off": _("Only the teacher may change this cluster now."),
        "reset_confirm": _("Reset the demo for the next class?"),
        "reset_what": _(
            "Every pod, workload, service and namespace the class made is deleted, nodes added in "
            "class go, and master, node1 and node2 get back the course's labels, taints and cached "
            "images. Pace and step mode go back to their defaults and the class may no longer write. "
            "Every page sees it happen."
        ),
        "reset_done": _("The demo is back to the course's starting state."),
        # the prediction round (prediction.js)
        "predict_title": _("Predict"),
        "predict_question": _("Which node will the scheduler pick?"),
        "predict_plugin_question": _("Which plugin decides?"),
        "predict_plugin_any": _("— choose a plugin —"),
        "predict_votes": _("Votes: %(n)s"),
        "predict_pick": _("Tap a node to guess: the answer comes at step 9."),
        "predict_teacher_next": _("Now create a pod: the round closes at its step 9."),
        "predict_yours": _("Your guess: %(node)s. You can change it until step 9."),
        "predict_cancel": _("Cancel round"),
        "predict_cancelled": _("The teacher cancelled the prediction round."),
        "predict_arm": _("Ask the class"),
        "predict_again": _("Ask again"),
        "predict_armed": _("Every page watching this cluster now asks the class. Create a pod next."),
        "predict_step9": _("Step 9"),
        "predict_picked": _("The scheduler picked %(node)s for %(pod)s"),
        "predict_none": _("No node fits %(pod)s"),
        "predict_by_score": _(
            "Decided by %(plugins)s: it gave %(winner)s %(a)s and %(runner)s %(b)s (weighted)."
        ),
        "predict_closing": _("Guesses are closed: watch step 9."),
        "predict_by_tie": _(
            "A tie: %(nodes)s all scored %(total)s, and kube-scheduler picked one at random."
        ),
        "predict_by_filter": _("Decided by the filters: only %(node)s passed (%(why)s)."),
        "predict_by_none": _("Every node was filtered out (%(plugins)s)."),
        "predict_by_pending": _("Reading the scheduler's explanation…"),
        "predict_by_unknown": _("The scheduler's explanation is not available."),
        "predict_you_right": _("You guessed %(node)s: right!"),
        "predict_you_wrong": _("You guessed %(node)s."),
        "predict_class": _("The class's guesses"),
        "predict_right": _("%(right)s of %(n)s guessed right"),
        "predict_right_plugin": _("%(right)s named the deciding plugin"),
        "predict_hide": _("Hide"),
        "read_only": _(
            "Read-only: only the teacher (or the class, when the teacher allows it) may change this."
        ),
        # cluster
        "nodes": _("Nodes"),
        "pending_lane": _("Pending — not scheduled yet"),
        "no_pending": _("No pending pods. Every pod has a node."),
        "more_pending": _("… and %(n)s more"),
        "add_node": _("Add node"),
        "cpu": _("CPU"),
        "memory": _("Memory"),
        "pods": _("Pods"),
        "in_use": _("in use"),
        "usage_title": _("Requested by pods: %(requested)s. In use now (metrics API): %(used)s."),
        "images": _("Cached images"),
        "no_images": _("No images pulled yet"),
        "cordoned": _("Cordoned"),
        "not_ready": _("NotReady"),
        "kubelet_stopped": _("kubelet stopped"),
        "kubelet_stopped_since": _(
            "Its kubelet posts nothing since %(time)s: NotReady 50 s later (node-monitor-grace-period), "
            "its pods evicted 300 s after that (their default tolerations)."
        ),
        "control_plane": _("control plane"),
        "no_pods_here": _("No pods on this node"),
        "waiting_scheduler": _("Waiting for the scheduler"),
        "workloads": _("Workloads"),
        "no_workloads": _("No ReplicationControllers, ReplicaSets, Deployments, DaemonSets or Jobs."),
        "replicas": _("replicas"),
        "node_actions": _("Node actions"),
        # quick actions
        "label": _("Label…"),
        "unlabel": _("Remove label"),
        "cordon": _("Cordon"),
        "uncordon": _("Uncordon"),
        "taint": _("Taint…"),
        "untaint": _("Remove taint"),
        "remove_node": _("Remove node"),
        "delete_pod": _("Delete pod"),
        "scale": _("Scale…"),
        "clock_jump": _("Run the next schedule now (jump the clock)"),
        "clock_jumped": _("The cluster's clock jumped %(seconds)s s: %(name)s runs now."),
        "kubelet_stop": _("Stop the kubelet (node failure)"),
        "kubelet_start": _("Start the kubelet"),
        "kubelet_stopped_toast": _(
            "The kubelet on %(node)s stopped. The node goes NotReady after 50 s without a heartbeat; "
            "its pods are evicted 300 s later."
        ),
        "kubelet_started_toast": _("The kubelet on %(node)s started: the node posts Ready again."),
        "clock_forward": _("Move the clock forward %(minutes)s min"),
        "clock_moved": _("The cluster's clock moved %(seconds)s s forward."),
        "delete": _("Delete"),
        "inspect": _("Describe / Events / Logs"),
        "explain": _("Why here? (scheduler)"),
        "key": _("Key"),
        "value": _("Value"),
        "effect": _("Effect"),
        "node_name": _("Node name"),
        "cpu_cores": _("CPU (cores)"),
        "memory_gi": _("Memory (e.g. 4Gi)"),
        "ok": _("OK"),
        "cancel": _("Cancel"),
        "confirm_delete": _("Delete %(what)s?"),
        "done": _("Done"),
        # flow
        "pace": _("Pace"),
        "pace_fast": _("as fast as possible"),
        "step_mode": _("Step mode"),
        "next": _("Next step"),
        "continue": _("Continue"),
        "replay": _("Replay"),
        "no_trace": _("No trace yet: create a pod or a workload to watch the 13 steps happen."),
        "skipped": _("skipped"),
        "waiting_next": _("Waiting for you: press Next"),
        # Translators: how many pods of a workload go through the captioned step together.
        "pods_at_step": _("%(n)s pods"),
        "more_pods": _("+%(n)s more"),
        "following_pod": _("Following pod %(name)s"),
        "follow_all": _("Show all its pods"),
        "why_node": _("Every node, every score: the Scheduler panel →"),
        # Translators: a scheduling attempt in the Scheduler panel's picker.
        "preempted_on": _("Preempted %(victims)s on %(node)s"),
        "replaying": _("Replaying"),
        "others_here": _("%(n)s more at this step (other pods or traces)"),
        "as_at_revision": _("as it was at revision %(rev)s"),
        "finished": _("finished"),
        "running": _("running"),
        # Translators: the caption's badge for a trace's ending entry (who ended it and why).
        "ended": _("end"),
        "ended_completed": _("finished"),
        "ended_deleted": _("deleted"),
        "ended_failed": _("failed"),
        "created_then_deleted": _("created — then deleted by %(by)s"),
        "waiting_cluster": _(
            "Waiting for the cluster to change: no node fits this pod yet (Next cannot move it)"
        ),
        "zone_master": _("master · control plane"),
        "zone_nodes": _("nodes"),
        "follow_latest": _("Follow: each story in turn"),
        # Translators: on the flow caption's meta line while the view follows one story after another.
        "stories_queued": _("stories to tell after this one: %(n)s"),
        "stories_skipped": _("stories skipped to keep up: %(n)s (the Trace picker lists them)"),
        # Translators: links between stories in the flow's caption; %(what)s names the other trace,
        # e.g. "evict Pod default/nginx-abc" or "ReplicationController default/nginx".
        "link_preempted_by": _("preempted by %(what)s"),
        "link_replaces": _("replaces %(what)s"),
        "link_follows": _("follows %(what)s"),
        "link_replacement": _("replacement: %(what)s"),
        "link_victim": _("victim: %(what)s"),
        "link_led_to": _("led to %(what)s"),
        "link_gone": _("a trace no longer listed"),
        # scheduler panel
        "scheduler": _("Scheduler"),
        "pick_pod": _("Pick a pod"),
        "sched_hint": _(
            "Pick a pod, or click one in the cluster, to see every node checked by every predicate and "
            "scored by every priority, with the numbers kube-scheduler would compute."
        ),
        "filters": _("Filter — predicates"),
        "scores": _("Score — priorities"),
        "node": _("Node"),
        "total": _("Total"),
        "raw": _("raw"),
        "weight": _("weight"),
        "first_failure": _("first failure: the reason kube-scheduler reports"),
        # Translators: a short badge on the first failing filter cell.
        "first_short": _("1st"),
        "tie_rule": _("Tie rule"),
        "failed_message": _("FailedScheduling, as kubectl describe shows it"),
        "no_attempts": _("The scheduler has not tried this pod yet."),
        "bypassed": _("This pod was created with spec.nodeName: it bypassed the scheduler."),
        "feasible": _("feasible"),
        "not_scored": _("Only one node was feasible, so nothing was scored (as kube-scheduler does)."),
        "none_feasible": _("No node passed every filter, so nothing was scored: the pod stays Pending."),
        "prescore_skipped": _("Skipped at PreScore"),
        "scheduled_to": _("Scheduled to %(node)s"),
        "unschedulable": _("Unschedulable"),
        # the scheduler's explanation node by node (static/kubesim/scheduler_compact.js)
        "sched_view": _("How to show the explanation"),
        "sched_by_node": _("By node"),
        "sched_full_matrix": _("Full matrix"),
        "sched_fails": _("fails %(n)s filter(s)"),
        "sched_passes": _("passes every filter"),
        "sched_not_scored_pct": _("not scored: percentageOfNodesToScore"),
        # what-if (static/kubesim/what_if.js)
        "whatif_title": _("What if…"),
        "whatif_note": _("A copy is explained; nothing is written to the cluster."),
        "whatif_written_nothing": _("Nothing was written: the cluster is still at revision %(revision)s."),
        "whatif_pod": _("The pod (a copy)"),
        "whatif_pod_hint": _("YAML or JSON, as kubectl would send it"),
        "whatif_node": _("A node (a copy)"),
        "whatif_labels": _("Labels, one key=value per line"),
        "whatif_taints": _("Taints, one key=value:Effect per line"),
        "whatif_taint_form": _(
            "%(line)s: a taint is key=value:Effect (NoSchedule, PreferNoSchedule or NoExecute)"
        ),
        "whatif_profile": _("Profile"),
        "whatif_profile_pick": _("Scheduler profile (schedulerName)"),
        "whatif_profile_hint": _("Edited profile: a profiles[] entry in YAML (empty: as configured)"),
        "whatif_compare": _("Compare with"),
        "whatif_real": _("The real decision (latest attempt)"),
        "whatif_as_is": _("The pod as it is now"),
        "whatif_under_profile": _("The pod as it is, under profile %(name)s"),
        "whatif_copy": _("What if (the edited copy)"),
        "whatif_run": _("Explain the copy"),
        "whatif_selected": _("Selected node"),
        "whatif_feasible": _("feasible"),
        "whatif_total": _("total"),
        "whatif_firstFailure": _("first failure"),
        "whatif_filtered": _("filtered out"),
        "whatif_changed": _("changed"),
        "whatif_same": _("The same decision, node for node."),
        # scheduler settings (static/kubesim/scheduler_settings.js)
        "settings_title": _("Scheduler settings"),
        "settings_note": _(
            "ConfigMap kube-system/kube-scheduler, key config.yaml: the scheduler uses it for its next "
            "decision."
        ),
        "settings_weights": _("Score weights"),
        "settings_plugin": _("Plugin"),
        "settings_weight": _("Weight"),
        "settings_default": _("Default"),
        "settings_diff": _("Differences from the defaults"),
        "settings_no_diff": _("None: this profile is the default profile."),
        "settings_diff_weight": _("%(plugin)s: weight %(from)s → %(to)s"),
        "settings_diff_disabled": _("%(plugin)s: disabled (%(point)s)"),
        "settings_diff_enabled": _("%(plugin)s: enabled (%(point)s)"),
        "settings_diff_args": _("%(plugin)s: args %(args)s"),
        "settings_diff_percentage": _("percentageOfNodesToScore: %(value)s"),
        "settings_empty": _("Empty: the default configuration (one profile, default-scheduler)."),
        "settings_check": _("Check"),
        "settings_save": _("Save"),
        "settings_saved": _("Saved: the scheduler uses the new configuration for its next decision."),
        "settings_refused": _("Refused (the scheduler keeps its last valid configuration)"),
        "sched_scored": _("passes every filter · total %(total)s"),
        "sched_more_nodes": _("%(n)s more nodes fail"),
        "sched_same_scores": _(
            "Only the priorities whose scores differ between the nodes are listed: the others scored "
            "every node the same (Full matrix shows them all)."
        ),
        "sched_all_same": _("Every priority scored these nodes the same: the tie rule decided."),
        # YAML
        "yaml": _("Apply YAML"),
        "upload": _("Open file…"),
        "apply": _("Apply"),
        "drop_here": _("Drop a YAML file here, paste it, or pick an example."),
        "applied": _("Applied"),
        "nothing_applied": _("Nothing was applied: fix the errors below and apply again."),
        "line": _("line"),
        "document": _("document"),
        "file_not_kept": _("The file is not kept in the console's working directory:"),
        # console
        "console": _("Console"),
        "console_hint": _("Type a kubectl command (try: help). Tab completes, ↑/↓ recall history."),
        "console_waiting": _("… waiting, as kubectl does (its output follows)"),
        "paste_yaml": _("Paste the YAML below, then press Ctrl+Enter to run it (Esc cancels)."),
        "watching": _("Watching for changes (press Ctrl+C to stop)"),
        # kubectl exec
        "exec_inside": _("exec session open"),
        "exec_open": _("open now"),
        "exec_exited": _("exited with code"),
        "exec_disconnected": _("ended: the client disconnected"),
        # inspector
        "describe": _("Describe"),
        "events": _("Events"),
        "logs": _("Logs"),
        "pick_object": _("Click a node or a pod to describe it, see its events and logs."),
        "logs_pods_only": _("Logs exist for pods only."),
        "logs_empty": _("(no log output: the container has written nothing to stdout or stderr yet)"),
        "log_container": _("Container"),
        "log_kind_init": _("init"),
        "log_kind_sidecar": _("sidecar"),
        "log_kind_ephemeral": _("ephemeral"),
        "log_tail_label": _("How many of the last lines"),
        "log_tail": _("last %(n)s lines"),
        "log_previous": _("Previous run"),
        "log_no_previous": _("This container has not restarted: there is no previous run to show."),
        "log_timestamps": _("Timestamps"),
        "log_follow": _("Follow"),
        "log_run_ended": _("— this run of the container ended; its next run shows here when it starts —"),
        # a pod card's kubectl columns
        "col_ready": _("Ready"),
        "col_restarts": _("Restarts"),
        "ago": _("%(age)s ago"),
        "close": _("Close"),
        # phase (the picker marks unscheduled pods)
        "phase_Pending": _("Pending"),
        "request_failed": _("The request failed"),
        # scheduling queue and preemption
        "queue": _("Scheduling queue"),
        "queue_backoff": _("backoff %(seconds)s s, %(left)s s left"),
        "queue_rejectors": _("rejected by"),
        "queue_woken_by": _("woken by"),
        "preemption": _("Preemption"),
        "preemption_nominated": _("nominated node"),
        "preemption_decided_by": _("decided by"),
        "preemption_victims": _("victims"),
        "preemption_victim": _("victim"),
        "preemption_reprieved": _("reprieved"),
        "preemption_not_candidate": _("not a candidate"),
        # Services and the endpoints controller
        "services": _("Services"),
        "no_services": _("No Services."),
        "endpoints": _("Endpoints"),
        "none": _("none"),
        "ep_ready": _("ready"),
        "ep_not_ready": _("not ready"),
        "ep_removed": _("removed"),
        "ep_counts": _("%(ready)s ready · %(not_ready)s not ready"),
    }
