"""The instructor's tools end to end: import then save, the admin's way in, the course order,
a reset during a check, the wrong-node hint, and commands on a fresh clone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from labs.loader import bundled_paths, load_lab_file
from labs.models import LabDefinition

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]


def test_import_then_save_stores_the_lab(teacher):
    source = bundled_paths()[1].read_text().replace("id: nodename", "id: imported-lab", 1)
    upload = SimpleUploadedFile("imported-lab.yaml", source.encode(), content_type="application/yaml")
    page = teacher.post("/labs/manage/import", {"file": upload}).content.decode()
    assert 'action="/labs/manage/new"' in page  # Save goes to the new lab's address, not back to import
    saved = teacher.post("/labs/manage/new", {"source": source})
    assert saved.status_code == 302 and saved.url == "/labs/manage/imported-lab/"
    assert LabDefinition.objects.get(slug="imported-lab").source == source


def test_importing_a_file_with_an_existing_id_asks_and_never_overwrites(teacher):
    teacher.get("/labs/manage/")  # the bundled labs
    bundled = LabDefinition.objects.get(slug="nodename")
    source = bundled_paths()[1].read_text().replace("minutes: ", "minutes: 1", 1)
    upload = SimpleUploadedFile("nodename.yaml", source.encode(), content_type="application/yaml")
    page = teacher.post("/labs/manage/import", {"file": upload}).content.decode()
    assert 'action="/labs/manage/new"' in page and "nothing is saved until you press Save" in page
    # A bundled lab gets no new version from a file: only a new lab, under a free id.
    assert 'name="save_as" value="version" disabled' in page and 'value="nodename-2"' in page
    assert teacher.post("/labs/manage/new", {"source": source}).status_code == 400  # no choice: refused
    saved = teacher.post("/labs/manage/new", {"source": source, "save_as": "version"})
    assert saved.status_code == 400
    saved = teacher.post("/labs/manage/new", {"source": source, "save_as": "new-lab", "new_id": "nodename-2"})
    assert saved.status_code == 302 and saved.url == "/labs/manage/nodename-2/"
    assert LabDefinition.objects.get(slug="nodename-2").source.startswith("id: nodename-2\n")
    bundled.refresh_from_db()
    assert bundled.source == bundled_paths()[1].read_text() and bundled.version == 1


def test_the_admin_home_leads_to_the_labs(teacher):
    teacher.user.is_superuser = True
    teacher.user.save()
    page = teacher.get("/admin/").content.decode()
    assert 'href="/labs/manage/"' in page


def test_labs_are_listed_in_course_order_with_their_published_state(teacher):
    page = teacher.get("/labs/manage/").content.decode()
    slugs = re.findall(r"<code>([a-z-]+)</code>", page)
    ids = [load_lab_file(str(path)).id for path in bundled_paths()]
    assert slugs[: len(ids)] == ids and ids[0] == "list-watch" and ids[-1] == "daemonsets"
    assert page.count('class="labs-state is-published"') == len(ids)
    LabDefinition.objects.filter(slug="scaling").update(published=False)
    assert 'class="labs-state is-draft">Draft<' in teacher.get("/labs/manage/").content.decode()


def test_the_nodeselector_lab_has_a_hint_for_labelling_the_wrong_node():
    lab = load_lab_file(str(next(p for p in bundled_paths() if "nodeselector" in p.name)))
    step = next(s for s in lab.steps if s.id == "label-node")
    hints = [h.en for h in step.hints]
    assert any("wrong node" in h and "kubectl label nodes node2 zz-" in h for h in hints)
    assert all(h.zh for h in step.hints)


def test_checklab_runs_on_a_fresh_clone_without_migrate(tmp_path):
    env = {**os.environ, "KUBESIM_SQLITE_PATH": str(tmp_path / "db.sqlite3")}
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    lab = str(next(p for p in bundled_paths() if "nodename" in p.name))
    result = subprocess.run(
        [sys.executable, "manage.py", "checklab", lab], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "throwaway SQLite database" in result.stdout and "1 lab(s) OK" in result.stdout
    refused = subprocess.run(
        [sys.executable, "manage.py", "loaddemo"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert refused.returncode == 1
    assert "run `.venv/bin/python manage.py migrate` first" in refused.stderr
