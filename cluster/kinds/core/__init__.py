"""The core group (`v1`): Pods, Nodes, ReplicationControllers, Events, Namespaces, ConfigMaps,
Secrets, Services and Endpoints, and what pod templates share (`podspec.py`)."""
