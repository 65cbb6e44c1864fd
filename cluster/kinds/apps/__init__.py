"""`apps/v1`: ReplicaSets, Deployments and DaemonSets."""
