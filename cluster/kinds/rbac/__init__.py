"""rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding (upstream
`pkg/registry/rbac`), and the bootstrap policy every cluster starts with."""
