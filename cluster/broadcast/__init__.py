"""Fan-out to browsers: nudges after commit (and their relay across processes), the hub, its sinks,
the cluster websocket and the page's views of objects."""
