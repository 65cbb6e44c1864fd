"""Field-number tables, one module per proto package (written by cluster.protobuf.generate)."""
