#!/bin/sh
# The scale-out profile on one machine (`make run-scaled`): PostgreSQL + Redis, SERVERS Daphne
# processes on PORT, PORT+1, ... (`serve --no-control-plane`) and CONTROLPLANES leader-elected
# `manage.py controlplane` processes (each leads a fair share of the clusters). Put a reverse proxy in front
# (deploy/nginx-kubesim.conf) so the browser sees one origin. Ctrl-C stops everything; the control
# planes hand their leases back first.
set -eu

PY=${PY:-.venv/bin/python}
PORT=${PORT:-8000}
SERVERS=${SERVERS:-2}
CONTROLPLANES=${CONTROLPLANES:-2}
: "${DATABASE_URL:?set DATABASE_URL=postgres://user@host:5432/db}"
: "${REDIS_URL:?set REDIS_URL=redis://host:6379/0}"
# The reverse proxy in front (deploy/nginx-kubesim.conf) runs here: its X-Forwarded-For names the
# client, for the limits that count per address (cluster/auth/clientaddr.py).
KUBESIM_TRUSTED_PROXIES=${KUBESIM_TRUSTED_PROXIES:-127.0.0.1}
export DATABASE_URL REDIS_URL KUBESIM_TRUSTED_PROXIES

# Create the database when it does not exist yet (a fresh PostgreSQL has only `postgres`).
"$PY" - <<'PYTHON'
import os
from urllib.parse import urlsplit, urlunsplit

import psycopg

url = os.environ["DATABASE_URL"]
try:
    psycopg.connect(url, connect_timeout=5).close()
except psycopg.OperationalError as error:
    if "does not exist" not in str(error):
        raise SystemExit(f"run-scaled: cannot reach PostgreSQL: {error}")
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    print(f"run-scaled: created database {name}")
PYTHON
"$PY" manage.py migrate --noinput
"$PY" manage.py collectstatic --noinput -v0

pids=""
stop() {
    trap - INT TERM EXIT
    # SIGTERM lets each control plane release its leases and each Daphne close its sockets.
    [ -n "$pids" ] && kill -TERM $pids 2>/dev/null
    wait
    exit 0
}
trap stop INT TERM EXIT

wait_for_port() {
    "$PY" - "$1" <<'PYTHON'
import socket, sys, time
for _ in range(300):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()
        break
    except OSError:
        time.sleep(0.1)
PYTHON
}

# The first server loads the demo cluster into an empty database; the others start after it.
# The first also serves the API over TLS on API_PORT (6443), for kubectl with a kubeconfig.
i=0
while [ "$i" -lt "$SERVERS" ]; do
    port=$((PORT + i))
    tls=""
    [ "$i" -eq 0 ] && tls="--api-port ${API_PORT:-6443}"
    # shellcheck disable=SC2086
    "$PY" manage.py serve --no-control-plane --host 127.0.0.1 --port "$port" $tls &
    pids="$pids $!"
    wait_for_port "$port"
    i=$((i + 1))
done
i=0
while [ "$i" -lt "$CONTROLPLANES" ]; do
    "$PY" manage.py controlplane &
    pids="$pids $!"
    i=$((i + 1))
done
echo "run-scaled: $SERVERS Daphne processes on ports $PORT..$((PORT + SERVERS - 1)), $CONTROLPLANES control planes (sharing the clusters out)."
wait
