"""InterPodAffinity: its terms, the plugin and its explanation texts (upstream plugins/interpodaffinity)."""
