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


class ConsoleEntry(models.Model):
    """One web console command run on a private cluster (a student's sandbox) and what it printed,
    so the teacher can read a student's last commands and results (dashboard/history.py keeps the
    newest few per cluster). Public clusters (the demo) keep none: forty students share them."""

    cluster = models.ForeignKey("cluster.Cluster", on_delete=models.CASCADE, related_name="+")
    who = models.CharField(max_length=150)  # the caller's name (the owner, or a teacher)
    command = models.CharField(max_length=2000)
    stdin = models.TextField(blank=True)  # the YAML typed under `apply -f -`, cut short
    output = models.TextField(blank=True)  # cut short (dashboard/history.py)
    exit_code = models.IntegerField(default=0)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["cluster", "-id"], name="console_entry_newest")]
