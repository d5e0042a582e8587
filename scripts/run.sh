#!/usr/bin/env bash
# `make run` / `make dev`: the API on HOST:PORT with a Celery worker and beat beside it.
# Usage: scripts/run.sh serve|dev   (serve: the production server, config.serve; dev: the same
# application under uvicorn with auto-reload, so the live feed's stream works there too)
# Ctrl-C (or SIGTERM) stops all three and exits 0; a process that dies stops the others, non-zero.
set -uo pipefail
MODE=${1:-serve}
VENV=${VENV:-.venv}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.local}
# Everything the processes write at run time stays under the ignored var/.
mkdir -p var/celery

set -m  # each child leads its own process group, so stopping one stops its children too
pids=()
stopping=0
stop() {
  stopping=1
  # Ignore further signals (make passes its own on, a second Ctrl-C): stopping must finish, or
  # the children would be left running without this script.
  trap '' INT TERM HUP
  echo
  echo "Stopping the server, the worker and beat..."
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
"$VENV/bin/celery" -A config --quiet worker --loglevel="${CELERY_LOG_LEVEL:-WARNING}" --concurrency=2 \
  --without-mingle --without-gossip &
pids+=($!)
"$VENV/bin/celery" -A config --quiet beat --loglevel=WARNING --schedule=var/celerybeat-schedule &
pids+=($!)
if [ "$MODE" = dev ]; then
  "$VENV/bin/python" -m uvicorn config.asgi:application --reload --host "$HOST" --port "$PORT" \
    --lifespan off &
else
  HOST=$HOST PORT=$PORT "$VENV/bin/python" -m config.serve &
fi
pids+=($!)

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
   A Celery worker and beat run beside it. Ctrl-C stops all three.
  ------------------------------------------------------------------

BANNER
    break
  fi
  [ "$stopping" = 1 ] && break
  kill -0 "${pids[2]}" 2>/dev/null || break
  sleep 0.2
done

# Whichever stops first (a crash, or Ctrl-C) stops the others.
wait -n
status=$?
if [ "$stopping" = 1 ]; then
  wait
  exit 0
fi
echo "A process exited (status $status); stopping the others." >&2
stop
wait
exit "$status"
