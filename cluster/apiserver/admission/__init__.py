"""Admission: the chain every write passes under its lock, and its plugins (one module each, as
upstream's plugin/pkg/admission/<name>/)."""
