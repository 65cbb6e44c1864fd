"""PodTopologySpread, with its explanation texts (upstream plugins/podtopologyspread)."""
