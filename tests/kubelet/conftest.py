"""The control-plane tests share the demo cluster fixture."""

from tests.flow.support import demo  # noqa: F401
