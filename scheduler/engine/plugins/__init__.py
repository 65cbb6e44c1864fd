"""The scheduler plugins, one module each; scheduler/engine/registry.py names them explicitly."""
