"""Static files (the dashboard's CSS and JS modules, the admin's), served by ServeStatic in front
of Django, without a Django request per file.

After `manage.py collectstatic` (part of `make run` and `make test`), STATIC_ROOT holds every file
under a content-hashed name beside its gzip copy, and `{% static %}` links to the hashed names:
those are cached for good ("immutable"); a changed file gets a new name. The JS modules import
each other by hashed name too: the storage rewrites `import … from "./x.js"` (StaticStorage).
Without a collected manifest (a checkout where collectstatic has not run), the files are served
from the apps' and STATICFILES_DIRS' folders under their plain names, revalidated on every use.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from servestatic import ServeStaticASGI
from servestatic.storage import CompressedManifestStaticFilesStorage

MANIFEST = "staticfiles.json"


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed names, gzip copies, and ES module imports rewritten to the hashed names (Django's
    `support_js_module_import_aggregation`), so that a page never mixes old and new modules.
    Not strict: a name missing from the manifest is linked as it is (served from the folders)."""

    support_js_module_import_aggregation = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.manifest_strict = False  # servestatic's __init__ reads its own setting

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:  # nothing collected: the files are served from their folders
            return name
        try:
            return super().stored_name(name)
        except ValueError:  # added since the last collection: `make run` collects again
            return name


def _manifest() -> dict | None:
    path = Path(settings.STATIC_ROOT) / MANIFEST
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def static_app(application):
    """`application` behind ServeStatic: STATIC_URL's files answered here, the rest passed on."""
    prefix = settings.STATIC_URL
    manifest = _manifest()
    if manifest is not None:
        hashed = {prefix + name for name in manifest.get("paths", {}).values()}
        app = ServeStaticASGI(application, max_age=0, immutable_file_test=lambda path, url: url in hashed)
        app.add_files(settings.STATIC_ROOT, prefix=prefix)
        return app
    app = ServeStaticASGI(application, max_age=0, allow_all_origins=False)
    # Later folders first: the first finder's file wins, as collectstatic and `findstatic` decide.
    for location in reversed(_locations()):
        app.add_files(location, prefix=prefix)
    return app


def _locations() -> list[str]:
    found: list[str] = []
    for finder in finders.get_finders():
        for _path, storage in finder.list([]):
            location = getattr(storage, "location", None)
            if location and location not in found and not getattr(storage, "prefix", None):
                found.append(location)
    return found
