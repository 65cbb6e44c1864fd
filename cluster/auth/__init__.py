"""Who may do what on a cluster, how much and how often: access, rate limits, credentials,
kubeconfigs and the teacher's policy views."""
