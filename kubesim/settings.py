"""KubeSim settings: one file, configured by the environment.

Embedded default: SQLite (WAL, busy timeout) and the in-memory channel layer.
Scale-out: DATABASE_URL=postgres://… and REDIS_URL=redis://… switch to PostgreSQL
and channels-redis; nothing else changes.

Every environment variable KubeSim reads is read here, once, with its default, and listed in
docs/configuration.md (tests/test_configuration.py compares the two); the code reads
`settings.KUBESIM_*`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cluster.auth import state
from kubesim.env import database_from_url, envbool, envint, envlist, envnetworks

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = envbool("DEBUG", "false")
# What one installation generates for itself at first run: the secret key, the CA and
# certificates, the presenter token, the teacher's kubeconfig (cluster/auth/state.py).
KUBESIM_STATE_DIR = Path(os.environ.get("KUBESIM_STATE_DIR") or BASE_DIR / ".kubesim")
# SECRET_KEY from the environment, else the one generated at first run in the state directory
# (mode 0600). Never a fixed default.
SECRET_KEY = os.environ.get("SECRET_KEY") or state.secret_key(KUBESIM_STATE_DIR)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "cluster",
    "scheduler",
    "dashboard",
    "labs",
    # manage.py's bench_* commands; nothing at runtime imports it.
    "bench",
    # The project itself, for the processes' entry points: manage.py serve and controlplane.
    "kubesim",
]

MIDDLEWARE = [
    # The API's errors as Kubernetes Status objects, whichever layer below produced them.
    "kubesim.statuserrors.StatusErrors",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "cluster.controlplane.middleware.WriteRequestDone",
]

ROOT_URLCONF = "kubesim.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "kubesim.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The embedded default's SQLite options (a benchmark's throwaway database uses them too).
SQLITE_OPTIONS = {
    # IMMEDIATE transactions take the write lock up front, so two writers queue on the busy
    # timeout instead of failing with "database is locked" mid-transaction.
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}

DATABASE_URL = os.environ.get("DATABASE_URL", "")
# The embedded default's database file.
KUBESIM_SQLITE_PATH = os.environ.get("KUBESIM_SQLITE_PATH", str(BASE_DIR / "db.sqlite3"))
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    DATABASES = {
        "default": {
            # Django's SQLite backend whose writers queue in the process, requests first
            # (database/sqlite/writers.py).
            "ENGINE": "database.sqlite",
            "NAME": KUBESIM_SQLITE_PATH,
            # Requests run on kept threads (kubesim/handler.py): their connections are kept too.
            "CONN_MAX_AGE": 600,
            "CONN_HEALTH_CHECKS": True,
            # The tests' database is a file too, not SQLite's shared-cache memory database: there
            # readers and the writer lock each other out ("database table is locked"), while with
            # WAL they run side by side as they do when serving (requests on their own threads).
            "TEST": {"NAME": str(Path(tempfile.gettempdir()) / f"kubesim-test-{os.getpid()}.sqlite3")},
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    }

REDIS_URL = os.environ.get("REDIS_URL", "")
REDIS_READ_TIMEOUT_SECONDS = 30
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A receive blocks in Redis for up to 5 s (channels-redis' BZPOPMIN); redis-py's own
            # read timeout defaults to 5 s too, and a read that times out first drops a message
            # Redis already handed over. The read waits longer than the block; a dead Redis is
            # still noticed.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": REDIS_READ_TIMEOUT_SECONDS}],
                "capacity": 1000,
                "expiry": 30,
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}
    }

# The broadcast hub: bytes a websocket may have waiting before it is told to resync
# (cluster/broadcast/sinks.py).
KUBESIM_CLIENT_BACKLOG_BYTES = envint("KUBESIM_CLIENT_BACKLOG_BYTES", str(1 << 20))
# kubectl exec: sessions one process serves at once (each runs its shell in a thread of its own).
KUBESIM_EXEC_MAX_SESSIONS = envint("KUBESIM_EXEC_MAX_SESSIONS", "200")
# ... and at once per user (kubectl and the web console together) and per cluster
# (cluster/execsessions.py): one student's sessions cannot take the others' turn.
KUBESIM_EXEC_MAX_SESSIONS_PER_USER = envint("KUBESIM_EXEC_MAX_SESSIONS_PER_USER", "4")
KUBESIM_EXEC_MAX_SESSIONS_PER_CLUSTER = envint("KUBESIM_EXEC_MAX_SESSIONS_PER_CLUSTER", "40")
# kubectl port-forward (cluster/api/portforward/, counted as an exec session): local connections
# forwarded at once, bytes through it both ways, and seconds without a forwarded byte before it
# is closed (the kubelet's streamingConnectionIdleTimeout is 4 h; kubectl's pings do not count).
KUBESIM_PORTFORWARD_MAX_CONNECTIONS = envint("KUBESIM_PORTFORWARD_MAX_CONNECTIONS", "32")
KUBESIM_PORTFORWARD_MAX_BYTES = envint("KUBESIM_PORTFORWARD_MAX_BYTES", str(64 << 20))
KUBESIM_PORTFORWARD_IDLE_SECONDS = envint("KUBESIM_PORTFORWARD_IDLE_SECONDS", "900")
# The simulated shell's budgets per exec'd process (cluster/shell/limits.py, docs/shell.md): steps
# (commands and sourced lines) and CPU seconds per command line; bytes its variables, expansions
# and pipes may hold (a container's memory limit applies below it; over it: exit 137, OOM); bytes
# it may write to its streams; bytes a container's writable layer may hold (its ephemeral-storage
# limit applies below it; over it: "No space left on device").
KUBESIM_SHELL_MAX_STEPS = envint("KUBESIM_SHELL_MAX_STEPS", "100000")
KUBESIM_SHELL_CPU_SECONDS = float(os.environ.get("KUBESIM_SHELL_CPU_SECONDS", "2"))
KUBESIM_SHELL_MEMORY_BYTES = envint("KUBESIM_SHELL_MEMORY_BYTES", str(16 << 20))
KUBESIM_SHELL_OUTPUT_BYTES = envint("KUBESIM_SHELL_OUTPUT_BYTES", str(16 << 20))
KUBESIM_SHELL_STORAGE_BYTES = envint("KUBESIM_SHELL_STORAGE_BYTES", str(8 << 20))
# A container's log is rotated past this many bytes (the kubelet's containerLogMaxSize is 10 MiB;
# lower here, since every container's log is kept in the database: docs/containers.md).
KUBESIM_CONTAINER_LOG_MAX_BYTES = envint("KUBESIM_CONTAINER_LOG_MAX_BYTES", str(1 << 20))
# The share of one core that the containers' processes of a process may use together (the rest
# wait their turn, as on a node whose CPU is all in use: docs/containers.md).
KUBESIM_CONTAINER_CPU_SHARE = float(os.environ.get("KUBESIM_CONTAINER_CPU_SHARE", "0.1"))
# Log entries each cluster keeps before compaction, etcd's history window (cluster/apiserver/store.py):
# a watch from an older revision gets 410 Gone and relists.
KUBESIM_EVENT_LOG_KEEP = envint("KUBESIM_EVENT_LOG_KEEP", "10000")
# What each cluster remembers of its past (cluster/retention.py): the newest flow traces (with
# their steps), scheduling attempts and closed exec sessions; older ones go once nothing can
# still write to them (a running trace, one a live object names, each pod's last attempt stay).
KUBESIM_FLOW_TRACES_KEEP = envint("KUBESIM_FLOW_TRACES_KEEP", "2000")
KUBESIM_SCHEDULING_ATTEMPTS_KEEP = envint("KUBESIM_SCHEDULING_ATTEMPTS_KEEP", "5000")
KUBESIM_EXEC_SESSIONS_KEEP = envint("KUBESIM_EXEC_SESSIONS_KEEP", "500")
# The web console's saved and uploaded files (dashboard/files.py): per browser (its session) at
# most this many files and bytes, per cluster at most these bytes in all, saves per minute per
# browser and per client address (unless shared), and none while the disk under the state
# directory or the SQLite database has less than this many bytes free.
KUBESIM_CONSOLE_FILES_PER_BROWSER = envint("KUBESIM_CONSOLE_FILES_PER_BROWSER", "20")
KUBESIM_CONSOLE_BYTES_PER_BROWSER = envint("KUBESIM_CONSOLE_BYTES_PER_BROWSER", str(1 << 20))
KUBESIM_CONSOLE_BYTES_PER_CLUSTER = envint("KUBESIM_CONSOLE_BYTES_PER_CLUSTER", str(64 << 20))
KUBESIM_CONSOLE_SAVES_PER_MINUTE = envint("KUBESIM_CONSOLE_SAVES_PER_MINUTE", "30")
KUBESIM_MIN_FREE_DISK_BYTES = envint("KUBESIM_MIN_FREE_DISK_BYTES", str(512 << 20))
# Snapshot and list reads per minute per client address by callers who are not signed in
# (cluster/auth/readlimit.py), then 429 with Retry-After; shared addresses are not limited.
KUBESIM_ANONYMOUS_READS_PER_MINUTE = envint("KUBESIM_ANONYMOUS_READS_PER_MINUTE", "240")
# Services' ClusterIPs (cluster/kinds/core/serviceips.py): kubeadm's range; its first address is
# the `kubernetes` Service's, the tenth cluster DNS's.
KUBESIM_SERVICE_CIDR = os.environ.get("KUBESIM_SERVICE_CIDR", "10.96.0.0/12")
# How `manage.py serve` listens (kubesim/listening.py): a client sending its request head or body
# may pause this long between bytes, and must have sent its first whole request by the deadline.
KUBESIM_REQUEST_IDLE_SECONDS = float(os.environ.get("KUBESIM_REQUEST_IDLE_SECONDS", "20"))
KUBESIM_REQUEST_DEADLINE_SECONDS = float(os.environ.get("KUBESIM_REQUEST_DEADLINE_SECONDS", "30"))

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `collectstatic` writes here (content-hashed names and gzip copies; kubesim/static.py serves them).
KUBESIM_STATIC_ROOT = Path(os.environ.get("KUBESIM_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATIC_ROOT = KUBESIM_STATIC_ROOT
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "kubesim.static.StaticStorage"},
}

# Request bodies larger than this are refused with 413 (manifests are small; 3 MiB is generous).
KUBESIM_MAX_BODY_BYTES = envint("KUBESIM_MAX_BODY_BYTES", str(3 * 1024 * 1024))
DATA_UPLOAD_MAX_MEMORY_SIZE = KUBESIM_MAX_BODY_BYTES

KUBESIM_PACE_MS = envint("KUBESIM_PACE_MS", "600")

# The API server over TLS, as kube-apiserver on :6443 (kubeconfigs point here; `serve --api-port`).
KUBESIM_API_PORT = envint("API_PORT", "6443")
# Classroom quota defaults (cluster/apiserver/admission/quota.py): Python settings, not environment
# variables; the teacher overrides them per cluster.
KUBESIM_QUOTA: dict = {}
KUBESIM_SANDBOX_LIMITS: dict = {}
# Joining a class: students per session.
KUBESIM_MAX_STUDENTS = envint("KUBESIM_MAX_STUDENTS", "80")
# The embedded default parks the control plane of a cluster nobody acted on for this long
# (cluster/controlplane/activity.py); the next request, write or watch starts it again.
KUBESIM_PARK_AFTER_SECONDS = float(os.environ.get("KUBESIM_PARK_AFTER_SECONDS") or 180)
# Leader election for the control planes: "auto" elects when other processes may run control
# planes too (PostgreSQL or Redis configured); "1" / "0" force it on or off.
KUBESIM_LEADER_ELECTION = os.environ.get("KUBESIM_LEADER_ELECTION", "auto")
# Join attempts per browser (per client address too, unless that address is shared: see below)
# and wrong codes, per minute; joins per class code per minute (60 students join within one).
KUBESIM_JOIN_ATTEMPTS_PER_MINUTE = envint("KUBESIM_JOIN_ATTEMPTS_PER_MINUTE", "10")
KUBESIM_WRONG_CODES_PER_MINUTE = envint("KUBESIM_WRONG_CODES_PER_MINUTE", "5")
KUBESIM_CLASS_JOINS_PER_MINUTE = envint("KUBESIM_CLASS_JOINS_PER_MINUTE", "120")
# Proxies whose X-Forwarded-For names the client (cluster/auth/clientaddr.py): addresses or networks,
# e.g. 127.0.0.1 for the nginx of deploy/ on the same machine. None by default: the header is
# then ignored, as anyone can send it.
KUBESIM_TRUSTED_PROXIES = envnetworks("KUBESIM_TRUSTED_PROXIES", "")
# Client addresses a whole class shares (a school's NAT): joins from them are limited per browser
# and class code only, never per address.
KUBESIM_SHARED_ADDRESSES = envnetworks("KUBESIM_SHARED_ADDRESSES", "")
# Wrong presenter-link tokens per client address per minute (then 429; the right token always works).
KUBESIM_PRESENTER_FAILURES_PER_MINUTE = envint("KUBESIM_PRESENTER_FAILURES_PER_MINUTE", "10")
# The benchmarks (bench/): the token their hostile client sends (else the teacher's presenter
# token) and the browser bench_page drives.
KUBESIM_BENCH_TOKEN = os.environ.get("KUBESIM_BENCH_TOKEN", "")
KUBESIM_CHROMIUM = Path(os.environ.get("KUBESIM_CHROMIUM", "/usr/bin/chromium"))
# Password logins (/admin/login/, cluster/auth/logins.py): failures per client address and per user
# name in a sliding window; past either, 429 with Retry-After until the window moves on.
KUBESIM_LOGIN_FAILURES_PER_ADDRESS = envint("KUBESIM_LOGIN_FAILURES_PER_ADDRESS", "10")
KUBESIM_LOGIN_FAILURES_PER_USERNAME = envint("KUBESIM_LOGIN_FAILURES_PER_USERNAME", "20")
KUBESIM_LOGIN_WINDOW_SECONDS = envint("KUBESIM_LOGIN_WINDOW_SECONDS", "300")

# Security headers (kubesim/headers.py adds them to every response, static files included).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_COOKIE_SAMESITE = "Strict"
# A refused write under /clusters/ (or on the API port) is a Status, as every API error.
CSRF_FAILURE_VIEW = "kubesim.statuserrors.csrf_failure"
SESSION_COOKIE_SAMESITE = "Lax"
# Sessions in the database under a hash of their key: the database holds no usable cookie.
SESSION_ENGINE = "cluster.auth.sessions"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
