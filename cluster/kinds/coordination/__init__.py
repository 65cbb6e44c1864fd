"""`coordination.k8s.io/v1`: Leases."""
