"""Benchmarks and hostile clients (`manage.py bench_*`, the robustness tests' client): nothing at
runtime imports this app (tests/test_import_rules.py)."""
