"""`manage.py explain`: where would kube-scheduler put this pod, and why — for every node.

Needs no database: it reads the cluster and the pod from YAML files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from cluster.apiserver.errors import ApiError
from scheduler import comparison, what_if
from scheduler.engine.cycle import schedule
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduler.engine.snapshot import Snapshot
from scheduler.inputs import InputError, load_cluster, load_config, load_pod, load_profile, load_what_if
from scheduler.priority_classes import PriorityError
from scheduler.report import render


class Command(BaseCommand):
    help = "Explain the scheduling of POD.yaml onto the Nodes (and bound Pods) of CLUSTER.yaml."
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument(
            "--cluster",
            required=True,
            type=Path,
            help="Nodes, Pods (spec.priority or priorityClassName honoured), PriorityClasses and "
            "PodDisruptionBudgets (multi-doc or v1 List)",
        )
        parser.add_argument("--pod", required=True, type=Path, help="the Pod to place")
        parser.add_argument("--config", type=Path, help="a KubeSchedulerConfiguration (v1)")
        parser.add_argument(
            "--score-all-nodes",
            action="store_true",
            help="score and normalize over every node, feasible or not (as upstream's plugin tests)",
        )
        parser.add_argument("--output", choices=("text", "json"), default="text")
        parser.add_argument(
            "--lang", choices=("en", "zh"), default="en", help="language of the plain-language why"
        )
        parser.add_argument("--tie-break", choices=("deterministic", "random"), default="deterministic")
        parser.add_argument("--seed", type=int, help="seed for --tie-break random")
        parser.add_argument(
            "--what-if",
            type=Path,
            help="a what-if question (YAML: nodes overrides of labels, taints, capacity; a profile "
            "entry; schedulerName; an edited pod): explained beside the real decision, with the changes",
        )

    def handle(self, *args, **options):
        try:
            cluster = load_cluster(options["cluster"])
            pod = load_pod(options["pod"], cluster.classes)
            config = load_config(options["config"])
            profile = load_profile(options["config"], _scheduler_name(pod))
            question = load_what_if(options["what_if"]) if options["what_if"] else None
        except InputError as err:
            self.stderr.write(f"error: {err}")
            sys.exit(2)
        result = self._explain(cluster, pod, cluster.nodes, profile, options)
        if question is not None:
            try:
                asked_pod, nodes, asked_profile = self._question(question, cluster, pod, config, options)
            except (InputError, ApiError) as err:
                self.stderr.write(f"error: {options['what_if']}: {err}")
                sys.exit(2)
            other = self._explain(cluster, asked_pod, nodes, asked_profile, options)
            self._write_comparison(result, other, options)
            return
        if options["output"] == "json":
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(render(result, options["lang"]), ending="")

    def _explain(self, cluster, pod: dict, nodes: list[dict], profile, options) -> dict:
        decision = schedule(
            pod,
            Snapshot.from_objects(nodes, cluster.pods, cluster.storage),
            profile,
            score_all_nodes=options["score_all_nodes"],
            tie_break=options["tie_break"],
            seed=options["seed"],
            nominated=cluster.nominated,
            pdbs=cluster.pdbs,
        )
        return decision.to_json()

    def _question(self, question: dict, cluster, pod: dict, config, options):
        """The what-if's pod, nodes and profile (the endpoint's rules, scheduler/what_if.py)."""
        for key in question:
            if key not in what_if.BODY_FIELDS:
                raise InputError(
                    options["what_if"], f"{key}: unknown field; known: {', '.join(what_if.BODY_FIELDS)}"
                )
        asked_pod = pod
        if question.get("pod") is not None:
            if not isinstance(question["pod"], dict):
                raise InputError(options["what_if"], "pod: must be a Pod object")
            asked_pod = {**question["pod"], "kind": "Pod", "apiVersion": "v1"}
            asked_pod.setdefault("metadata", pod["metadata"])
            try:
                cluster.classes.admit(asked_pod)
            except PriorityError as err:
                raise InputError(options["what_if"], f"pod.spec.priorityClassName: {err}") from None
        nodes = what_if.apply_node_overrides(cluster.nodes, question.get("nodes"))
        profile = what_if.choose_profile(
            config, asked_pod, question.get("profile"), question.get("schedulerName")
        )
        return asked_pod, nodes, profile

    def _write_comparison(self, real: dict, other: dict, options) -> None:
        changes = comparison.compare(real, other)
        if options["output"] == "json":
            payload = {"real": real, "whatIf": other, "changes": changes}
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
            return
        lang = options["lang"]
        self.stdout.write("=== Real ===\n" + render(real, lang), ending="")
        self.stdout.write("\n=== What if ===\n" + render(other, lang), ending="")
        self.stdout.write("\n" + comparison.render(changes), ending="")


def _scheduler_name(pod: dict) -> str:
    return (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER_NAME
