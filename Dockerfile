# One image for web (config.serve: uvicorn), worker and beat (Celery); the command picks the role:
#   web:    the default CMD below (WEB_CONCURRENCY processes, WEB_THREADS threads each)
#   worker: celery -A config worker -l INFO -Q celery
#   webhooks: celery -A config worker -l INFO -Q webhooks -n webhooks@%h (deliveries' own queue)
#   beat:   celery -A config beat -l INFO --schedule /tmp/celerybeat-schedule

# --- Build stage: dependencies only, so the final image carries no pip cache or build leftovers.
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1

RUN python -m venv /opt/venv
# Requirements alone first: code changes then reuse the cached dependency layer. The lock pins
# every package with its hashes, so the image holds exactly what was locked and tested.
COPY requirements.txt /tmp/requirements.txt
RUN /opt/venv/bin/pip install --no-cache-dir --require-hashes -r /tmp/requirements.txt

# --- Runtime stage --------------------------------------------------------------------------
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH="/opt/venv/bin:$PATH" \
    DJANGO_SETTINGS_MODULE=config.settings.production

RUN groupadd --system --gid 10001 app \
    && useradd --uid 10001 --gid app --create-home --shell /usr/sbin/nologin app

# Same base image as the build stage, so the venv's interpreter links stay valid.
COPY --from=build /opt/venv /opt/venv

WORKDIR /app
# Code and collected static files stay owned by root: the process that serves them cannot
# rewrite them.
COPY . .

# Production settings refuse to load without these; the values below exist only for this
# RUN line (collectstatic touches neither Redis nor the database) and never reach the image.
RUN SECRET_KEY=Bq9-build-stage-collectstatic-only-Xw4Zt7Lp2Mn8 \
    DATABASE_URL=postgres://build@localhost/build \
    REDIS_URL=redis://localhost:6379/0 \
    ALLOWED_HOSTS=localhost \
    FIELD_ENCRYPTION_KEY=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= \
    EMAIL_BACKEND=django.core.mail.backends.dummy.EmailBackend \
    PUBLIC_URL=https://build.invalid \
    python manage.py collectstatic --noinput

# Uploaded media (MEDIA_ROOT) is the one folder the server writes: owned by the server's user,
# and a volume, so web and worker share it (docker-compose.yml) and it outlives the container.
ENV MEDIA_ROOT=/app/var/media
# Metrics (METRICS_DIR): each process's numbers, added up by /metrics; web and worker share it.
ENV METRICS_DIR=/app/var/metrics
RUN mkdir -p /app/var/media /app/var/metrics && chown -R app:app /app/var
VOLUME ["/app/var/media", "/app/var/metrics"]

USER app

EXPOSE 8000

# No curl in slim images; urllib raises on a refused connection or a non-2xx status. Health
# answers whatever the Host header (docs/api-conventions.md), so ALLOWED_HOSTS need not list
# 127.0.0.1 for this probe, nor a pod's address for an orchestrator's.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v1/health', timeout=3)"]

# config.serve reads HOST, PORT, WEB_CONCURRENCY (processes; 2 for 2 cores) and WEB_THREADS
# from the environment. Exec form: the server is PID 1 and gets SIGTERM from `docker stop`,
# finishing requests in flight (10 s) and closing live-feed streams before it exits.
ENV HOST=0.0.0.0 PORT=8000
CMD ["python", "-m", "config.serve"]
