"""The simulated kube-apiserver: the only way to change cluster state (DESIGN.md rule 1)."""
