"""`batch/v1`: Jobs."""
