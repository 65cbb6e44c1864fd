"""autoscaling: HorizontalPodAutoscaler (v2, and v1 served by conversion)."""
