"""Settings shared by every environment, read from the environment (twelve-factor)."""

import base64
import hashlib
from datetime import timedelta
from pathlib import Path

import django_stubs_ext
import environ
from corsheaders.defaults import default_headers as default_cors_headers
from django.core.exceptions import ImproperlyConfigured

from core import __version__

# Lets admin and other framework generics be subscripted at runtime (ModelAdmin[User]).
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
# A .env file beside manage.py is read when present; real environment variables win.
env.read_env(BASE_DIR / ".env", overwrite=False)


def derive_key(secret: str, *, purpose: str) -> str:
    """A urlsafe-base64 32-byte key derived from `secret`, separate per purpose."""
    digest = hashlib.sha256(f"{purpose}:{secret}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()


# --- Core -------------------------------------------------------------------------------------
ENVIRONMENT = env.str("DJANGO_ENV", default="development")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
APP_URL = env.str("APP_URL", default="http://localhost:3000").rstrip("/")

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# Times to the second in the admin (config/formats/en/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]

# Ours, bottom layer first (docs/architecture.md); each may bring a `beat.py` of periodic tasks.
PROJECT_APPS = ["core", "accounts", "notifications", "billing", "aitools", "social", "health"]

INSTALLED_APPS = [
    # First: its `createsuperuser` (with the password validators) replaces Django's.
    "accounts",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "rest_framework_simplejwt.token_blacklist",
    "oauth2_provider",  # OAuth 2.1 for MCP clients that connect by URL (agents/oauth/)
    "core",
    "social",
    "notifications",
    "billing",
    "aitools",
    "health",
    "agents",
]

MIDDLEWARE = [
    # Outermost: every response's X-Request-ID, the request's log context, its access line and
    # HTTP metrics, whatever answers below (docs/operations.md).
    "core.api.access.AccessMiddleware",
    # The Host header, before anything reads it: probes pass whatever it is, others get JSON.
    "core.api.hosts.HostCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # CORS answers preflights before anything else counts or rejects them.
    "corsheaders.middleware.CorsMiddleware",
    # The API edge: rate limit, body size and media type, JSON instead of HTML errors.
    "core.api.middleware.ApiEdgeMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Replays the stored response of a repeated POST with the same Idempotency-Key.
    "core.api.idempotency.IdempotencyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
# The live feed's Redis channel. Redis publish/subscribe ignores the database number, so two
# deployments on one Redis (staging and production) must not share a channel name: by default
# it names this deployment's database.
_database = DATABASES["default"]
LIVEFEED_CHANNEL = env.str(
    "LIVEFEED_CHANNEL",
    default="fgp:livefeed:"
    + hashlib.sha256(
        "|".join(
            str(_database.get(part) or "") for part in ("ENGINE", "HOST", "PORT", "NAME")
        ).encode()
    ).hexdigest()[:16],
)
# A kept connection broken by a database restart is replaced instead of failing a request.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Many writers on one file: WAL lets readers run beside a writer, IMMEDIATE takes the write
    # lock when a transaction starts (no deadlocked lock upgrade), and the busy timeout waits
    # for the lock instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": (
            "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA busy_timeout=20000;"
        ),
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", 3)
    if env.bool("DATABASE_POOL", default=True):
        # One pool per process, shared by its threads (the server's request threads, and the
        # async live feed's short database reads, which run in threads that do not last).
        # max_size bounds the connections a process holds (web processes x max_size + Celery
        # must stay under max_connections); a request waits up to `timeout` for a free one,
        # then fails rather than hangs. Pooled connections are not also kept per thread.
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=2),
            "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=16),  # = WEB_THREADS
            "timeout": env.float("DATABASE_POOL_TIMEOUT_SECONDS", default=10.0),
            "max_idle": 300,
        }

# --- Cache and Redis --------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
# Short socket timeouts: a Redis that hangs must not hang requests (health answers within 1 s).
REDIS_SOCKET_CONNECT_TIMEOUT = 0.3
REDIS_SOCKET_TIMEOUT = 0.5
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="fgp"),
            "OPTIONS": {
                "socket_connect_timeout": REDIS_SOCKET_CONNECT_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
            },
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "fgp-default",
        }
    }

