"""`manage.py explain`: where would kube-scheduler put this pod, and why — for every node.

Needs no database: it reads the cluster and the pod from YAML files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from scheduler.engine.cycle import schedule
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME
from scheduler.engine.snapshot import Snapshot
from scheduler.inputs import InputError, load_cluster, load_pod, load_profile
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

    def handle(self, *args, **options):
        try:
            cluster = load_cluster(options["cluster"])
            pod = load_pod(options["pod"], cluster.classes)
            scheduler_name = (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER_NAME
            profile = load_profile(options["config"], scheduler_name)
        except InputError as err:
            self.stderr.write(f"error: {err}")
            sys.exit(2)
        decision = schedule(
            pod,
            Snapshot.from_objects(cluster.nodes, cluster.pods, cluster.storage),
            profile,
            score_all_nodes=options["score_all_nodes"],
            tie_break=options["tie_break"],
            seed=options["seed"],
            nominated=cluster.nominated,
            pdbs=cluster.pdbs,
        )
        result = decision.to_json()
        if options["output"] == "json":
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(render(result, options["lang"]), ending="")
