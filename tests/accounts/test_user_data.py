"""The one registry of what each app keeps of a user (accounts.hooks.user_data): every model
with a foreign key to the user says what a takeover and an erasure do with its rows."""

from django.apps import apps
from django.contrib.auth import get_user_model

from accounts.hooks import user_data_registry


def test_every_model_with_a_user_key_is_cleaned_or_declared_safe():
    user_model = get_user_model()
    holding = {
        model._meta.label
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if getattr(field, "related_model", None) is user_model
        and (field.many_to_one or field.one_to_one)
        and field.concrete
    }
    registry = user_data_registry()
    assert sorted(holding - set(registry)) == []
    for label, data in registry.items():
        for moment in (data.takeover, data.erasure):
            assert callable(moment) or (isinstance(moment, str) and moment), label
