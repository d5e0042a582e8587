"""App configuration: agents' part in accounts' writes (takeover, erasure)."""

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "agents"

    def ready(self) -> None:
        from accounts.hooks import user_data
        from agents.models import AgentConnection
        from agents.services import agents_forget

        user_data(AgentConnection, takeover=agents_forget, erasure=agents_forget)
