"""Services, endpoints, ConfigMaps and Secrets share the demo cluster fixture."""

from tests.flow.support import demo  # noqa: F401
