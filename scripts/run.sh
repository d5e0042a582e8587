#!/usr/bin/env bash
# `make run` / `make dev`: the API on HOST:PORT with Celery workers and beat beside it: one
# worker for every task but webhook deliveries, one of their own for those (they call hosts
# users chose: a slow one must not hold up the rest; docs/webhooks.md).
# Usage: scripts/run.sh serve|dev   (serve: the production server, config.serve; dev: the same
# application under uvicorn with auto-reload, so the live feed's stream works there too)
# Ctrl-C (or SIGTERM) stops them all and exits 0. A worker or beat that dies is restarted (a
# crashed worker must not take the API down with it); the server dying stops the others, non-zero.
# A port already in use is said at once, before anything starts.
set -uo pipefail
MODE=${1:-serve}
VENV=${VENV:-.venv}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.local}
# Everything the processes write at run time stays under the ignored var/.
mkdir -p var "${CELERY_DATA_DIR:-var/celery}"

# Is the port free? Binding it is the only sure test (another server, or one of ours left over).
if ! "$VENV/bin/python" - "$HOST" "$PORT" <<'PY'
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
family = socket.AF_INET6 if ":" in host else socket.AF_INET
with socket.socket(family, socket.SOCK_STREAM) as probe:
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind((host, port))
    except OSError as error:
        sys.exit(f"Port {port} on {host} is already in use ({error.strerror}): another server is "
                 f"running there. Stop it, or pick another port: PORT={port + 1} make run")
PY
then
  exit 1
fi

set -m  # each child leads its own process group, so stopping one stops its children too
pids=()
stopping=0
stop() {
  stopping=1
  # Ignore further signals (make passes its own on, a second Ctrl-C): stopping must finish, or
  # the children would be left running without this script.
  trap '' INT TERM HUP
  echo
  echo "Stopping the server, the workers and beat..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 30); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}
trap stop INT TERM

# WARNING: beat queues the social scheduler every 10 s; a line per task would bury the rest.
# Failed tasks still log at ERROR. CELERY_LOG_LEVEL=INFO shows every task.
start_worker() {
  "$VENV/bin/celery" -A config --quiet worker --loglevel="${CELERY_LOG_LEVEL:-WARNING}" \
    -Q celery --concurrency=2 --without-mingle --without-gossip &
  worker=$!
}
start_webhooks_worker() {
  "$VENV/bin/celery" -A config --quiet worker --loglevel="${CELERY_LOG_LEVEL:-WARNING}" \
    -Q webhooks -n webhooks@%h --concurrency=2 --without-mingle --without-gossip &
  webhooks=$!
}
start_beat() {
  "$VENV/bin/celery" -A config --quiet beat --loglevel=WARNING \
    --schedule="${CELERY_DATA_DIR:-var/celery}/celerybeat-schedule" &
  beat=$!
}
start_worker
start_webhooks_worker
start_beat
if [ "$MODE" = dev ]; then
  "$VENV/bin/python" -m uvicorn config.asgi:application --reload --host "$HOST" --port "$PORT" \
    --lifespan off &
else
  HOST=$HOST PORT=$PORT "$VENV/bin/python" -m config.serve &
fi
server=$!
pids=("$worker" "$webhooks" "$beat" "$server")

base="http://$HOST:$PORT"
for _ in $(seq 1 150); do
  if "$VENV/bin/python" -c "import urllib.request as u; u.urlopen('$base/api/v1/health', timeout=1)" \
    2>/dev/null; then
    cat <<BANNER

  ------------------------------------------------------------------
   Freelancer Growth Platform API is running ($MODE)
     API      $base/api/   (the same under $base/api/v1/)
     Health   $base/api/health
     Docs     $base/api/docs/
     Admin    $base/admin/   (make superuser creates a login)
   Celery workers and beat run beside it. Ctrl-C stops them all.
  ------------------------------------------------------------------

BANNER
    break
  fi
  [ "$stopping" = 1 ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.2
done

# A worker or beat that exits is started again (at most RESTARTS_PER_MINUTE times a minute, so a
# worker that cannot start at all ends the run instead of spinning); the server exiting, or
# Ctrl-C, stops everything.
RESTARTS_PER_MINUTE=5
restarts=()
while true; do
  wait -n -p died
  status=$?
  if [ "$stopping" = 1 ]; then
    wait
    exit 0
  fi
  if [ "${died:-}" = "$worker" ] || [ "${died:-}" = "$webhooks" ] || [ "${died:-}" = "$beat" ]; then
    now=$(date +%s)
    recent=()
    for at in "${restarts[@]}"; do [ $((now - at)) -lt 60 ] && recent+=("$at"); done
    restarts=("${recent[@]}" "$now")
    if [ "${#restarts[@]}" -le "$RESTARTS_PER_MINUTE" ]; then
      if [ "$died" = "$worker" ]; then
        echo "The Celery worker exited (status $status); starting it again." >&2
        start_worker
      elif [ "$died" = "$webhooks" ]; then
        echo "The webhooks worker exited (status $status); starting it again." >&2
        start_webhooks_worker
      else
        echo "Celery beat exited (status $status); starting it again." >&2
        start_beat
      fi
      pids=("$worker" "$webhooks" "$beat" "$server")
      continue
    fi
    echo "Celery keeps exiting ($RESTARTS_PER_MINUTE restarts in a minute); giving up." >&2
  else
    echo "The server exited (status $status); stopping the workers and beat." >&2
  fi
  stop
  wait
  exit "$status"
done
