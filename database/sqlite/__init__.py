"""Django's SQLite backend with one queue for this process's writers (see `base`)."""
