"""Simulated resource usage: what each running container uses (from its image's profile and what
its command does: requests served, loops, idle), as metrics-server would report it
(docs/metrics.md)."""