# --- Passwords --------------------------------------------------------------------------------
# Run on every password set: sign-up, setting one by login, the admin, createsuperuser.
# The specification's rule (contract.md "Passwords"): at least 6 characters; operators may raise
# it. Common, numeric and e-mail- or name-like passwords are refused whatever their length.
PASSWORD_MIN_LENGTH = env.int("PASSWORD_MIN_LENGTH", default=6)
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator",
        "OPTIONS": {"user_attributes": ("email", "full_name")},
    },
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": PASSWORD_MIN_LENGTH},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Static files -----------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Uploaded media: local files under var/media by default, served by the app at MEDIA_URL;
# MEDIA_STORAGE_BACKEND (e.g. storages.backends.s3.S3Storage, with that backend's AWS_*
# variables) keeps them elsewhere (docs/social.md, "Media").
MEDIA_ROOT = env.str("MEDIA_ROOT", default=str(BASE_DIR / "var" / "media"))
MEDIA_URL = "/media/"
MEDIA_MAX_UPLOAD_BYTES = env.int("MEDIA_MAX_UPLOAD_BYTES", default=10 * 1024 * 1024)
# Videos (social.md section 10): their own ceiling; an upload past FILE_UPLOAD_MAX_MEMORY_SIZE
# (Django's 2.5 MB) is spooled to a temporary file, never held in memory.
MEDIA_MAX_VIDEO_BYTES = env.int("MEDIA_MAX_VIDEO_BYTES", default=262_144_000)
# Documents (PDF, social.md section 13: LinkedIn's document posts): their own ceiling, checked
# before a byte of the file is parsed.
MEDIA_MAX_DOCUMENT_BYTES = env.int("MEDIA_MAX_DOCUMENT_BYTES", default=104_857_600)
# What re-encoding one uploaded image may cost, checked from its header before any pixel is
# decoded (413 `image_too_large` past any of them): one frame's pixels bound the memory (a
# 24-megapixel photo fits), the frames and all frames' pixels together bound the time of an
# animation, whose every frame is decoded and encoded again.
MEDIA_MAX_IMAGE_PIXELS = env.int("MEDIA_MAX_IMAGE_PIXELS", default=25_000_000)
MEDIA_MAX_IMAGE_FRAMES = env.int("MEDIA_MAX_IMAGE_FRAMES", default=250)
MEDIA_MAX_ANIMATION_PIXELS = env.int("MEDIA_MAX_ANIMATION_PIXELS", default=100_000_000)
# What one user's library may hold (the bytes of the files stored here; hosted ones take none)
# and how many files they may add (uploaded or registered) an hour: 413 `media_quota_exceeded`
# and 429 `rate_limited` past them (docs/social.md, "Campaigns, media").
MEDIA_QUOTA_BYTES = env.int("MEDIA_QUOTA_BYTES", default=2 * 1024**3)
MEDIA_UPLOADS_PER_HOUR = env.int("MEDIA_UPLOADS_PER_HOUR", default=100)
MEDIA_SERVE = env.bool("MEDIA_SERVE", default=True)  # off when a CDN or bucket serves them
STORAGES = {
    "default": {
        "BACKEND": env.str(
            "MEDIA_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage"
        )
    },
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Serving (config/serve.py, config/asgi.py) -----------------------------------------------
# The server's address (`make run`, the image), its processes, the request threads in each
# process (a request beyond them waits for a free one: slow provider calls hold a thread each,
# so more than the cores), and the proxies whose X-Forwarded-* headers uvicorn trusts ("": none).
SERVER_HOST = env.str("HOST", default="127.0.0.1")
SERVER_PORT = env.int("PORT", default=8000)
WEB_CONCURRENCY = env.int("WEB_CONCURRENCY", default=2)
WEB_THREADS = env.int("WEB_THREADS", default=16)
FORWARDED_ALLOW_IPS = env.str("FORWARDED_ALLOW_IPS", default="")
# `POST /mcp`, the agents' MCP server (docs/agents.md), served beside the API by the same
# processes; off: /mcp is the API's 404.
MCP_ENABLED = env.bool("MCP_ENABLED", default=True)
# OAuth 2.1 for MCP clients that connect by URL (agents.md sections 1 and 4, docs/agents.md):
# the lifetimes of the access tokens and of the (rotated) refresh tokens agents are given.
OAUTH_ACCESS_TOKEN_SECONDS = env.int("OAUTH_ACCESS_TOKEN_SECONDS", default=3600)
OAUTH_REFRESH_TOKEN_DAYS = env.int("OAUTH_REFRESH_TOKEN_DAYS", default=30)
# django-oauth-toolkit, the provider under agents/oauth/: public clients, PKCE S256 only, refresh
# tokens rotated (a rotated one replayed revokes its whole family), tokens hashed at rest.
OAUTH2_PROVIDER = {
    "OAUTH2_VALIDATOR_CLASS": "agents.oauth.validator.AgentOAuth2Validator",
    "SCOPES": {
        "posts:read": "Read posts, schedules, analytics, media and campaigns",
        "posts:write": "Create, publish and schedule posts; manage media and campaigns",
        "accounts:read": "Read the connected social accounts and the platforms",
        "ai:write": "Use the AI tools (spends credits) and read what they wrote",
        "notifications:read": "Read notifications and the unread count",
        "notifications:write": "Mark notifications read, delete them",
        "webhooks:write": "Manage webhook endpoints, read and redeliver deliveries",
    },
    # No scope asked: the read scopes; the user chooses what to grant at consent anyway.
    "DEFAULT_SCOPES": ["posts:read", "accounts:read", "notifications:read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": OAUTH_ACCESS_TOKEN_SECONDS,
    "REFRESH_TOKEN_EXPIRE_SECONDS": OAUTH_REFRESH_TOKEN_DAYS * 24 * 3600,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],  # http: loopback only (agents/oauth)
    "ALLOW_LOCALHOST_LOOPBACK": True,  # RFC 8252: a loopback redirect on any port
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
}
# The provider's own models (named, as a swappable model referenced by ours must be).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"  # noqa: S105 (a model)
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"  # noqa: S105 (a model)
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"  # noqa: S105 (a model)

# --- HTTP edge --------------------------------------------------------------------------------
# Largest request body the API reads (413 past it); also Django's own limit for form bodies.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES
RATE_LIMIT_PER_MINUTE = env.int("RATE_LIMIT_PER_MINUTE", default=100)
RATE_LIMIT_PERIOD_SECONDS = 60
RATE_LIMIT_KEY_PREFIX = env.str("RATE_LIMIT_KEY_PREFIX", default="fgp:rl")
# Without Redis, the counters live in files every process of this deployment shares (one folder
# per database), so two server processes do not double the limits; "" counts in this process
# only (the test settings).
RATE_LIMIT_FILE_DIR = env.str(
    "RATE_LIMIT_FILE_DIR",
    default=str(
        BASE_DIR
        / "var"
        / "ratelimit"
        / hashlib.sha256(str(DATABASES["default"].get("NAME")).encode()).hexdigest()[:16]
    ),
)
# Requests per minute per API key, besides the per-address limit (docs/api-keys.md).
API_KEY_RATE_LIMIT_PER_MINUTE = env.int("API_KEY_RATE_LIMIT_PER_MINUTE", default=120)
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[APP_URL])
# The documented request headers a browser client sends, and the response headers it must read
# (docs/api-conventions.md): without them here a browser hides or refuses them.
CORS_ALLOW_HEADERS = (
    *default_cors_headers,
    "idempotency-key",
    "prefer",
    "last-event-id",
    "x-workspace-id",  # the workspace a request acts in (docs/workspaces.md)
)
CORS_EXPOSE_HEADERS = [
    "Location",
    "Idempotent-Replayed",
    "Preference-Applied",
    "Retry-After",
    "RateLimit",
    "RateLimit-Policy",
    "X-Request-ID",
]

