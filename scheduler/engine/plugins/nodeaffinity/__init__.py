"""NodeAffinity: nodeSelector and node affinity, with its explanation texts in why.py
(upstream plugins/nodeaffinity)."""
