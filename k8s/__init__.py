"""Kubernetes facts with no home in one component: label selectors, quantities, pod spec
helpers. Pure Python (no Django, nothing of `cluster`), so the scheduler engine, the API server,
kubeapi, the controllers, the kubelet and the labs all import them from here."""
