"""Services, endpoints, ConfigMaps and Secrets share the demo cluster fixture."""

from tests.support.demo import demo  # noqa: F401
