"""The outbound layer: classification, retries, timeouts, and the guard for user-given URLs."""

import json
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core import outbound
from tests.servers import free_port


class Handler(BaseHTTPRequestHandler):
    """`/status/<code>[?retry_after=N]`, `/sleep/<seconds>`, `/redirect`, `/echo-host`,
    `/cookie`."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _answer(self) -> None:
        self.server.hits.append((self.command, self.path))  # type: ignore[attr-defined]
        path, _, query = self.path.partition("?")
        parts = path.strip("/").split("/")
        body = b"{}"
        headers = {"Content-Type": "application/json"}
        status = 200
        if parts[0] == "status":
            status = int(parts[1])
            if query.startswith("retry_after="):
                headers["Retry-After"] = query.split("=", 1)[1]
            body = json.dumps({"error": {"code": 190 if status == 400 else status}}).encode()
        elif parts[0] == "sleep":
            time.sleep(float(parts[1]))
        elif parts[0] == "redirect":
            status, headers["Location"] = 302, "http://127.0.0.1:1/elsewhere"
        elif parts[0] == "echo-host":
            body = json.dumps({"host": self.headers["Host"]}).encode()
        elif parts[0] == "cookie":  # sets one, and says which it was sent
            headers["Set-Cookie"] = "sid=abc; Path=/"
            body = json.dumps({"cookie": self.headers["Cookie"]}).encode()
        elif parts[0] == "drip":  # a valid answer, one byte every 0.2 s, forever (bounded)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            for _ in range(200):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.2)
            return
        elif parts[0] == "huge":  # an answer far past any cap, sent without a length
            self.send_response(200)
            self.end_headers()
            chunk = b"x" * 65536
            try:
                for _ in range(int(parts[1])):
                    self.wfile.write(chunk)
            except OSError:
                pass
            return
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer
    protocol_version = "HTTP/1.0"  # the drip and huge answers end when the connection does


@pytest.fixture
def http_server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.hits = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url(http_server: ThreadingHTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{http_server.server_address[1]}{path}"


@pytest.fixture
def outbound_client() -> outbound.Client:
    return outbound.Client("test", read_timeout=2)


# --- Classification ---------------------------------------------------------------------------


def test_a_2xx_is_returned(http_server, outbound_client):
    assert outbound_client.request("GET", url(http_server, "/status/201")).status_code == 201


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (401, outbound.AuthenticationError),
        (403, outbound.AuthenticationError),
        (404, outbound.PermanentError),
        (422, outbound.PermanentError),
        (302, outbound.PermanentError),
    ],
)
def test_statuses_are_classified(http_server, outbound_client, status, error_class):
    with pytest.raises(error_class) as caught:
        outbound_client.request("POST", url(http_server, f"/status/{status}"))
    assert caught.value.status == status
    assert type(caught.value) is error_class


def test_a_long_retry_after_goes_back_to_the_caller(http_server, outbound_client):
    with pytest.raises(outbound.TransientError) as caught:
        outbound_client.request("GET", url(http_server, "/status/429?retry_after=30"))
    assert (caught.value.status, caught.value.retry_after) == (429, 30.0)
    assert caught.value.maybe_delivered is False  # 429: refused before any work
    assert len(http_server.hits) == 1  # not waited on inline


def test_idempotent_requests_are_retried_and_posts_are_not(http_server, outbound_client):
    with pytest.raises(outbound.TransientError) as caught:
        outbound_client.request("GET", url(http_server, "/status/503?retry_after=0"))
    assert caught.value.maybe_delivered is True
    assert len(http_server.hits) == 3  # the first try and two retries
    http_server.hits.clear()
    with pytest.raises(outbound.TransientError):
        outbound_client.request("POST", url(http_server, "/status/503?retry_after=0"))
    assert len(http_server.hits) == 1
    http_server.hits.clear()
    with pytest.raises(outbound.TransientError):  # a POST made safe to repeat (Idempotency-Key)
        outbound_client.request(
            "POST", url(http_server, "/status/502?retry_after=0"), idempotent=True
        )
    assert len(http_server.hits) == 3


def test_a_read_timeout_may_have_reached_the_server(http_server):
    slow = outbound.Client("test", read_timeout=0.2, retries=0)
    with pytest.raises(outbound.TransientError) as caught:
        slow.request("POST", url(http_server, "/sleep/1"))
    assert (caught.value.timed_out, caught.value.maybe_delivered) == (True, True)


def test_a_refused_connection_reached_nothing(outbound_client):
    with pytest.raises(outbound.TransientError) as caught:
        outbound_client.request("POST", f"http://127.0.0.1:{free_port()}/")
    assert (caught.value.timed_out, caught.value.maybe_delivered) == (False, False)


def test_a_call_whose_kept_session_was_closed_under_it_reached_nothing(
    keepalive_server, outbound_client, dns
):
    """Past PINNED_SESSIONS kept pools are closed, maybe while another thread is about to
    take a connection from them: that call fails, but nothing was sent."""
    port = keepalive_server.server_address[1]
    dns["hooks.example.com"] = [["127.0.0.1"]]
    target = f"http://hooks.example.com:{port}/"
    assert outbound_client.request("POST", target, guarded=True).status_code == 200
    [pools] = outbound_client.pinned.values()
    # Closed, and still where the next call takes its pool from.
    pools.connection_from_host("127.0.0.1", port, "http").close()
    with pytest.raises(outbound.TransientError) as caught:
        outbound_client.request("POST", target, guarded=True)
    assert caught.value.maybe_delivered is False


def test_a_provider_refines_the_classification(http_server):
    def facebook_like(response):
        if response.status_code == 400 and response.json()["error"]["code"] == 190:
            return outbound.AuthenticationError("token expired", status=400)
        return None

    refined = outbound.Client("test", read_timeout=2, classify=facebook_like)
    with pytest.raises(outbound.AuthenticationError):
        refined.request("GET", url(http_server, "/status/400"))


def test_a_cookie_one_call_was_set_is_never_sent_with_the_next(http_server, outbound_client):
    """A client's session serves every user's calls: nothing a server set travels on."""
    assert outbound_client.request("GET", url(http_server, "/cookie")).json() == {"cookie": None}
    assert outbound_client.request("GET", url(http_server, "/cookie")).json() == {"cookie": None}


# --- The guard --------------------------------------------------------------------------------


@pytest.fixture
def strict(settings):
    settings.OUTBOUND_ALLOW_PRIVATE = False


@pytest.fixture
def dns(monkeypatch):
    """Stand in for DNS: name -> list of answers, served in turn (the last one repeats)."""
    answers: dict[str, list[list[str]]] = {}

    def resolve(host: str, port: int) -> list[str]:
        if host in answers:
            queue = answers[host]
            return queue.pop(0) if len(queue) > 1 else queue[0]
        return [host]  # an address literal resolves to itself

    monkeypatch.setattr(outbound, "_resolve", resolve)
    return answers


@pytest.mark.usefixtures("strict")
@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "0.0.0.0",  # noqa: S104
        "100.64.0.1",  # carrier-grade NAT
        "224.0.0.1",
        "[::1]",
        "[fc00::1]",
        "[fe80::1]",
        "[::ffff:127.0.0.1]",
        "[2002:7f00:1::]",  # 6to4 around 127.0.0.1
        "[2002:a9fe:a9fe::]",  # 6to4 around the cloud metadata address
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",  # Teredo, client 127.0.0.1
        # Each range of the IANA special-purpose registries not globally reachable, ...
        "0.1.2.3",  # "this network"
        "192.0.0.8",  # IPv4 dummy address (192.0.0.0/24: Python 3.11 let it through)
        "192.0.0.9",  # PCP anycast: reachable in the registry, refused with its /24
        "192.0.0.170",  # NAT64/DNS64 discovery
        "192.0.2.1",  # TEST-NET-1
        "192.88.99.1",  # the deprecated 6to4 relay anycast
        "198.18.0.1",  # benchmarking
        "198.51.100.1",  # TEST-NET-2
        "203.0.113.1",  # TEST-NET-3
        "240.0.0.1",  # reserved
        "255.255.255.255",  # limited broadcast
        "239.255.255.250",  # multicast
        "[::]",
        "[::ffff:8.8.8.8]",  # IPv4-mapped, even around a public address
        "[::127.0.0.1]",  # IPv4-compatible (deprecated)
        "[64:ff9b::a00:1]",  # NAT64 around 10.0.0.1
        "[64:ff9b::808:808]",  # NAT64 around a public address: refused all the same
        "[64:ff9b:1::1]",  # NAT64, local use
        "[100::1]",  # discard-only
        "[100:0:0:1::1]",  # dummy prefix
        "[2001:2::1]",  # benchmarking
        "[2001:20::1]",  # ORCHIDv2, inside 2001::/23
        "[2001:db8::1]",  # documentation
        "[2002:808:808::1]",  # 6to4 around a public address
        "[3fff::1]",  # documentation (2024)
        "[5f00::1]",  # SRv6 SIDs
        "[fd12:3456::1]",  # unique-local
        "[fec0::1]",  # site-local (deprecated)
        "[ff02::1]",  # multicast
        "[4000::1]",  # outside the global unicast block
    ],
)
def test_private_addresses_are_refused(dns, address):
    host = address.strip("[]")
    dns["internal.example.com"] = [[host]]
    with pytest.raises(outbound.UnsafeURL):
        outbound.guard_url(f"https://{address}/hook")
    with pytest.raises(outbound.UnsafeURL):
        outbound.guard_url("https://internal.example.com/hook")


@pytest.mark.usefixtures("strict")
@pytest.mark.parametrize(
    "address",
    ["93.184.216.34", "8.8.8.8", "100.63.255.255", "100.128.0.1", "192.0.1.1", "192.31.196.1",
     "223.255.255.254", "2606:4700:4700::1111", "2a00:1450:4001::1", "2620:4f:8000::1"],
)  # fmt: skip
def test_public_addresses_pass_the_guard(dns, address):
    dns["public.example.com"] = [[address]]
    assert outbound.guard_url("https://public.example.com/").address == address


# What requests-hardened 1.3.0b1 (June 2026) refuses: `ipaddress`'s private ranges (Python
# 3.11 and later tables), multicast, and its own list. The guard refuses all of it.
HARDENED_REFUSES = [
    "0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/29", "192.0.0.170/31", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
    "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32", "224.0.0.0/4",
    "::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48",
    "2001:db8::/32", "2001:10::/28", "fc00::/7", "fe80::/10", "ff00::/8",
    "192.88.99.0/24", "100.64.0.0/10", "5f00::/16", "64:ff9b::/96", "2001:20::/28",
    "192.0.0.0/24", "64:ff9b:1::/48", "2002::/16", "3fff::/20",
]  # fmt: skip


@pytest.mark.parametrize("block", HARDENED_REFUSES)
def test_every_range_requests_hardened_refuses_is_refused(block):
    import ipaddress

    from core import special_addresses

    network = ipaddress.ip_network(block)
    for address in (network.network_address, network.broadcast_address):
        assert special_addresses.refusal(str(address)) is not None, address


def test_every_range_refused_is_one_from_the_registries_table():
    """The rule reads one table (with each row's source); the guard names the row it used."""
    from core import special_addresses

    assert special_addresses.refusal("192.0.0.8") == (
        "IETF Protocol Assignments, 192.0.0.0/24 (RFC 6890)"
    )
    for network, name, reference in special_addresses.REFUSED:
        first = str(network.network_address)
        assert special_addresses.refusal(first) is not None, (network, name, reference)
    assert special_addresses.refusal("fe80::1%eth0") is not None  # a zone names no other host


@pytest.mark.usefixtures("strict")
def test_only_https_to_public_addresses_passes(dns):
    dns["hooks.example.com"] = [["93.184.216.34"]]
    target = outbound.guard_url("https://hooks.example.com/receive")
    assert (target.host, target.port, target.address) == ("hooks.example.com", 443, "93.184.216.34")
    with pytest.raises(outbound.UnsafeURL, match="https"):
        outbound.guard_url("http://hooks.example.com/receive")
    with pytest.raises(outbound.UnsafeURL):
        outbound.guard_url("https://user:secret@hooks.example.com/receive")
    with pytest.raises(outbound.UnsafeURL):
        outbound.guard_url("not a url")


@pytest.mark.usefixtures("strict")
def test_one_private_answer_among_public_ones_is_refused(dns):
    dns["mixed.example.com"] = [["93.184.216.34", "10.0.0.5"]]
    with pytest.raises(outbound.UnsafeURL):
        outbound.guard_url("https://mixed.example.com/")


def test_the_connection_is_pinned_to_the_checked_address(http_server, outbound_client, dns):
    # DNS rebinding: the first answer is checked, later answers point elsewhere. The request
    # still goes to the checked address, speaking to the name it was given.
    port = http_server.server_address[1]
    dns["rebind.example.com"] = [["127.0.0.1"], ["10.255.255.1"]]
    response = outbound_client.request(
        "GET", f"http://rebind.example.com:{port}/echo-host", guarded=True
    )
    assert response.json() == {"host": f"rebind.example.com:{port}"}


def test_guarded_requests_never_follow_redirects(http_server, outbound_client, dns):
    port = http_server.server_address[1]
    dns["hooks.example.com"] = [["127.0.0.1"]]
    with pytest.raises(outbound.PermanentError) as caught:
        outbound_client.request("POST", f"http://hooks.example.com:{port}/redirect", guarded=True)
    assert caught.value.status == 302
    assert len(http_server.hits) == 1


# --- Deadlines and size caps -----------------------------------------------------------------


def test_a_dripping_answer_ends_at_the_calls_deadline(http_server):
    # Each read gets a byte before its timeout; the call's whole budget still ends it.
    client = outbound.Client("test", read_timeout=1.0, retries=0)
    started = time.monotonic()
    with pytest.raises(outbound.TransientError) as caught:
        client.request("POST", url(http_server, "/drip"))
    assert time.monotonic() - started < 2.5
    assert caught.value.timed_out
    assert caught.value.maybe_delivered


@pytest.fixture
def dripping_server() -> Iterator[tuple[str, list[float]]]:
    """A raw server that answers every request with its status line and headers one byte
    every 0.1 s (a whole, valid answer after about 8 s); a URL to it, and the moments each
    connection ended."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    ended: list[float] = []
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + b"X-Pad: " + b"a" * 20
    answer += b"\r\nContent-Length: 2\r\n\r\n{}"

    def drip(conn: socket.socket) -> None:
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(65536)
            try:
                for byte in answer:
                    conn.sendall(bytes([byte]))
                    time.sleep(0.1)
            except OSError:
                pass
            ended.append(time.monotonic())

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", ended
    listener.close()


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("POST", {"json": {"text": "hello"}}),  # a create to a configured host
        ("GET", {}),  # a read (retried inline while its time lasts)
        ("POST", {"guarded": True}),  # a user-chosen host (a webhook receiver)
    ],
)
def test_a_dripped_status_line_and_header_end_at_the_calls_deadline(
    dripping_server, method, options
):
    """Each byte comes well within the read timeout; the call's one deadline still ends it."""
    base, _ = dripping_server
    client = outbound.Client("test", read_timeout=1.0, retries=2)
    started = time.monotonic()
    with pytest.raises(outbound.TransientError) as caught:
        client.request(method, f"{base}/hooks", **options)
    assert time.monotonic() - started < 2.0
    assert (caught.value.timed_out, caught.value.maybe_delivered) == (True, True)
    assert caught.value.message == "The server did not answer in time."


def test_a_dripped_tls_handshake_ends_at_the_calls_deadline():
    """A server that answers the TLS greeting one byte at a time (a record that never
    completes) holds no call past its deadline; nothing was sent."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)  # the client's hello
            try:
                conn.sendall(b"\x16\x03\x03\x40\x00")  # a handshake record of 16 KB...
                for _ in range(100):  # ...sent a byte every 0.1 s
                    conn.sendall(b"\x00")
                    time.sleep(0.1)
            except OSError:
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client = outbound.Client("test", read_timeout=1.0, retries=0)
    started = time.monotonic()
    try:
        with pytest.raises(outbound.TransientError) as caught:
            client.request("POST", f"https://127.0.0.1:{listener.getsockname()[1]}/", json={})
        assert time.monotonic() - started < 2.0
        assert (caught.value.timed_out, caught.value.maybe_delivered) == (True, False)
    finally:
        listener.close()


def test_a_connection_cut_by_the_deadline_is_not_kept(keepalive_server, dripping_server):
    """After a call cut off, the client's next calls (to any host) work as usual."""
    base, _ = dripping_server
    client = outbound.Client("test", read_timeout=0.5, retries=0)
    with pytest.raises(outbound.TransientError):
        client.request("GET", f"{base}/slow")
    for path in ("/one", "/two"):
        assert client.request("GET", url(keepalive_server, path)).json()["path"] == path
    assert keepalive_server.connections == 1


def test_an_answer_past_the_size_cap_is_refused_without_reading_it_whole(http_server, settings):
    settings.OUTBOUND_MAX_RESPONSE_BYTES = 1024 * 1024
    client = outbound.Client("test", read_timeout=10, retries=0)
    started = time.monotonic()
    with pytest.raises(outbound.PermanentError, match="larger than"):
        client.request("GET", url(http_server, "/huge/6400"))  # 400 MB offered
    assert time.monotonic() - started < 5


def test_calls_to_one_user_chosen_host_are_bounded_in_every_process(http_server, settings):
    """Not only web requests: the scheduler's and the webhooks' calls run on bounded()'s
    lanes, and a slow host must not hold them all. The gate counts every client's calls."""
    from core.concurrency import bounded_map

    settings.OUTBOUND_PER_HOST_CONCURRENCY = 2
    mastodon = outbound.Client("test", read_timeout=5, retries=0)
    media = outbound.Client("media", read_timeout=5, retries=0)

    def call(index: int) -> str:
        client = mastodon if index % 2 else media
        try:
            client.request("GET", url(http_server, "/sleep/1"), guarded=True)
        except outbound.HostBusy as busy:
            return f"busy {busy.maybe_delivered} {busy.timed_out}"
        return "ok"

    started = time.monotonic()
    results = bounded_map(call, list(range(5)), limit=5)
    assert sorted(results) == ["busy False False"] * 3 + ["ok", "ok"]  # not sent, not late
    assert time.monotonic() - started < 3  # the refused ones failed at once
    assert len(http_server.hits) == 2  # nothing was sent for them
    # Our own configured hosts (the platforms' APIs) are not gated: callers bound those.
    plain = bounded_map(
        lambda _: mastodon.request("GET", url(http_server, "/sleep/0.5")).status_code,
        list(range(5)), limit=5,
    )  # fmt: skip
    assert plain == [200] * 5


def test_a_client_made_to_wait_for_its_host_takes_turns_within_its_deadline(http_server, settings):
    """The webhooks' client (its threads serve deliveries only): a burst to one receiver goes
    out a bound at a time instead of failing as busy."""
    from core.concurrency import bounded_map

    settings.OUTBOUND_PER_HOST_CONCURRENCY = 2
    client = outbound.Client("webhooks", read_timeout=3, retries=0, wait_for_host=True)
    started = time.monotonic()
    statuses = bounded_map(
        lambda _: client.request("POST", url(http_server, "/sleep/0.4"), guarded=True).status_code,
        list(range(5)), limit=5,
    )  # fmt: skip
    assert statuses == [200] * 5
    assert 1.1 < time.monotonic() - started < 3  # three turns of two, within the deadline


# --- Kept-alive connections and how answers are read -------------------------------------------


class KeepAliveHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with kept-alive connections: echoes the method, path, body and content type,
    and counts the connections it was asked on; `/close` answers and closes the connection."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1  # type: ignore[attr-defined]

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.dumps({
            "method": self.command, "path": self.path,
            "body": self.rfile.read(length).decode(),
            "type": self.headers.get("Content-Type"),
            "agent": self.headers.get("User-Agent"),
        }).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if self.path == "/close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


@pytest.fixture
def keepalive_server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), KeepAliveHandler)
    httpd.connections = 0  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_plain_calls_reuse_one_kept_alive_connection_and_encode_their_bodies(
    keepalive_server, outbound_client
):
    base = url(keepalive_server, "")
    sent = outbound_client.request("POST", f"{base}/a", json={"text": "é", "n": 1}).json()
    assert sent == {"method": "POST", "path": "/a", "body": '{"text": "\\u00e9", "n": 1}',
                    "type": "application/json",
                    "agent": "FreelancerGrowthPlatform/1.0"}  # fmt: skip
    form = outbound_client.request("POST", f"{base}/b", data={"a": "1 2", "b": None}).json()
    assert (form["body"], form["type"]) == ("a=1+2", "application/x-www-form-urlencoded")
    got = outbound_client.request("GET", f"{base}/c?x=1", params={"y": ["2", "3"]}).json()
    assert (got["method"], got["path"], got["body"]) == ("GET", "/c?x=1&y=2&y=3", "")
    encoded = outbound_client.request("GET", f"{base}/d", params="q=(a:b)&n=1").json()
    assert encoded["path"] == "/d?q=(a:b)&n=1"  # already encoded: sent as it is
    assert keepalive_server.connections == 1


