"""ImageLocality (upstream plugins/imagelocality)."""
