"""`policy/v1`: PodDisruptionBudgets."""