def test_a_connection_the_server_closed_is_not_reused(keepalive_server, outbound_client):
    base = url(keepalive_server, "")
    assert outbound_client.request("GET", f"{base}/close").status_code == 200
    time.sleep(0.05)  # the server's close reaches the idle connection
    assert outbound_client.request("POST", f"{base}/after", json={}).json()["path"] == "/after"
    assert keepalive_server.connections == 2


def test_guarded_calls_to_one_checked_address_reuse_a_kept_alive_connection(
    keepalive_server, outbound_client, dns
):
    """A webhook receiver or a Mastodon instance is called again and again: the session pinned
    to its checked address is kept, and its connection with it."""
    port = keepalive_server.server_address[1]
    dns["hooks.example.com"] = [["127.0.0.1"]]
    for path in ("/one", "/two", "/three"):
        answer = outbound_client.request(
            "POST", f"http://hooks.example.com:{port}{path}", guarded=True, json={}
        )
        assert answer.json()["path"] == path
    assert keepalive_server.connections == 1


def test_a_cookie_a_guarded_call_was_set_is_never_sent_with_the_next(
    http_server, outbound_client, dns
):
    """The kept pinned session serves every user's calls to that host: it keeps no cookie."""
    port = http_server.server_address[1]
    dns["hooks.example.com"] = [["127.0.0.1"]]
    for _ in range(2):
        answer = outbound_client.request(
            "GET", f"http://hooks.example.com:{port}/cookie", guarded=True
        )
        assert answer.json() == {"cookie": None}


