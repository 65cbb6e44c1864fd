"""KubeSim's scheduler engine: pure Python, no Django. Faithful to kube-scheduler v1.33.

snapshot = Snapshot.from_objects(node_dicts, bound_pod_dicts)
decision = schedule(pod_dict, snapshot, profile)     # profile defaults to upstream's
decision.selected, decision.message, decision.to_json()
"""

from scheduler.engine.cycle import schedule
from scheduler.engine.decision import Decision
from scheduler.engine.profile import Profile, default_profile
from scheduler.engine.snapshot import Snapshot

__all__ = ["Decision", "Profile", "Snapshot", "default_profile", "schedule"]
