#!/bin/sh
# The scale-out profile on one machine (`make run-scaled`): PostgreSQL + Redis, SERVERS Daphne
# processes (`serve --no-control-plane`), each serving HTTP on PORT, PORT+1, ... and the API over
# TLS on SERVER_API_PORT, SERVER_API_PORT+1, ..., and CONTROLPLANES leader-elected `manage.py
# controlplane` processes (each leads a fair share of the clusters). Every kubeconfig names
# API_PORT (6443). With no proxy, SERVER_API_PORT is API_PORT: the first process answers there
# itself. Behind the nginx of deploy/nginx-kubesim.conf (which holds 6443 and spreads it over
# 6444, 6445), SERVER_API_PORT=6444. Ctrl-C stops everything; the control planes hand their
# leases back first.
set -eu

PY=${PY:-.venv/bin/python}
PORT=${PORT:-8000}
API_PORT=${API_PORT:-6443}
SERVER_API_PORT=${SERVER_API_PORT:-$API_PORT}
SERVERS=${SERVERS:-2}
CONTROLPLANES=${CONTROLPLANES:-2}
: "${DATABASE_URL:?set DATABASE_URL=postgres://user@host:5432/db}"
: "${REDIS_URL:?set REDIS_URL=redis://host:6379/0}"
# The reverse proxy in front (deploy/nginx-kubesim.conf) runs here: its X-Forwarded-For names the
# client, for the limits that count per address (cluster/auth/clientaddr.py).
KUBESIM_TRUSTED_PROXIES=${KUBESIM_TRUSTED_PROXIES:-127.0.0.1}
# API_PORT: what the kubeconfigs every process writes or serves name.
export DATABASE_URL REDIS_URL KUBESIM_TRUSTED_PROXIES API_PORT

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

# The first server loads the demo cluster into an empty database (and makes the CA and the serving
# certificate in the state directory, which the others then use); the others start after it.
i=0
while [ "$i" -lt "$SERVERS" ]; do
    port=$((PORT + i))
    "$PY" manage.py serve --no-control-plane --host 127.0.0.1 --port "$port" \
        --api-port "$((SERVER_API_PORT + i))" &
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
echo "run-scaled: $SERVERS Daphne processes on ports $PORT..$((PORT + SERVERS - 1)) (the API over TLS on" \
    "$SERVER_API_PORT..$((SERVER_API_PORT + SERVERS - 1))), $CONTROLPLANES control planes (sharing the clusters out)."
if [ "$SERVER_API_PORT" -ne "$API_PORT" ]; then
    echo "run-scaled: kubeconfigs name port $API_PORT: the TCP proxy in front (deploy/nginx-kubesim.conf) listens there."
fi
wait
