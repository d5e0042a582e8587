#!/usr/bin/env bash
# CI smoke stage: the runtime lock alone, in a clean virtualenv, with the production settings,
# against real PostgreSQL and Redis (DATABASE_URL, REDIS_URL). Starts the server, a worker and
# beat as production does, then checks them through HTTP (scripts/smoke_check.py): health, a
# sign-up, an operator's credit grant (manage.py), and an AI call queued to the worker and
# finished by it. Bounded: about two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?set DATABASE_URL (PostgreSQL)}" "${REDIS_URL:?set REDIS_URL}"
PYTHON=${PYTHON:-python3}
PORT=${SMOKE_PORT:-8765}

work=$(mktemp -d)
pids=()
cleanup() {
  status=$?
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 20); do  # a graceful stop first: up to 10 s
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [ "$status" != 0 ]; then
    for log in "$work"/*.log; do
      [ -f "$log" ] && { echo "--- $(basename "$log"), last lines ---"; tail -n 40 "$log"; }
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

echo "smoke: installing requirements.txt alone into a clean virtualenv"
"$PYTHON" -m venv "$work/venv"
timeout 600 "$work/venv/bin/pip" install --quiet --require-hashes -r requirements.txt
py="$work/venv/bin/python"

# The production settings, with what a deployment would set. The keys are made here, per run.
export DJANGO_SETTINGS_MODULE=config.settings.production
SECRET_KEY=$("$py" -c 'import secrets; print(secrets.token_urlsafe(50))')
FIELD_ENCRYPTION_KEY=$("$py" -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')
export SECRET_KEY FIELD_ENCRYPTION_KEY
export ALLOWED_HOSTS=127.0.0.1,localhost SECURE_SSL_REDIRECT=false
export EMAIL_BACKEND=django.core.mail.backends.console.EmailBackend
export HOST=127.0.0.1 PORT WEB_CONCURRENCY=2 PUBLIC_URL="http://127.0.0.1:$PORT"

timeout 120 "$py" manage.py migrate --noinput -v 0
timeout 120 "$py" manage.py collectstatic --noinput -v 0  # as the image build does
"$py" -m config.serve >"$work/server.log" 2>&1 &
pids+=($!)
"$work/venv/bin/celery" -A config worker --loglevel=INFO --concurrency=2 >"$work/worker.log" 2>&1 &
pids+=($!)
"$work/venv/bin/celery" -A config beat --loglevel=INFO --schedule="$work/beat-schedule" \
  >"$work/beat.log" 2>&1 &
pids+=($!)

email="smoke-$(date +%s)@example.com"
timeout 120 "$py" scripts/smoke_check.py "http://127.0.0.1:$PORT" signup "$email"
# Production grants starting credits on e-mail verification; an operator grants some instead.
timeout 60 "$py" manage.py grant_credits --email "$email" --credits 5 --reason "CI smoke stage"
timeout 120 "$py" scripts/smoke_check.py "http://127.0.0.1:$PORT" ai "$email"
for pid in "${pids[@]}"; do
  kill -0 "$pid" 2>/dev/null || { echo "smoke: a process died (see its log)" >&2; exit 1; }
done
grep -q "beat: Starting" "$work/beat.log" || { echo "smoke: beat did not start" >&2; exit 1; }
echo "smoke: passed (server, worker and beat on the runtime lock alone)"