# --- REST framework ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.EnvelopeJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.BoundedJSONParser"],
    # One place decides who the caller is: an API key (X-API-Key, or a Bearer token that
    # starts with fgp_), else a session's JWT (docs/api-keys.md).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiKeyAuthentication",
        "accounts.authentication.BearerAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.EnvelopePagination",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "core.api.ordering.SortOrderFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "accounts.schema.ApiKeyAutoSchema",
    "EXCEPTION_HANDLER": "core.api.exceptions.envelope_exception_handler",
    # The per-address limit is enforced at the edge (core.api.middleware), for every request;
    # an API key's own limit needs the key, so it is a throttle, after authentication.
    "DEFAULT_THROTTLE_CLASSES": ["accounts.throttling.ApiKeyRateThrottle"],
    "UNAUTHENTICATED_USER": None,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DATETIME_FORMAT": "iso-8601",
}
# Lists without page/limit return everything up to this many rows, then the first page of it.
API_LIST_CEILING = env.int("API_LIST_CEILING", default=1000)

# A session (sign-in) lasts at most this long, however often its tokens are refreshed.
SESSION_MAX_AGE_DAYS = env.int("SESSION_MAX_AGE_DAYS", default=30)
SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=env.int("JWT_ACCESS_MINUTES", default=60)),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=env.int("JWT_REFRESH_DAYS", default=14)),
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
    "ALGORITHM": "HS256",
    "AUTH_HEADER_TYPES": ("Bearer",),
    "UPDATE_LAST_LOGIN": False,  # login records last_login itself, in its own service
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Freelancer Growth Platform API",
    "DESCRIPTION": (
        "REST API for freelancers: accounts, credit-metered AI tools, a social media hub and "
        "notifications. Every operation is served under `/api/` and, identically, under "
        "`/api/v1/`. Responses use the envelope `{success, message?, data?, error?, meta?}`; "
        "`GET /api/health` alone answers a bare object."
    ),
    "VERSION": __version__,
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH body is validated as declared (no view validates it as partial): its required
    # fields stay required in the schema.
    "COMPONENT_SPLIT_PATCH": False,
    "PREPROCESSING_HOOKS": ["core.api.schema.drop_versioned_duplicates"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "notifications.api.livefeed.document_stream",  # the live feed's stream: no DRF view
    ],
    "ENUM_NAME_OVERRIDES": {
        "ConnectionStateEnum": ["connected", "disconnected"],
        "GigStatusEnum": "aitools.models.GigStatus",
        "ProposalStatusEnum": "aitools.models.ProposalStatus",
        "GenerationStatusEnum": "aitools.models.GenerationStatus",
        "LevelEnum": ["low", "medium", "high"],
        "SocialProviderEnum": "social.networks.choices",  # the registry's networks
        "SocialAccountStatusEnum": "social.models.AccountStatus",
        "PostStatusEnum": "social.models.PostStatus",
        "RecordStatusEnum": "social.models.RecordStatus",
        "CampaignStatusEnum": "social.models.CampaignStatus",
        "DraftStatusEnum": ["Draft"],
        "DeliveryStatusEnum": "notifications.models.DeliveryStatus",
        "TimeZoneEnum": "core.api.serializers.TIME_ZONES",
        "RoleEnum": "accounts.models.Role",
        "WorkspaceRoleEnum": "accounts.models.WorkspaceRole",
        "ShareLinkStatusEnum": ["open", "revoked", "expired"],
        "ShareLinkKindEnum": "social.models.sharing.ShareKind",
        "AgentKindEnum": "agents.models.AgentKind",
    },
}

