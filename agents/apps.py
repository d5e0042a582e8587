"""App configuration: agents' part in accounts' writes (takeover, erasure)."""

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "agents"

    def ready(self) -> None:
        from accounts.hooks import user_data
        from agents.models import AgentConnection, OAuthRequest
        from agents.oauth.services import PROVIDER_MODELS, oauth_forget
        from agents.services import agents_forget

        user_data(AgentConnection, takeover=agents_forget, erasure=agents_forget)
        user_data(OAuthRequest, takeover=oauth_forget, erasure=oauth_forget)
        for name in PROVIDER_MODELS:
            user_data(f"oauth2_provider.{name}", takeover=oauth_forget, erasure=oauth_forget)
