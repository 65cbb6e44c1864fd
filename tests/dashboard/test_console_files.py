"""The console's saved files are bounded: per browser (count and bytes), per cluster, per minute,
and by the disk's free space; they go with the browser's session."""

from __future__ import annotations

import json
from datetime import timedelta
from importlib import import_module

import pytest
from django.conf import settings as django_settings
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from cluster.models import Cluster
from dashboard import files
from dashboard.models import ConsoleFile

pytestmark = pytest.mark.django_db
FILES = "/clusters/demo/ui/files"
YAML = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"


@pytest.fixture
def demo(db) -> Cluster:
    return Cluster.objects.create(name="demo")


def save(client: Client, name: str, text: str = YAML, address: str = "127.0.0.1"):
    body = json.dumps({"name": name, "text": text})
    return client.post(FILES, body, "application/json", REMOTE_ADDR=address)


def ls(client: Client) -> list[str]:
    answer = client.post("/clusters/demo/ui/console", json.dumps({"command": "ls"}), "application/json")
    return answer.json()["output"].split()


def test_one_browser_cannot_keep_more_files_than_its_cap(demo):
    browser = Client()
    for i in range(20):
        assert save(browser, f"f{i}.yaml").json() == {"name": f"f{i}.yaml"}
    refused = save(browser, "f20.yaml")
    assert refused.status_code == 400
    assert refused.json() == {"error": "error: the working directory holds 20 files at most"}
    assert save(browser, "f3.yaml", "kind: Pod\n").status_code == 200  # a kept name is replaced
    assert ConsoleFile.objects.count() == 20
    assert "f20.yaml" not in ls(browser) and "f19.yaml" in ls(browser)
    assert save(Client(), "other.yaml").status_code == 200  # another browser has its own room


def test_one_browser_cannot_keep_more_bytes_than_its_cap(demo, settings):
    settings.KUBESIM_CONSOLE_BYTES_PER_BROWSER = 10_000
    browser = Client()
    assert save(browser, "a.yaml", "x" * 6_000).status_code == 200
    refused = save(browser, "b.yaml", "y" * 6_000)
    assert refused.status_code == 400
    message = 'error: "b.yaml" does not fit: the working directory holds 9.77 KiB at most'
    assert refused.json() == {"error": message}
    assert save(browser, "a.yaml", "z" * 9_000).status_code == 200  # the replaced file's bytes are freed
    assert list(ConsoleFile.objects.values_list("name", "size")) == [("a.yaml", 9_000)]


def test_the_files_of_every_browser_together_are_capped_per_cluster(demo, settings):
    settings.KUBESIM_CONSOLE_BYTES_PER_CLUSTER = 20_000
    for i in range(3):  # three browsers, one cookie each: dropping the cookie gains no room
        answer = save(Client(), "big.yaml", "x" * 6_000, address=f"10.0.0.{i}")
        assert answer.status_code == 200
    refused = save(Client(), "big.yaml", "x" * 6_000, address="10.0.0.9")
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        'error: "big.yaml" does not fit: the files saved on this cluster may take 19.5 KiB in all'
    )
    assert sum(ConsoleFile.objects.values_list("size", flat=True)) == 18_000


def test_saves_are_rate_limited_per_browser_and_per_address(demo, settings):
    settings.KUBESIM_CONSOLE_SAVES_PER_MINUTE = 3
    browser = Client()
    for i in range(3):
        assert save(browser, f"f{i}.yaml").status_code == 200
    refused = save(browser, "f3.yaml")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["error"].startswith("error: too many files saved; try again in ")
    assert save(Client(), "g.yaml").status_code == 429  # a new cookie from the same address
    assert save(Client(), "g.yaml", address="10.1.1.1").status_code == 200
    # A school's NAT the class shares is limited per browser only.
    settings.KUBESIM_SHARED_ADDRESSES = ["127.0.0.1"]
    assert save(Client(), "h.yaml").status_code == 200
    assert ConsoleFile.objects.count() == 5


def test_no_file_is_saved_while_the_disk_is_nearly_full(demo, settings):
    settings.KUBESIM_MIN_FREE_DISK_BYTES = files.free_bytes() + (1 << 40)  # more than is free
    refused = save(Client(), "a.yaml")
    assert refused.status_code == 507
    assert refused.json() == {"error": "error: the server's disk is nearly full; no file can be saved now"}
    assert ConsoleFile.objects.count() == 0


def test_files_go_with_their_session(demo):
    leaving, staying = Client(), Client()
    assert save(leaving, "a.yaml").status_code == 200
    assert save(staying, "b.yaml").status_code == 200
    store = import_module(django_settings.SESSION_ENGINE).SessionStore
    store(leaving.cookies[django_settings.SESSION_COOKIE_NAME].value).delete()  # a logout
    assert list(ConsoleFile.objects.values_list("name", flat=True)) == ["b.yaml"]
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    store.clear_expired()  # what files.save runs now and then
    assert ConsoleFile.objects.count() == 0
    assert "b.yaml" not in ls(staying)


def test_the_sweep_of_expired_sessions_runs_as_files_are_saved(demo, monkeypatch):
    old = Client()
    assert save(old, "a.yaml").status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    monkeypatch.setattr(files, "_swept_at", -files.SWEEP_EVERY)
    assert save(Client(), "b.yaml").status_code == 200
    assert list(ConsoleFile.objects.values_list("name", flat=True)) == ["b.yaml"]
