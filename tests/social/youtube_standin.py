"""YouTube's API as a stand-in (networks/youtube.md): Google's consent page, token endpoint and
revocation (google_oauth_standin: for every Google API's stand-in), the channel, resumable
uploads (the init's session URI, chunks of 256 KiB multiples answered 308 with the `Range`
kept, the status query `bytes */N`, sessions that can be gone), the video's processing
(`video_polls` looks, then processed or failed with `video_fail`), the channel's uploads
playlist and the statistics, with Google's error bodies and the project's upload quota.
`StandIn` gives it `fail`, `expired` (the tokens and the refresh token refused), `scripted`,
`acted` and `video_polls` / `video_fail`."""

import time
from dataclasses import dataclass, field
from typing import Any

from tests.social.google_oauth_standin import GOOGLE_CLIENT, OAUTH_ROUTES, GoogleOAuthStandIn
from tests.social.standins import Answer, Call, _bearer, stamp

UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload"
READ_SCOPE = "https://www.googleapis.com/auth/youtube.readonly"
CHANNEL = {"id": "UCada0000000000000000001", "title": "Ada Designs", "customUrl": "@adadesigns"}
UPLOADS = "UU" + CHANNEL["id"][2:]
QUANTUM = 256 * 1024  # chunks are multiples of this, the last excepted
PRIVACY = {"public", "unlisted", "private"}
__all__ = ["CHANNEL", "GOOGLE_CLIENT", "READ_SCOPE", "UPLOAD_SCOPE", "YouTubeStandIn"]


def _google_error(status: int, reason: str, message: str, domain: str = "youtube.video") -> Answer:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
             404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}  # fmt: skip
    body = {"error": {"code": status, "message": message,
                      "errors": [{"domain": domain, "reason": reason, "message": message}],
                      "status": names.get(status, "UNKNOWN")}}  # fmt: skip
    return status, body, {}


