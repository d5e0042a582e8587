"""Secrets at rest (provider tokens, app passwords, API keys): Fernet under a rotatable key list.

`FIELD_ENCRYPTION_KEY` is a comma-separated list of Fernet keys, newest first. Values are
encrypted with the first key and decrypted with whichever key made them (cryptography's
MultiFernet), so a new key is rolled out by putting it first, re-encrypting stored values
(`python manage.py reencrypt_secrets`), then dropping the old key. Production settings refuse a
missing or malformed key; development derives one from SECRET_KEY.
"""

from functools import cache, lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models


class SecretUnreadable(Exception):
    """A stored value no configured key can decrypt (a key was dropped too early)."""


@cache
def _fernet(keys: str) -> MultiFernet:
    return MultiFernet([Fernet(key.strip().encode()) for key in keys.split(",") if key.strip()])


def _current() -> MultiFernet:
    return _fernet(settings.FIELD_ENCRYPTION_KEY)


def encrypt(plaintext: str) -> str:
    return _current().encrypt(plaintext.encode()).decode()


# Decrypted values kept per process, by key list and token: the scheduler reads an account's
# tokens with each of its records (a burst: the same few hundred accounts, thousands of times),
# and decrypting them was a measurable share of the claim's CPU. Exact: a token decrypts to one
# plaintext forever (no TTL is used), and a changed secret is a new token. The plaintexts are
# those the process's loaded accounts hold anyway; the cache keeps at most this many.
DECRYPTED_KEPT = 2048


@lru_cache(maxsize=DECRYPTED_KEPT)
def _decrypted(keys: str, token: str) -> str:
    return _fernet(keys).decrypt(token.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _decrypted(settings.FIELD_ENCRYPTION_KEY, token)
    except InvalidToken:
        raise SecretUnreadable("No configured FIELD_ENCRYPTION_KEY decrypts this value.") from None


def encrypt_bytes(plaintext: bytes) -> bytes:
    return _current().encrypt(plaintext)


def decrypt_bytes(token: bytes) -> bytes:
    try:
        return _current().decrypt(token)
    except InvalidToken:
        raise SecretUnreadable("No configured FIELD_ENCRYPTION_KEY decrypts this value.") from None


class Secret(str):
    """A decrypted value that does not show itself in reprs, logs or the admin."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Secret('********')"


class EncryptedTextField(models.TextField):  # type: ignore[type-arg]
    """A text column holding Fernet tokens; Python sees the plaintext (as a `Secret`).

    Empty strings are stored as they are (nothing to hide), so "no credential" needs no key.
    Not searchable, not orderable: compare secrets after reading them, never in SQL.
    """

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or value == "":
            return value
        return Secret(decrypt(value))

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None or value == "":
            return value
        return encrypt(str(value))
