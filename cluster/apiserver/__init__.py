"""The simulated kube-apiserver: the only way to change cluster state (docs/architecture.md).

Importing the package registers the built-in kinds, so every reader of the kind registry
(`cluster.apiserver.kinds`) sees them.
"""

from cluster.apiserver import builtin_kinds  # noqa: F401
