"""The admin's shared base classes (each app registers its own models)."""

import json
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    """For records written by services alone (ledger, payment events, AI history): operators
    look, never add, edit or delete by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def json_block(value: Any) -> SafeString:
    """A JSON document (or its text) for a read-only field: indented, in a <pre> block; text
    that is not JSON is shown as it is."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return format_html('<pre class="json">{}</pre>', value)
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return format_html('<pre class="json">{}</pre>', text)
