"""Scheduler plugins, one module each (see registry.py)."""
