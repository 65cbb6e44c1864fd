"""The control-plane tests share the demo cluster fixture."""

from tests.support.demo import demo  # noqa: F401
