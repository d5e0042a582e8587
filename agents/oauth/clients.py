"""Dynamic client registration (RFC 7591, `POST /oauth/register`): public clients only (no
secret: PKCE proves who exchanges a code), redirect URIs `https://` or loopback `http://`,
a few registrations per address and hour."""

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from django.utils import timezone
from oauth2_provider.models import get_application_model

from agents.oauth.errors import OAuthProtocolError
from core import ratelimit

REGISTER_LIMIT = 20  # registrations per address and period: a client registers once
REGISTER_PERIOD_SECONDS = 3600
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
CLIENT_NAME_MAX = 100
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
GRANT_TYPES = ("authorization_code", "refresh_token")


def _metadata_error(description: str) -> OAuthProtocolError:
    return OAuthProtocolError("invalid_client_metadata", description)


def redirect_uri_allowed(uri: str) -> bool:
    """`https://` with a host, or `http://` on the loopback (RFC 8252: native apps, CLIs);
    never a fragment, never credentials in it."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_LENGTH:
        return False
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
    except ValueError:
        return False
    if parts.fragment or parts.username or parts.password or not host:
        return False
    if parts.scheme == "https":
        return True
    if parts.scheme != "http":
        return False
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _string_list(metadata: dict[str, Any], name: str, default: list[str]) -> list[str]:
    value = metadata.get(name, default)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _metadata_error(f"{name} must be an array of strings.")
    return value


def _checked(metadata: Any) -> dict[str, Any]:
    """The registration's metadata, or the RFC 7591 error naming what is wrong."""
    if not isinstance(metadata, dict):
        raise _metadata_error("The body must be a JSON object.")
    redirect_uris = metadata.get("redirect_uris")
    if not isinstance(redirect_uris, list) or not redirect_uris:
        raise OAuthProtocolError("invalid_redirect_uri", "redirect_uris must be a non-empty array.")
    if len(redirect_uris) > MAX_REDIRECT_URIS:
        raise OAuthProtocolError("invalid_redirect_uri", "At most 10 redirect_uris.")
    for uri in redirect_uris:
        if not redirect_uri_allowed(uri):
            raise OAuthProtocolError(
                "invalid_redirect_uri",
                f"Not an https:// or loopback http:// redirect URI: {str(uri)[:200]}",
            )
    method = metadata.get("token_endpoint_auth_method", "none")
    if method != "none":
        raise _metadata_error("Only public clients: token_endpoint_auth_method must be 'none'.")
    grant_types = _string_list(metadata, "grant_types", list(GRANT_TYPES))
    if "authorization_code" not in grant_types or set(grant_types) - set(GRANT_TYPES):
        raise _metadata_error("grant_types: authorization_code, and refresh_token, only.")
    if _string_list(metadata, "response_types", ["code"]) != ["code"]:
        raise _metadata_error("response_types: code only.")
    name = metadata.get("client_name")
    if name is None:
        name = urlsplit(redirect_uris[0]).hostname or "MCP client"
    if not isinstance(name, str) or not name.strip() or len(name) > CLIENT_NAME_MAX:
        raise _metadata_error(f"client_name must be a string of 1 to {CLIENT_NAME_MAX} characters.")
    return {
        "client_name": name.strip(),
        "redirect_uris": redirect_uris,
        "grant_types": [grant for grant in GRANT_TYPES if grant in grant_types],
    }


def oauth_client_register(*, metadata: Any, address: str) -> dict[str, Any]:
    """Register a public client; its RFC 7591 information response. Refused: an RFC 7591
    error (400), or 429 `rate_limited` past REGISTER_LIMIT an hour from one address."""
    window = ratelimit.hit(
        f"oauth-register:{address}", limit=REGISTER_LIMIT, period=REGISTER_PERIOD_SECONDS
    )
    if window.exceeded:
        raise OAuthProtocolError(
            "rate_limited", f"Too many registrations; retry in {window.reset} seconds.", 429
        )
    checked = _checked(metadata)
    application_model = get_application_model()
    application = application_model.objects.create(
        name=checked["client_name"],
        client_type=application_model.CLIENT_PUBLIC,
        authorization_grant_type=application_model.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(checked["redirect_uris"]),
        client_secret="",
        registration_source=application_model.RegistrationSource.DCR,
    )
    return {
        "client_id": application.client_id,
        "client_id_issued_at": int(timezone.now().timestamp()),
        "client_name": application.name,
        "redirect_uris": checked["redirect_uris"],
        "grant_types": checked["grant_types"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
