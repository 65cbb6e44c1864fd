"""Hostile clients against a live server: `manage.py bench_abuse` and the robustness tests."""
