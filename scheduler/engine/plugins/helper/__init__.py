"""Helpers several plugins share: topology domains and rounding (upstream plugins/helper)."""
