"""NodeUnschedulable: cordoned nodes (upstream plugins/nodeunschedulable)."""