@dataclass
class YouTubeStandIn(GoogleOAuthStandIn):
    has_channel: bool = True
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions_gone: bool = False  # every session answers 404 (expired after a week)
    daily_uploads: int = 100  # the project's uploads a day
    locked_private: bool = False  # an unaudited project: every upload is private
    SCOPES = (UPLOAD_SCOPE, READ_SCOPE)
    REFRESH_TOKEN = "yt-refresh-token"
    routes = (
        *OAUTH_ROUTES,  # Google's OAuth, for every Google API's stand-in (google_oauth_standin)
        ("GET", r"/youtube/v3/channels", "channels"),
        ("POST", r"/upload/youtube/v3/videos", "init"),
        ("PUT", r"/upload/youtube/v3/videos", "upload"),
        ("GET", r"/youtube/v3/videos", "videos"),
        ("GET", r"/youtube/v3/playlistItems", "playlist_items"),
    )

    def busy(self) -> Answer:
        status, body, _ = _google_error(
            429, "rateLimitExceeded", "Too many requests.", "usageLimits"
        )
        return status, body, {"Retry-After": "30"}

    def down(self) -> Answer:
        return _google_error(503, "backendError", "Backend Error", "global")

    def _token(self, call: Call) -> Answer | None:
        if self.expired or _bearer(call) not in self.tokens:
            return 401, {"error": {"code": 401, "message": "Request had invalid authentication "
                                   "credentials.", "errors": [{"domain": "global", "reason":
                                   "authError", "message": "Invalid Credentials",
                                   "location": "Authorization"}],
                                   "status": "UNAUTHENTICATED"}}, {}  # fmt: skip
        return None

    # --- The channel --------------------------------------------------------------------------

    def channels(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        if call.q("mine") != "true" or not call.q("part"):
            return _google_error(400, "missingRequiredParameter", "No filter selected.")
        items = []
        if self.has_channel:
            items = [{"kind": "youtube#channel", "id": CHANNEL["id"],
                      "snippet": {"title": CHANNEL["title"], "customUrl": CHANNEL["customUrl"],
                                  "thumbnails": {"default": {"url": "https://yt3.example/ada.jpg"}}},
                      "contentDetails": {"relatedPlaylists": {"uploads": UPLOADS}}}]  # fmt: skip
        return 200, {"kind": "youtube#channelListResponse", "items": items,
                     "pageInfo": {"totalResults": len(items)}}, {}  # fmt: skip

    # --- Resumable uploads --------------------------------------------------------------------

    def _refusal(self, body: Any) -> Answer | None:
        snippet, status = (body or {}).get("snippet") or {}, (body or {}).get("status") or {}
        title, description = str(snippet.get("title") or ""), str(snippet.get("description") or "")
        if not title.strip() or len(title) > 100 or "<" in title or ">" in title:
            return _google_error(
                400, "invalidTitle", "The request metadata specifies an invalid video title."
            )
        if len(description.encode()) > 5000 or "<" in description or ">" in description:
            return _google_error(
                400,
                "invalidDescription",
                "The request metadata specifies an invalid video description.",
            )
        if not str(snippet.get("categoryId") or "").isdigit():
            return _google_error(
                400,
                "invalidCategoryId",
                "The snippet.categoryId property specifies an invalid category ID.",
            )
        tags = snippet.get("tags") or []
        if sum(len(t) + (2 if " " in t else 0) for t in tags) + max(0, len(tags) - 1) > 500:
            return _google_error(
                400, "invalidTags", "The request metadata specifies invalid video keywords."
            )
        if status.get("privacyStatus") not in PRIVACY or "selfDeclaredMadeForKids" not in status:
            return _google_error(400, "invalidVideoMetadata", "The request metadata is invalid.")
        return None  # fmt: skip

    def _today(self) -> int:
        since = time.time() - 86_400
        return sum(1 for s in self.sessions.values() if s["opened"] >= since)

    def init(self, call: Call) -> Answer:
        refused = self._token(call) or self._refusal(call.body)
        if refused:
            return refused
        if call.q("uploadType") != "resumable" or call.q("part") != "snippet,status":
            return _google_error(400, "invalidParameter", "uploadType=resumable is required.")
        total = call.headers.get("X-Upload-Content-Length", "")
        kind = call.headers.get("X-Upload-Content-Type", "")
        if not total.isdigit() or kind not in ("video/mp4", "video/quicktime"):
            return _google_error(400, "mediaBodyRequired", "No video content.")
        if self._today() >= self.daily_uploads:
            return _google_error(403, "quotaExceeded", "The request cannot be completed because "
                                 "you have exceeded your quota.", "youtube.quota")  # fmt: skip
        number = str(self.next_id())
        with self.lock:
            self.sessions[number] = {"total": int(total), "mime": kind, "body": call.body,
                                     "received": 0, "opened": time.time(), "video": None,
                                     "notify": call.q("notifySubscribers")}  # fmt: skip
        location = f"{self.url}/upload/youtube/v3/videos?uploadType=resumable&upload_id={number}"
        return 200, b"", {"Location": location}

    def _where(self, session: dict[str, Any]) -> Answer:
        kept = session["received"]
        return 308, b"", ({"Range": f"bytes=0-{kept - 1}"} if kept else {})

    def upload(self, call: Call) -> Answer:
        session = self.sessions.get(call.q("upload_id"))
        if session is None or self.sessions_gone:
            return _google_error(404, "notFound", "The upload session was not found.", "global")
        ranged = call.headers.get("Content-Range", "")
        total = session["total"]
        if ranged == f"bytes */{total}":  # the status query
            return (201, session["video"], {}) if session["video"] else self._where(session)
        if session["video"]:
            return 201, session["video"], {}
        raw = call.body if isinstance(call.body, bytes) else b""
        try:
            first, last = (int(n) for n in ranged.split(" ")[1].split("/")[0].split("-"))
        except (IndexError, ValueError):
            first, last = 0, len(raw) - 1
        if first != session["received"] or last - first + 1 != len(raw) or last >= total:
            return _google_error(400, "badContent", "The Content-Range does not match the upload.")
        if last + 1 < total and len(raw) % QUANTUM:
            return _google_error(400, "badContent", "Chunks are multiples of 256 KiB.")
        with self.lock:
            session["received"] = last + 1
            if session["received"] < total:
                return self._where(session)
            session["video"] = self._video(session)
        return 201, session["video"], {}

    def _video(self, session: dict[str, Any]) -> dict[str, Any]:
        body = session["body"]
        number = self.next_id()
        video_id = f"yt{number:09d}"
        asked, kids = body["status"]["privacyStatus"], body["status"]["selfDeclaredMadeForKids"]
        video = {"kind": "youtube#video", "id": video_id,
                 "snippet": {**body["snippet"], "channelId": CHANNEL["id"],
                             "publishedAt": stamp(time.time()).replace(".000", "")},
                 "status": {"uploadStatus": "uploaded",
                            "privacyStatus": "private" if self.locked_private else asked,
                            "selfDeclaredMadeForKids": kids}}  # fmt: skip
        self.posts.append({**video, "bytes": session["total"], "notify": session["notify"],
                           "created": time.time()})  # fmt: skip
        self.processing_started(video_id)
        return video

    # --- Reading ------------------------------------------------------------------------------

    def _post(self, video_id: str) -> dict[str, Any] | None:
        return next((post for post in self.posts if post["id"] == video_id), None)

    def videos(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        parts = set(call.q("part").split(","))
        items = []
        for video_id in call.q("id").split(","):
            post = self._post(video_id)
            if post is None:
                continue
            item: dict[str, Any] = {"kind": "youtube#video", "id": video_id}
            if "processingDetails" in parts:
                look = self.processing_look(video_id)
                done = {"processing": "uploaded", "done": "processed", "failed": "failed"}[look]
                post["status"]["uploadStatus"] = done
                if look == "failed":
                    post["status"]["failureReason"] = self.video_fail
                item["processingDetails"] = (
                    {"processingStatus": "processing",
                     "processingProgress": {"partsTotal": 10, "partsProcessed": 3}}
                    if look == "processing"
                    else {"processingStatus": "failed", "processingFailureReason": "other"}
                    if look == "failed"
                    else {"processingStatus": "succeeded"}
                )  # fmt: skip
            if "status" in parts:
                item["status"] = dict(post["status"])
            if "snippet" in parts:
                item["snippet"] = post["snippet"]
            if "statistics" in parts:
                item["statistics"] = {"viewCount": "120", "likeCount": "9", "favoriteCount": "0",
                                      "commentCount": "3"}  # fmt: skip
            items.append(item)
        return 200, {"kind": "youtube#videoListResponse", "items": items}, {}

    def playlist_items(self, call: Call) -> Answer:
        refused = self._token(call)
        if refused:
            return refused
        if call.q("playlistId") != UPLOADS:
            return _google_error(404, "playlistNotFound", "The playlist was not found.")
        newest = sorted(self.posts, key=lambda post: -post["created"])
        start, size = int(call.q("pageToken") or 0), min(int(call.q("maxResults") or 5), 50)
        items = [{"kind": "youtube#playlistItem", "id": f"pl-{post['id']}",
                  "snippet": {"title": post["snippet"]["title"],
                              "description": post["snippet"]["description"],
                              "publishedAt": post["snippet"]["publishedAt"],
                              "channelId": CHANNEL["id"], "playlistId": UPLOADS},
                  "contentDetails": {"videoId": post["id"],
                                     "videoPublishedAt": post["snippet"]["publishedAt"]}}
                 for post in newest[start : start + size]]  # fmt: skip
        info = {"totalResults": len(newest), "resultsPerPage": size}
        page: dict[str, Any] = {"kind": "youtube#playlistItemListResponse", "items": items,
                                "pageInfo": info}  # fmt: skip
        if start + size < len(newest):
            page["nextPageToken"] = str(start + size)
        return 200, page, {}
