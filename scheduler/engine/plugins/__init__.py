"""Scheduler plugins, one package each, laid out like upstream's (see ../registry.py)."""
