"""A lean Dev.to for the scheduler bench: the platform side of a burst of 10,000 creates.

The test suite's stand-in (tests/social/standins.py) is written to be read, one thread per
connection and every call kept with its headers; on the bench's two cores it cost more CPU
per create than the scheduler that made it, so the bench measured its platform as much as
our code. This one answers the same calls the way Dev.to does, on one asyncio loop:

- `POST /api/articles` (`api-key` header, `{"article": {title, body_markdown, ...}}`): 201
  `{id, title, body_markdown, url, published_at}` after `latency` seconds; the create is
  noted with the moment it arrived;
- `GET /api/articles/me/all?per_page=N&page=P`: that key's articles, newest first (what the
  adapter's lookup reads after a lost answer);
- `GET /api/users/me`.

Each API key is its own Dev.to user (keys start with KEY_PREFIX): a lookup sees only that
account's articles, as on the real platform.
"""

import asyncio
import json
import queue
import threading
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

KEY_PREFIX = "bench-devto-"
FIRST_ID = 1_900_000


class LeanDevto:
    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.lock = threading.Lock()
        self.creates: list[tuple[str, float]] = []  # (body_markdown, when it arrived)
        self.articles: dict[str, list[dict[str, Any]]] = {}  # per key, oldest first

    async def serve(self, ports: "queue.Queue[int]") -> None:
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0, backlog=1024)
        ports.put(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                arrived = time.time()
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                status, answer = await self._answer(method, target, headers, body, arrived)
                data = json.dumps(answer).encode()
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\n\r\n".encode()
                    + data
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _answer(self, method: str, target: str, headers: dict[str, str], body: bytes,
                      arrived: float) -> tuple[int, Any]:  # fmt: skip
        key = headers.get("api-key", "")
        if not key.startswith(KEY_PREFIX):
            return 401, {"error": "unauthorized", "status": 401}
        url = urlsplit(target)
        if method == "POST" and url.path == "/api/articles":
            article = json.loads(body).get("article") or {}
            with self.lock:
                self.creates.append((article.get("body_markdown", ""), arrived))
                mine = self.articles.setdefault(key, [])
                number = FIRST_ID + len(self.creates)
                created = {"id": number, "title": article.get("title", ""),
                           "body_markdown": article.get("body_markdown", ""),
                           "url": f"https://dev.to/bench/post-{number}",
                           "published_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                         time.gmtime(arrived))}  # fmt: skip
                mine.append(created)
            await asyncio.sleep(self.latency)
            return 201, created
        if method == "GET" and url.path == "/api/articles/me/all":
            query = parse_qs(url.query)
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            await asyncio.sleep(self.latency)
            with self.lock:
                newest = list(reversed(self.articles.get(key, [])))
            return 200, newest[(page - 1) * per_page : page * per_page]
        if method == "GET" and url.path == "/api/users/me":
            return 200, {"id": 4242, "username": "bench", "name": "Bench"}
        return 404, {"error": "not found", "status": 404}


def lean_devto_process(latency: float, pipe: Any) -> None:
    """The platform in a process of its own, as a real one is; answers the bench's questions
    on `pipe`: "creates" -> [(text, received_at)] of every create so far."""
    platform = LeanDevto(latency)
    ports: queue.Queue[int] = queue.Queue()
    threading.Thread(target=asyncio.run, args=(platform.serve(ports),), daemon=True).start()
    pipe.send(f"http://127.0.0.1:{ports.get(timeout=10)}")
    while True:
        if pipe.recv() == "creates":
            with platform.lock:
                pipe.send(list(platform.creates))
