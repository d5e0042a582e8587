"""The provider's validator (django-oauth-toolkit's extension point, OAUTH2_VALIDATOR_CLASS):
a grant's refresh tokens take the id of the agent connection its consent made as their token
family, so every token of a grant is found, and revoked, by its connection."""

from typing import Any

from oauth2_provider.oauth2_validators import OAuth2Validator

from agents.models import OAuthRequest


class AgentOAuth2Validator(OAuth2Validator):
    def _create_authorization_code(self, request: Any, code: Any, expires: Any = None) -> Any:
        grant = super()._create_authorization_code(request, code, expires)
        # The consent that issues the code names its request (agents.oauth.services).
        OAuthRequest.objects.filter(pk=request.oauth_request_id).update(grant_id=grant.pk)
        return grant

    def _create_refresh_token(
        self, request: Any, refresh_token_code: Any, access_token: Any, previous_refresh_token: Any
    ) -> Any:
        refresh_token = super()._create_refresh_token(
            request, refresh_token_code, access_token, previous_refresh_token
        )
        if previous_refresh_token is None:  # the code's first pair: its consent's connection
            connection_id = (
                OAuthRequest.objects.filter(
                    grant__code=request.code, grant__application=request.client
                )
                .values_list("connection_id", flat=True)
                .first()
            )
            type(refresh_token).objects.filter(pk=refresh_token.pk).update(
                token_family=connection_id
            )
            refresh_token.token_family = connection_id
        return refresh_token
