"""The simulated kube-apiserver: the only way to change cluster state (docs/architecture.md).

The kinds it serves are registered in its kind registry (`cluster.apiserver.kinds`) by
`cluster/apps.py`, from their own modules under `cluster/kinds/`.
"""
