#!/usr/bin/env bash
# `make run`: the API on HOST:PORT with a Celery worker and beat beside it; Ctrl-C stops all three.
set -euo pipefail
VENV=${VENV:-.venv}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
mkdir -p var/celery/queue var/celery/processed var/celery/results

set -m  # each child gets its own process group, so stopping one stops its children too
pids=()
stop() {
  trap - INT TERM EXIT
  # Each leader shuts its own children down (Celery its pool); runserver's autoreloader
  # child shares its group, so the group is signalled. Whatever is left after 10 s is killed.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  kill -TERM -- "-${pids[2]:-0}" 2>/dev/null || true
  for _ in $(seq 1 20); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}
trap stop INT TERM EXIT

"$VENV/bin/celery" -A config worker --loglevel=INFO --concurrency=2 &
pids+=($!)
"$VENV/bin/celery" -A config beat --loglevel=INFO --schedule=var/celerybeat-schedule &
pids+=($!)
echo "API on http://$HOST:$PORT/api/health  (docs: http://$HOST:$PORT/api/docs/, admin: /admin/)"
"$VENV/bin/python" manage.py runserver "$HOST:$PORT" &
pids+=($!)
# Whichever stops first (a crash, or Ctrl-C) stops the others.
wait -n
