"""NodeName: the pod's spec.nodeName (upstream plugins/nodename)."""