# --- Celery -----------------------------------------------------------------------------------
# The embedded broker's folder (no REDIS_URL): shared by the server, the worker and beat.
CELERY_DATA_DIR = Path(env.str("CELERY_DATA_DIR", default=str(BASE_DIR / "var" / "celery")))
CELERY_BROKER_URL = REDIS_URL or "filesystem://localhost/"
# Without Redis: kombu's file-system transport with atomic writes and claims (config/broker.py).
CELERY_BROKER_TRANSPORT = None if REDIS_URL else "config.broker:Transport"
CELERY_RESULT_BACKEND = REDIS_URL or f"file://{CELERY_DATA_DIR / 'results'}"
# The file-system broker: one folder shared by web, worker and beat, no server needed.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {}
    if REDIS_URL
    else {
        "data_folder_in": str(CELERY_DATA_DIR / "queue"),
        "data_folder_out": str(CELERY_DATA_DIR / "queue"),
        "processed_folder": str(CELERY_DATA_DIR / "processed"),
        "control_folder": str(CELERY_DATA_DIR / "control"),
        "store_processed": False,
        # The worker takes a message per process, then looks at the folder again after this
        # long: at kombu's default (1 s) a task chain (outbox dispatch, delivery) waited a
        # second per hop.
        "polling_interval": 0.1,
    }
)
# Worker and beat log through LOGGING below, like the web processes: one format, each line once.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# What a task prints (the console e-mail backend's messages) stays plain output, not WARNINGs.
CELERY_WORKER_REDIRECT_STDOUTS = False
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# Results live in the database (a generation's history entry, a delivery's log), never in the
# result backend: no task's return value is read. Ignoring them also keeps queueing from
# touching the result store (with Redis down it kept retrying before failing the request).
CELERY_TASK_IGNORE_RESULT = True
# Webhook deliveries call hosts users chose, and a slow one holds its task for the whole
# timeout: they have a queue of their own, read by a worker of their own (scripts/run.sh,
# docker-compose.yml), so they never wait behind, nor hold up, every other task.
WEBHOOK_QUEUE = "webhooks"
CELERY_TASK_ROUTES = {"notifications.tasks.webhook_deliver_task": {"queue": WEBHOOK_QUEUE}}

# --- Product settings -------------------------------------------------------------------------
CRON_SECRET = env.str("CRON_SECRET", default="")
PAYMENT_WEBHOOK_SECRET = env.str("PAYMENT_WEBHOOK_SECRET", default="")
MAGIC_LINK_EXPOSE_URL = env.bool("MAGIC_LINK_EXPOSE_URL", default=False)
FREE_PLAN_CREDITS = env.int("FREE_PLAN_CREDITS", default=20)
# When a new account gets its starting credits: "signup" (at once) or "verified" (when its
# e-mail is first verified by a magic link, so throwaway sign-ups cannot farm AI calls).
SIGNUP_CREDITS_ON = env.str("SIGNUP_CREDITS_ON", default="signup")
if SIGNUP_CREDITS_ON not in ("signup", "verified"):
    raise ImproperlyConfigured("SIGNUP_CREDITS_ON must be 'signup' or 'verified'.")
