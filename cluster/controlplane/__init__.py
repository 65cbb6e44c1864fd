"""Running the control planes: the runtime that starts and parks them, who is acting on which cluster,
lulls, requests before control-plane work, and the course's demo cluster."""
