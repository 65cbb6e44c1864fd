"""TaintToleration: taints and tolerations (upstream plugins/tainttoleration)."""