# Plan tiers: display name and monthly credit quota. The free quota is also a new user's balance.
PLANS = {
    "free": {"name": "Free", "monthly_quota": FREE_PLAN_CREDITS},
    "pro": {"name": "Pro", "monthly_quota": env.int("PRO_PLAN_CREDITS", default=200)},
    "agency": {"name": "Agency", "monthly_quota": env.int("AGENCY_PLAN_CREDITS", default=1000)},
}
# Prices of the paid plans in the currency's smallest unit: an order.paid for another amount or
# currency is stored `invalid` and applies nothing.
PLAN_PRICES = {
    "pro": env.int("PRO_PLAN_PRICE", default=49900),
    "agency": env.int("AGENCY_PLAN_PRICE", default=199900),
}
PLAN_CURRENCY = env.str("PLAN_CURRENCY", default="INR").upper()
# A signed payment event whose created_at is older than this is stored but not applied.
PAYMENT_EVENT_TOLERANCE_SECONDS = env.int("PAYMENT_EVENT_TOLERANCE_SECONDS", default=24 * 3600)
MAGIC_LINK_LIFETIME = timedelta(minutes=15)
# Magic-link requests per 15 minutes: per (e-mail, client address), and per client address over
# all e-mails. Nothing per e-mail alone: requests from elsewhere never stop the owner's.
MAGIC_LINK_REQUESTS_PER_WINDOW = env.int("MAGIC_LINK_REQUESTS_PER_WINDOW", default=5)
MAGIC_LINK_REQUESTS_PER_ADDRESS = env.int("MAGIC_LINK_REQUESTS_PER_ADDRESS", default=20)
MAGIC_LINK_REQUEST_WINDOW_SECONDS = 15 * 60
# E-mails sent to one address per hour, whoever asks: past it the request is answered the same
# but nothing is sent (one mailbox cannot be flooded from many client addresses).
MAGIC_LINK_EMAILS_PER_RECIPIENT = env.int("MAGIC_LINK_EMAILS_PER_RECIPIENT", default=10)
# Workspaces (docs/workspaces.md): shared workspaces one user may own (the personal one is not
# counted), and how long an invitation's link works.
WORKSPACES_PER_USER = env.int("WORKSPACES_PER_USER", default=50)
INVITATION_TTL_DAYS = env.int("INVITATION_TTL_DAYS", default=7)
APPROVAL_TTL_DAYS = env.int("APPROVAL_TTL_DAYS", default=14)  # an approval request's lifetime
# Wrong passwords, per 15-minute window: from one address for one e-mail, the first
# LOGIN_FREE_FAILURES are free, then each try waits 2, 4, 8... seconds (at most
# LOGIN_MAX_DELAY_SECONDS) after the last failure, and LOGIN_FAILURES_PER_CLIENT stop it; one
# address is stopped after LOGIN_FAILURES_PER_ADDRESS failures over all e-mails. Nothing counts
# per e-mail from everywhere: strangers' failures never lock the owner out.
LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60
LOGIN_FREE_FAILURES = env.int("LOGIN_FREE_FAILURES", default=3)
LOGIN_MAX_DELAY_SECONDS = env.int("LOGIN_MAX_DELAY_SECONDS", default=60)
LOGIN_FAILURES_PER_CLIENT = env.int("LOGIN_FAILURES_PER_CLIENT", default=20)
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=100)
AI_PROVIDER = env.str("AI_PROVIDER", default="offline")
AI_BASE_URL = env.str("AI_BASE_URL", default="")
AI_API_KEY = env.str("AI_API_KEY", default="")
AI_MODEL = env.str("AI_MODEL", default="")
AI_TIMEOUT_SECONDS = env.float("AI_TIMEOUT_SECONDS", default=60.0)
# Generations a user may have queued (Prefer: respond-async) at once.
AI_MAX_PENDING_JOBS = env.int("AI_MAX_PENDING_JOBS", default=3)
# A call still pending after this long died with its process: refunded and marked failed.
AI_STALE_AFTER_SECONDS = 15 * 60
FIELD_ENCRYPTION_KEY = env.str("FIELD_ENCRYPTION_KEY", default="")
# User-given URLs (Mastodon instances, media, webhook endpoints) may use http and private or
# loopback addresses: development and tests only; production refuses to start with it on.
OUTBOUND_ALLOW_PRIVATE = env.bool("OUTBOUND_ALLOW_PRIVATE", default=False)
# The largest answer any outside server may send us (provider JSON is kilobytes; fetched media
# has its own, smaller cap): past it the call fails, never read into memory whole.
OUTBOUND_MAX_RESPONSE_BYTES = env.int("OUTBOUND_MAX_RESPONSE_BYTES", default=16 * 1024 * 1024)
# Calls to one user-chosen host (a Mastodon instance, a Bluesky PDS, a webhook receiver, a media
# server) in flight at once per process, web and workers alike; more fail at once as busy.
OUTBOUND_PER_HOST_CONCURRENCY = env.int("OUTBOUND_PER_HOST_CONCURRENCY", default=8)
# Social providers: base URLs are settings so tests point the adapters at local stand-ins.
SOCIAL_HTTP_TIMEOUT_SECONDS = env.float("SOCIAL_HTTP_TIMEOUT_SECONDS", default=20.0)
DEVTO_API_URL = env.str("DEVTO_API_URL", default="https://dev.to/api").rstrip("/")
BLUESKY_SERVICE_URL = env.str("BLUESKY_SERVICE_URL", default="https://bsky.social").rstrip("/")
# The contract's name (social.md section 1); BLUESKY_VIDEO_URL, the name this setting had
# first, is still read when the contract's is unset.
BLUESKY_VIDEO_SERVICE_URL = env.str(
    "BLUESKY_VIDEO_SERVICE_URL",
    default=env.str("BLUESKY_VIDEO_URL", default="https://video.bsky.app"),
).rstrip("/")
# A platform processing a video is asked again after these many seconds (the last repeats),
# from a task: no worker thread waits; past the timeout the record fails with that reason.
VIDEO_POLL_SECONDS = env.list("VIDEO_POLL_SECONDS", cast=float, default=[2, 4, 8, 15, 30])
VIDEO_PROCESSING_TIMEOUT_SECONDS = env.int("VIDEO_PROCESSING_TIMEOUT_SECONDS", default=1800)
LINKEDIN_CLIENT_ID = env.str("LINKEDIN_CLIENT_ID", default="")
LINKEDIN_CLIENT_SECRET = env.str("LINKEDIN_CLIENT_SECRET", default="")
LINKEDIN_AUTH_URL = env.str(
    "LINKEDIN_AUTH_URL", default="https://www.linkedin.com/oauth/v2"
).rstrip("/")
LINKEDIN_API_URL = env.str("LINKEDIN_API_URL", default="https://api.linkedin.com").rstrip("/")
# LinkedIn retires an API version about a year after its release: a configuration change.
LINKEDIN_API_VERSION = env.str("LINKEDIN_API_VERSION", default="202510")
FACEBOOK_APP_ID = env.str("FACEBOOK_APP_ID", default="")
FACEBOOK_APP_SECRET = env.str("FACEBOOK_APP_SECRET", default="")
FACEBOOK_DIALOG_URL = env.str("FACEBOOK_DIALOG_URL", default="https://www.facebook.com").rstrip("/")
FACEBOOK_GRAPH_URL = env.str("FACEBOOK_GRAPH_URL", default="https://graph.facebook.com").rstrip("/")
FACEBOOK_GRAPH_VERSION = env.str("FACEBOOK_GRAPH_VERSION", default="v24.0")
# Threads (Meta's Threads API): its own app id and secret (the Threads use case of a Meta app),
# the consent page, the Graph host of its tokens and API, and the API version in the path.
THREADS_APP_ID = env.str("THREADS_APP_ID", default="")
THREADS_APP_SECRET = env.str("THREADS_APP_SECRET", default="")
THREADS_AUTH_URL = env.str("THREADS_AUTH_URL", default="https://threads.net").rstrip("/")
THREADS_GRAPH_URL = env.str("THREADS_GRAPH_URL", default="https://graph.threads.net").rstrip("/")
THREADS_GRAPH_VERSION = env.str("THREADS_GRAPH_VERSION", default="v1.0")
# YouTube (the Data API v3) through the Google OAuth app (shared with Google Business Profile):
# the consent page, the token endpoint (revocation at its origin's /revoke), the API host (its
# uploads at {}/upload/...), the project's uploads a day (reset at midnight Pacific Time), and
# whether the app is in Google's "Testing" status (refresh tokens then die after 7 days).
GOOGLE_CLIENT_ID = env.str("GOOGLE_CLIENT_ID", default="")
GOOGLE_CLIENT_SECRET = env.str("GOOGLE_CLIENT_SECRET", default="")
GOOGLE_AUTH_URL = env.str("GOOGLE_AUTH_URL", default="https://accounts.google.com/o/oauth2/v2/auth")
GOOGLE_TOKEN_URL = env.str("GOOGLE_TOKEN_URL", default="https://oauth2.googleapis.com/token")
GOOGLE_OAUTH_TESTING = env.bool("GOOGLE_OAUTH_TESTING", default=False)
YOUTUBE_API_URL = env.str("YOUTUBE_API_URL", default="https://www.googleapis.com").rstrip("/")
YOUTUBE_DAILY_UPLOADS = env.int("YOUTUBE_DAILY_UPLOADS", default=6)
# Google Business Profile (networks/google_business.md), through the same Google app: the
# Account Management API ({}/v1/accounts), the Business Information API ({}/v1/.../locations)
# and the v4 API of a location's posts ({}/v4/{account}/{location}/localPosts).
GOOGLE_BUSINESS_ACCOUNTS_URL = env.str(
    "GOOGLE_BUSINESS_ACCOUNTS_URL", default="https://mybusinessaccountmanagement.googleapis.com"
).rstrip("/")
GOOGLE_BUSINESS_INFO_URL = env.str(
    "GOOGLE_BUSINESS_INFO_URL", default="https://mybusinessbusinessinformation.googleapis.com"
).rstrip("/")
GOOGLE_BUSINESS_API_URL = env.str(
    "GOOGLE_BUSINESS_API_URL", default="https://mybusiness.googleapis.com"
).rstrip("/")
# TikTok (Login Kit and the Content Posting API, networks/tiktok.md): the app's client key and
# secret, the consent page, and the API host (tokens, user info, posting, status, video query).
TIKTOK_CLIENT_KEY = env.str("TIKTOK_CLIENT_KEY", default="")
TIKTOK_CLIENT_SECRET = env.str("TIKTOK_CLIENT_SECRET", default="")
TIKTOK_AUTH_URL = env.str("TIKTOK_AUTH_URL", default="https://www.tiktok.com/v2/auth/authorize/")
TIKTOK_API_URL = env.str("TIKTOK_API_URL", default="https://open.tiktokapis.com").rstrip("/")
# Pinterest (API v5): the app's id and secret (HTTP Basic at the token endpoint), the consent
# page, and the API host (`{}/v5/...`, the token endpoint included).
PINTEREST_CLIENT_ID = env.str("PINTEREST_CLIENT_ID", default="")
PINTEREST_CLIENT_SECRET = env.str("PINTEREST_CLIENT_SECRET", default="")
PINTEREST_AUTH_URL = env.str("PINTEREST_AUTH_URL", default="https://www.pinterest.com/oauth/")
PINTEREST_API_URL = env.str("PINTEREST_API_URL", default="https://api.pinterest.com").rstrip("/")
# Telegram (networks/telegram.md): the Bot API server, `{}/bot{token}/{method}` (a local
# Bot API server may stand in for it); each user brings a bot, so no app credentials.
TELEGRAM_API_URL = env.str("TELEGRAM_API_URL", default="https://api.telegram.org").rstrip("/")
MASTODON_CLIENT_NAME = env.str("MASTODON_CLIENT_NAME", default="Freelancer Growth Platform")
# X (networks/x.md): the app (OAuth 2.0, confidential client), the consent page's host and
# the API's; videos longer than X lets the account post are refused before sending.
X_CLIENT_ID = env.str("X_CLIENT_ID", default="")
X_CLIENT_SECRET = env.str("X_CLIENT_SECRET", default="")
X_AUTH_URL = env.str("X_AUTH_URL", default="https://x.com").rstrip("/")
X_API_URL = env.str("X_API_URL", default="https://api.x.com").rstrip("/")
X_MAX_VIDEO_SECONDS = env.float("X_MAX_VIDEO_SECONDS", default=140.0)
X_DAILY_POST_CAP = env.int("X_DAILY_POST_CAP", default=2400)
# Discord (networks/discord.md): the application whose OAuth consent creates an incoming
# webhook in the channel the user picks (`webhook.incoming`), its consent page, and the HTTP API
# (versioned paths {}/v10/...: the token endpoint and the webhooks).
DISCORD_CLIENT_ID = env.str("DISCORD_CLIENT_ID", default="")
DISCORD_CLIENT_SECRET = env.str("DISCORD_CLIENT_SECRET", default="")
DISCORD_AUTH_URL = env.str("DISCORD_AUTH_URL", default="https://discord.com/oauth2/authorize")
DISCORD_API_URL = env.str("DISCORD_API_URL", default="https://discord.com/api").rstrip("/")
# Slack (networks/slack.md): the Slack app whose OAuth v2 consent installs its bot in the user's
# workspace, the consent page, and the Web API (`{}/{method}`, oauth.v2.access included).
SLACK_CLIENT_ID = env.str("SLACK_CLIENT_ID", default="")
SLACK_CLIENT_SECRET = env.str("SLACK_CLIENT_SECRET", default="")
SLACK_AUTH_URL = env.str("SLACK_AUTH_URL", default="https://slack.com/oauth/v2/authorize")
SLACK_API_URL = env.str("SLACK_API_URL", default="https://slack.com/api").rstrip("/")
# Reddit (networks/reddit.md): the "web app" (its id and secret, HTTP Basic at the token
# endpoint), the OAuth pages ({}/authorize, {}/access_token, {}/revoke_token), the OAuth API, and
# the User-Agent sent on every call, token calls included (Reddit throttles or refuses a generic
# one): `<platform>:<app id>:<version> (by /u/<operator>)`.
REDDIT_CLIENT_ID = env.str("REDDIT_CLIENT_ID", default="")
REDDIT_CLIENT_SECRET = env.str("REDDIT_CLIENT_SECRET", default="")
REDDIT_AUTH_URL = env.str("REDDIT_AUTH_URL", default="https://www.reddit.com/api/v1").rstrip("/")
REDDIT_API_URL = env.str("REDDIT_API_URL", default="https://oauth.reddit.com").rstrip("/")
REDDIT_USER_AGENT = env.str(
    "REDDIT_USER_AGENT", default="web:freelancer-growth-platform:1.0 (by /u/<operator>)"
)
# The scheduler (docs/social.md): beat runs it every SCHEDULER_INTERVAL_SECONDS (0: off, cron
# calls the endpoint); a failed attempt waits SCHEDULER_RETRY_BASE_SECONDS * 2^(attempts - 1).
# The code reads these nine, and the scheduler's tuning without a variable, as one object:
# social/conf.py's SchedulerConfig (a SCHEDULER_* setting changed there, not read here).
SCHEDULER_INTERVAL_SECONDS = env.float("SCHEDULER_INTERVAL_SECONDS", default=10.0)
# The timer in every worker process (docs/social.md, "The timer"): records are attempted at their
# due time; it looks again at least every SCHEDULER_TICK_SECONDS for records scheduled meanwhile.
SCHEDULER_TIMER = env.bool("SCHEDULER_TIMER", default=True)
SCHEDULER_TICK_SECONDS = env.float("SCHEDULER_TICK_SECONDS", default=0.5)
# Provider calls in flight to one platform from every worker process together (0: no limit
# beyond each process's SCHEDULER_CONCURRENCY); an attempt that waited
# SCHEDULER_PROVIDER_WAIT_SECONDS for a slot goes back to wait, no attempt counted. The
# default is four default worker processes' calls: up to four, adding one adds calls in flight.
SCHEDULER_PROVIDER_CONCURRENCY = env.int("SCHEDULER_PROVIDER_CONCURRENCY", default=256)
SCHEDULER_PROVIDER_WAIT_SECONDS = env.float("SCHEDULER_PROVIDER_WAIT_SECONDS", default=10.0)
SCHEDULER_RETRY_BASE_SECONDS = env.int("SCHEDULER_RETRY_BASE_SECONDS", default=60)
SCHEDULER_BATCH_SIZE = env.int("SCHEDULER_BATCH_SIZE", default=500)
# Provider calls in flight per worker process (social.md's table says 16; docs/social.md, "The
# timer", says why 64: a burst of records due at one second is bound by the calls in flight).
SCHEDULER_CONCURRENCY = env.int("SCHEDULER_CONCURRENCY", default=64)
SCHEDULER_LEASE_SECONDS = env.int("SCHEDULER_LEASE_SECONDS", default=300)
# Outgoing webhooks (docs/webhooks.md): one attempt's time limit; the delays before each retry;
# consecutive failed deliveries that disable an endpoint.
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
WEBHOOK_RETRY_SCHEDULE = [
    int(delay)
    for delay in env.list(
        "WEBHOOK_RETRY_SCHEDULE", default=["5", "300", "1800", "7200", "18000", "36000", "36000"]
    )
]
WEBHOOK_DISABLE_AFTER_FAILURES = env.int("WEBHOOK_DISABLE_AFTER_FAILURES", default=5)
WEBHOOK_RETENTION_DAYS = env.int("WEBHOOK_RETENTION_DAYS", default=30)
# Endpoints one owner may have (each event is sent to each of them: the cap bounds what one
# event costs the delivery workers).
WEBHOOK_ENDPOINTS_PER_USER = env.int("WEBHOOK_ENDPOINTS_PER_USER", default=10)
# The live feed (docs/live-feed.md).
LIVEFEED_HEARTBEAT_SECONDS = env.float("LIVEFEED_HEARTBEAT_SECONDS", default=15.0)
LIVEFEED_MAX_STREAMS_PER_USER = env.int("LIVEFEED_MAX_STREAMS_PER_USER", default=5)
LIVEFEED_RETENTION_SECONDS = env.int("LIVEFEED_RETENTION_SECONDS", default=3600)
LIVEFEED_POLL_SECONDS = env.float("LIVEFEED_POLL_SECONDS", default=0.5)  # without Redis
LIVEFEED_TICKET_SECONDS = 60
# How often each server process looks, in one query, whether its open streams' users are still
# active and their sessions unrevoked (a safety net: revocation ends streams at once).
LIVEFEED_RECHECK_SECONDS = env.float("LIVEFEED_RECHECK_SECONDS", default=30.0)
# Idempotency-Key: responses kept this long; a first request silent this long is taken over.
IDEMPOTENCY_RETENTION_HOURS = env.int("IDEMPOTENCY_RETENTION_HOURS", default=24)
IDEMPOTENCY_ABANDONED_SECONDS = 15 * 60
# An OAuth `state` (and the consent it stands for) is good for this long, once.
SOCIAL_CONNECT_STATE_SECONDS = 10 * 60
# The API's own public address: absolute URLs of uploaded media, the Mastodon app's website.
PUBLIC_URL = env.str("PUBLIC_URL", default=f"http://{SERVER_HOST}:{SERVER_PORT}").rstrip("/")
# Domain events (and their per-consumer rows) are kept this long, then purged daily.
OUTBOX_RETENTION_DAYS = env.int("OUTBOX_RETENTION_DAYS", default=30)
# Outcomes users can act on (docs/social.md): `GET /api/events` holds its newest seconds back
# (an id is taken at insert; its transaction may commit a moment later); each platform's daily
# cap, posts per rolling 24 hours ("instagram=25,linkedin=100,threads=250,linkedin_page=100":
# a page has its own 100 beside its member's); how often beat runs the pre-flight check of the
# accounts with posts due in the next 24 hours (0: off).
EVENTS_REPLAY_SETTLE_SECONDS = env.float("EVENTS_REPLAY_SETTLE_SECONDS", default=2.0)
SOCIAL_DAILY_CAPS = {
    provider.strip(): int(limit)
    for provider, _, limit in (
        item.partition("=")
        for item in env.list(
            "SOCIAL_DAILY_CAPS",
            default=["instagram=25", "linkedin=100", "threads=250", "linkedin_page=100"],
        )
    )
    if provider.strip()
}
# X's per-account posts a day, unless SOCIAL_DAILY_CAPS names X itself.
SOCIAL_DAILY_CAPS.setdefault("x", X_DAILY_POST_CAP)
# TikTok's Direct Posts per creator a day (all apps together), unless SOCIAL_DAILY_CAPS names it.
SOCIAL_DAILY_CAPS.setdefault("tiktok", 15)
PREFLIGHT_INTERVAL_SECONDS = env.float("PREFLIGHT_INTERVAL_SECONDS", default=600.0)

