"""What the dashboard stores: the files each browser keeps in its web console's working directory."""

from __future__ import annotations

from django.contrib.sessions.models import Session
from django.db import models


class ConsoleFile(models.Model):
    """One uploaded or saved file (dashboard/files.py). It belongs to the browser's session, so it
    goes with it: a logout, a new sign-in or the sweep of expired sessions deletes it; and to the
    cluster it was saved on, whose console files are capped together."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    cluster = models.ForeignKey("cluster.Cluster", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100)
    text = models.TextField()
    size = models.PositiveIntegerField()  # the text's UTF-8 bytes, what the caps count
    saved_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "name"], name="console_file_name_per_browser"),
        ]
