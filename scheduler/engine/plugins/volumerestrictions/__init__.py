"""VolumeRestrictions: disk conflicts (upstream plugins/volumerestrictions)."""