# --- E-mail -----------------------------------------------------------------------------------
# The console backend logs each message through logging, its links redacted (core/mail.py);
# Django's own, when named, is replaced by it: it printed working sign-in links beside the logs.
CONSOLE_EMAIL_BACKEND = "core.mail.ConsoleEmailBackend"
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default=CONSOLE_EMAIL_BACKEND)
if EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend":
    EMAIL_BACKEND = CONSOLE_EMAIL_BACKEND
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Freelancer Growth <no-reply@localhost>")

# --- Observability (docs/operations.md) -------------------------------------------------------
# "text" (readable lines, the default) or "json" (one object per line: time, level, logger,
# message, request_id, user_id, method, route, status, duration).
LOG_FORMAT = (env.str("LOG_FORMAT", default="") or "text").strip().lower()
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be 'text' or 'json'.")
ACCESS_LOG = env.bool("ACCESS_LOG", default=True)  # one line per request, with its id
# GET /metrics answers a Bearer of this token (unset: 404, and nothing is recorded).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Where every process of this deployment writes its numbers for /metrics to add up (a folder
# per kind of process: web, worker, other); one folder per database, like the rate limit's.
METRICS_DIR = env.str(
    "METRICS_DIR",
    default=str(
        BASE_DIR
        / "var"
        / "metrics"
        / hashlib.sha256(str(DATABASES["default"].get("NAME")).encode()).hexdigest()[:16]
    ),
)
# Traces (OpenTelemetry, OTLP over HTTP; the exporter also reads the standard OTEL_*
# variables) and error reports (Sentry): each on only when configured.
OTEL_EXPORTER_OTLP_ENDPOINT = env.str("OTEL_EXPORTER_OTLP_ENDPOINT", default="")
OTEL_SERVICE_NAME = env.str("OTEL_SERVICE_NAME", default="freelancer-growth-api")
SENTRY_DSN = env.str("SENTRY_DSN", default="")
SENTRY_TRACES_SAMPLE_RATE = env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0)
# Our own services' host names: the only hosts outbound calls send trace context to (Sentry's
# and OpenTelemetry's headers); never a user-chosen host or a platform (core/telemetry.py).
TRACE_PROPAGATION_HOSTS = frozenset(
    host.strip().lower() for host in env.list("TRACE_PROPAGATION_HOSTS", default=[]) if host.strip()
)

# --- Logging ----------------------------------------------------------------------------------
# dictConfig, and in JSON mode what is printed goes through logging too (core.logs.configure).
LOGGING_CONFIG = "core.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"()": "core.logs.TextFormatter"},
        "json": {"()": "core.logs.JsonFormatter"},
    },
    "filters": {
        "handled_500": {"()": "core.api.exceptions.HandledServerErrorFilter"},
        "request_context": {"()": "core.logs.RequestContextFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["request_context"],
        },
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Our exception handler logs an API view's 500 with its traceback; the filter drops
        # Django's second, one-line copy of it (its own uncaught errors still log here).
        "django.request": {
            "level": "ERROR",
            "handlers": ["console"],
            "filters": ["handled_500"],
            "propagate": False,
        },
        # Celery's pool (billiard) logs here with propagation off: without a handler of its
        # own its errors (a pool process that died) went to stderr bare, in neither format.
        "multiprocessing": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        # pypdf tells of every oddity it repairs in a user's uploaded PDF at warning level
        # (social.content.pdf): the user's file, not our fault; what it cannot read is a 400.
        "pypdf": {"level": "ERROR"},
    },
}