def test_kept_alive_connections_are_reused_past_descriptor_1023(keepalive_server):
    """A worker process holds many sockets; select() cannot watch one numbered past 1023
    (the full suite found it): the check on an idle connection must still work."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        pytest.skip("needs 1,200 open files")
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        client = outbound.Client("test", read_timeout=2)
        for path in ("/one", "/two", "/three"):
            assert client.request("GET", url(keepalive_server, path)).json()["path"] == path
    finally:
        for descriptor in held:
            os.close(descriptor)
    assert keepalive_server.connections == 1


def test_answers_are_read_as_http_clients_read_them(outbound_client):
    """Answers are read as HTTP clients read them: an interim 100 answer
    skipped, repeated fields joined, a folded line continued, a chunked body whole, and the
    connection then reused for the next call."""
    import socket

    answers = [
        b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
        b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nLink: <a>\r\n"
        b"X-Note: first\r\n  and folded\r\nLink: <b>\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'5\r\n{"id"\r\n4\r\n: 7}\r\n0\r\n\r\n',
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}",
    ]
    listener = socket.create_server(("127.0.0.1", 0))
    connections: list[int] = []

    def serve() -> None:
        conn, _ = listener.accept()
        connections.append(1)
        with conn:
            for answer in answers:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536)
                head, _, body = request.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length")), 0)  # fmt: skip
                while len(body) < length:
                    body += conn.recv(65536)
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        created = outbound_client.request("POST", f"{base}/articles", json={"a": 1})
        assert (created.status_code, created.json()) == (201, {"id": 7})
        assert created.headers["link"] == "<a>, <b>"
        assert created.headers["x-note"] == "first and folded"
        assert "x-interim" not in created.headers
        assert outbound_client.request("GET", f"{base}/next").json() == {}
        assert connections == [1]  # the same connection
    finally:
        thread.join(timeout=5)
        listener.close()


# --- What the log says -------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "level"), [(503, "WARNING"), (401, "WARNING"), (404, "INFO")])
def test_failures_are_logged_with_the_request_id_from_the_call_threads(
    http_server, caplog, status, level
):
    """A request's provider calls run on bounded()'s threads; their log lines still name the
    request, and a server failing (5xx) or refusing our credentials (401) is a WARNING."""
    from core import logs
    from core.concurrency import bounded_map

    client = outbound.Client("test", read_timeout=2, retries=0)

    def call(path: str) -> str:
        try:
            client.request("POST", url(http_server, path))
        except outbound.OutboundError as error:
            return type(error).__name__
        return "ok"

    caplog.handler.addFilter(logs.RequestContextFilter())
    token = logs.bind(logs.RequestContext("req-42"))
    try:
        with caplog.at_level("INFO", logger="core.outbound"):
            bounded_map(call, [f"/status/{status}", f"/status/{status}"], limit=2)
    finally:
        logs.unbind(token)
    answered = [record for record in caplog.records if "answered" in record.getMessage()]
    assert [(record.levelname, record.request_id) for record in answered] == [
        (level, "req-42"),
        (level, "req-42"),
    ]


@pytest.mark.parametrize(
    ("target", "options"),
    [("http://", {}), ("not a url", {}), ("http://127.0.0.1:1/", {"json": {"n": float("nan")}})],
)
def test_a_request_that_cannot_be_sent_is_a_permanent_error(outbound_client, target, options):
    with pytest.raises(outbound.PermanentError, match="could not be sent"):
        outbound_client.request("POST", target, **options)


@pytest.mark.parametrize(
    ("method", "url", "headers", "options"),
    [
        ("POST", "https://api.example.com/a", {"api-key": "k"}, {"json": {"t": "é", "n": 1}}),
        ("PUT", "https://api.example.com/x", {"content-type": "text/x-json"}, {"json": []}),
        ("POST", "https://api.example.com/x", {"accept": "application/json"}, {}),
        ("GET", "https://bücher.example/a b?q=ü", {}, {}),
        ("DELETE", "http://127.0.0.1:8080", {"Content-Length": "0"}, {"json": None}),
        ("POST", "https://api.example.com/x", {}, {"data": {"a": "1"}, "params": {"b": "2"}}),
    ],
)
def test_requests_are_encoded_as_requests_encodes_them(method, url, headers, options):
    """The client's own encoding of JSON and bodiless requests gives the bytes requests'
    PreparedRequest gives: URL, request line, headers (names, order), body."""
    import requests

    client = outbound.Client("test", read_timeout=2)
    ours = outbound._prepare(method, url, client.headers, headers, **options)
    theirs = requests.PreparedRequest()
    theirs.prepare(
        method=method, url=url, headers={**client.headers, **headers},
        params=options.get("params"), data=options.get("data"), json=options.get("json"),
    )  # fmt: skip
    assert (ours.url.url, ours.url.path, ours.body) == (theirs.url, theirs.path_url, theirs.body)
    assert list(ours.headers.items()) == list(theirs.headers.items())
    assert ours.chunked is False
