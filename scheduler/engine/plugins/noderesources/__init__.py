"""NodeResourcesFit and NodeResourcesBalancedAllocation, and the request accounting they share
(resource_allocation.py; upstream plugins/noderesources)."""
