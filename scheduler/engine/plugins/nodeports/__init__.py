"""NodePorts: host ports (upstream plugins/nodeports)."""
