"""The resources KubeSim serves, as discovery, OpenAPI, tables and describe see them.

Every fact about a kind lives in the kind registry (cluster/apiserver/kinds.py, the built-in kinds
in cluster/apiserver/builtin_kinds.py); this module is its API-facing view plus the version.
"""

from __future__ import annotations

from cluster.apiserver.kinds import ALL_VERBS, KindInfo, Subresource, groups

# A served resource is a registered kind.
Resource = KindInfo

__all__ = ["ALL_VERBS", "VERSION", "Resource", "Subresource", "groups"]

VERSION = {
    "major": "1",
    "minor": "33",
    "gitVersion": "v1.33.1",
    "gitCommit": "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828",
    "gitTreeState": "clean",
    "buildDate": "2025-05-15T08:19:08Z",
    "goVersion": "go1.24.2",
    "compiler": "gc",
    "platform": "linux/amd64",
}
