"""The Deployment controller, laid out as upstream's `pkg/controller/deployment/`: `rollout`
(syncDeployment), `sync`, `rolling`, `recreate`, `progress`, `rollback`, `util`
(deployment_util.go), and `controller` (its informer and its writes through the API server)."""
