"""The OpenAI-compatible provider against a stand-in server: a real HTTP round trip."""

import pytest

from aitools.providers.base import ProviderError
from aitools.providers.openai import OpenAIProvider
from tests.aitools.standin import ANSWERS, standin_server


@pytest.fixture
def standin():
    with standin_server() as state:
        yield state


def provider(standin, *, timeout: float = 5.0, key: str = "sk-test") -> OpenAIProvider:
    return OpenAIProvider(base_url=standin.url, api_key=key, model="test-model", timeout=timeout)


def test_asks_for_json_and_validates_the_answer(standin):
    result = provider(standin).generate("seo_audit", {"title": "My gig", "description": "x"})
    assert result.output == ANSWERS["seo_audit"]
    assert result.tokens_used == 60
    sent = standin.requests[0]
    assert sent["model"] == "test-model"
    assert sent["response_format"] == {"type": "json_object"}
    assert '"score": "integer 0..100"' in sent["messages"][0]["content"]
    assert sent["messages"][1]["content"].startswith("Tool: seo_audit")
    assert standin.headers[0]["Authorization"] == "Bearer sk-test"


def test_no_key_sends_no_authorization(standin):
    provider(standin, key="").generate("messages_reply", {"message": "hi"})
    assert "Authorization" not in standin.headers[0]


def test_invalid_json_is_retried_once(standin):
    standin.mode = "invalid_once"
    result = provider(standin).generate("messages_reply", {"message": "hi"})
    assert result.output == ANSWERS["messages_reply"]
    assert len(standin.requests) == 2
    assert result.tokens_used == 120  # both attempts were paid for
    retry = standin.requests[1]["messages"]
    assert retry[-2]["role"] == "assistant"
    assert "JSON object only" in retry[-1]["content"]


def test_invalid_json_twice_is_a_provider_error(standin):
    standin.mode = "invalid"
    with pytest.raises(ProviderError, match="invalid answer"):
        provider(standin).generate("messages_reply", {"message": "hi"})
    assert len(standin.requests) == 2


def test_a_slow_server_times_out(standin):
    standin.mode, standin.delay = "slow", 2.0
    with pytest.raises(ProviderError, match="did not answer in time"):
        provider(standin, timeout=0.3).generate("messages_reply", {"message": "hi"})


def test_a_server_error_is_a_provider_error(standin):
    standin.mode = "error"
    with pytest.raises(ProviderError, match="HTTP 500"):
        provider(standin).generate("messages_reply", {"message": "hi"})


def test_an_unreachable_server_is_a_provider_error():
    from tests.servers import free_port

    dead = OpenAIProvider(
        base_url=f"http://127.0.0.1:{free_port()}/v1", api_key="", model="m", timeout=1
    )
    with pytest.raises(ProviderError, match="could not be reached"):
        dead.generate("messages_reply", {"message": "hi"})


def test_readiness_needs_url_and_model():
    assert not OpenAIProvider(base_url="", api_key="", model="", timeout=1).readiness().ready
    assert (
        OpenAIProvider(base_url="http://x/v1", api_key="", model="m", timeout=1).readiness().ready
    )
