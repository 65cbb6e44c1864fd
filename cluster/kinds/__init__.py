"""The kinds KubeSim serves, one module per kind as upstream's `pkg/registry/<group>/<resource>/`:
`cluster/kinds/<group>/<kind>.py` holds the kind's `KindInfo` (its names and API facts), its
defaults, validation, table and describer. `builtin.py` lists them; `cluster/apps.py` registers
them (docs/adding-a-kind.md)."""
