"""The horizontal pod autoscaler, as upstream's pkg/controller/podautoscaler (docs/metrics.md)."""
