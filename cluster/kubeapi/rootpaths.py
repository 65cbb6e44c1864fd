"""`GET /` on the API port: the paths this API server serves, as kube-apiserver lists them
(`kubectl get --raw /` → `{"paths": [...]}`), from the same registry that discovery reads."""

from __future__ import annotations

from cluster.api.health import CHECKS
from cluster.kubeapi.resources import discovery_groups

FIXED = ("/api", "/api/v1", "/apis", "/metrics", "/openapi/v2", "/openapi/v3", "/version")


def root_paths() -> dict:
    paths = set(FIXED)
    for group, resources in discovery_groups().items():
        if not group:
            continue
        paths.add(f"/apis/{group}")
        paths.update(f"/apis/{group}/{version}" for resource in resources for version in resource.versions)
    for endpoint, checks in CHECKS.items():
        paths.add(f"/{endpoint}")
        paths.update(f"/{endpoint}/{name}" for name in checks)
    return {"paths": sorted(paths)}
