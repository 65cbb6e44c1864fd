"""Helpers the test folders share: personas and their credentials (`auth`), a demo cluster driven
deterministically (`demo`)."""
