"""A local stand-in of an OpenAI-compatible chat-completions server, for real HTTP round trips."""

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A valid answer per tool, in the contract's output shape.
ANSWERS: dict[str, dict[str, Any]] = {
    "proposal_generate": {"title": "Proposal: Django API", "content": "Hello, I can build it."},
    "gig_generate": {
        "title": "I will build your Django REST API",
        "description": "A clean, tested API.",
        "tags": ["django", "api"],
        "packages": [{"name": "Basic", "price": 50, "deliveryDays": 3, "features": ["1 endpoint"]}],
        "faq": [{"question": "Do you write tests?", "answer": "Always."}],
    },
    "keywords_find": {
        "keywords": [{"keyword": "django api", "relevance": 0.9, "competition": "high"}]
    },
    "pricing_optimize": {
        "recommendedPrice": 120,
        "minPrice": 90,
        "maxPrice": 160,
        "currency": "USD",
        "rationale": "Market rate.",
    },
    "gig_health": {"score": 70, "checks": [{"name": "title", "passed": True, "suggestion": ""}]},
    "portfolio_generate": {"headline": "Backend engineer", "summary": "APIs.", "caseStudies": []},
    "messages_reply": {"reply": "Thanks!", "alternatives": ["Thank you."]},
    "reviews_analyze": {
        "averageRating": 4.5,
        "sentiment": "positive",
        "strengths": ["speed"],
        "improvements": [],
        "summary": "Happy clients.",
    },
    "seo_audit": {"score": 80, "issues": [], "suggestions": ["Add a tag"]},
    "social_ai_generate": {
        "title": "Launch",
        "content": "We launched!",
        "hashtags": ["#launch"],
        "mentions": [],
        "cta": "Try it",
    },
}


@dataclass
class StandIn:
    """Behaviour knobs and what the server received."""

    mode: str = "ok"  # ok | invalid_once | invalid | slow | error
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""


def _tool_of(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        content = message.get("content", "")
        if content.startswith("Tool: "):
            return str(content.split("\n", 1)[0].removeprefix("Tool: ").strip())
    return "proposal_generate"


def _handler(state: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            state.requests.append(body)
            state.headers.append(dict(self.headers))
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            if state.mode == "slow":
                time.sleep(state.delay)
            if state.mode == "error":
                return self._send(500, {"error": {"message": "boom"}})
            invalid = state.mode == "invalid" or (
                state.mode == "invalid_once" and len(state.requests) == 1
            )
            content = (
                "Sure! Here you go: {not json" if invalid else json.dumps(ANSWERS[_tool_of(body)])
            )
            return self._send(
                200,
                {
                    "id": f"chatcmpl-{len(state.requests)}",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60},
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

    return Handler


@contextmanager
def standin_server() -> Iterator[StandIn]:
    state = StandIn()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
