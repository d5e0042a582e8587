"""The media library: hosted files registered by URL, uploads stored through Django's storage
API (local files by default; S3 and others by configuration), and what posts attach."""

import io
import uuid
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Sum
from PIL import Image, ImageOps, UnidentifiedImageError

from accounts.models import User, Workspace
from core.errors import ValidationFailed
from social.content import pdf
from social.content.services.probe import (
    document_probe,
    hosted_document_probe,
    hosted_video_probe,
    video_probe,
)
from social.errors import ImageTooLarge, MediaNotFound, MediaQuotaExceeded
from social.models import MediaItem
from social.providers.base import MediaFile


def _quota_check(workspace_id: uuid.UUID, size: int) -> None:
    """413 when `size` more bytes would take the workspace's stored media past the quota
    (files we store count; hosted ones take none of our storage)."""
    stored = MediaItem.objects.filter(workspace_id=workspace_id).exclude(file="")
    used = int(stored.aggregate(total=Sum("size"))["total"] or 0)
    if used + size > settings.MEDIA_QUOTA_BYTES:
        raise MediaQuotaExceeded(
            details={
                "quotaBytes": settings.MEDIA_QUOTA_BYTES,
                "usedBytes": used,
                "fileBytes": size,
            }
        )


def media_files(*, workspace_id: uuid.UUID, media_ids: Iterable[str]) -> tuple[MediaFile, ...]:
    """The workspace's media items as attachments, in the order given (missing ones
    skipped)."""
    wanted = [str(media_id) for media_id in media_ids]
    items = {
        str(item.pk): item
        for item in MediaItem.objects.filter(workspace_id=workspace_id, pk__in=wanted)
    }
    return tuple(
        MediaFile(
            url=item.url,
            mime=item.type,
            size=item.size,
            stored=item.file.name if item.file else "",
            alt=item.alt,
            duration=item.duration,
            width=item.width,
            height=item.height,
            pages=item.pages,
        )
        for item in (items.get(media_id) for media_id in wanted)
        if item is not None
    )


def media_ids_check(*, workspace_id: uuid.UUID, media_ids: list[str]) -> list[str]:
    """The ids, each the workspace's media item; 400 naming the others."""
    try:
        wanted = list(dict.fromkeys(str(uuid.UUID(str(media_id))) for media_id in media_ids))
    except ValueError:
        raise ValidationFailed(details={"mediaIds": ["Media ids are UUIDs."]}) from None
    found = {
        str(pk)
        for pk in MediaItem.objects.filter(workspace_id=workspace_id, pk__in=wanted).values_list(
            "pk", flat=True
        )
    }
    unknown = [media_id for media_id in wanted if media_id not in found]
    if unknown:
        raise ValidationFailed(details={"mediaIds": [f"{m}: no such media item." for m in unknown]})
    return wanted


# Pillow's own guard (a warning past 89 million pixels, a refusal past twice that, whatever
# the frames) gives way to the settings' budgets, checked on every image before it is decoded
# (_image_budget_check); this module is the only one that opens images.
Image.MAX_IMAGE_PIXELS = None
SNIFF_BYTES = 64 * 1024  # the head a file's type is read from
MAX_ALT = 1500  # characters of alt text (social.md section 9)
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
VIDEO_TYPES = frozenset({"video/mp4", "video/quicktime"})
DOCUMENT_TYPES = frozenset({"application/pdf"})  # social.md section 13: LinkedIn's documents
PILLOW_TYPES = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}
ANIMATED = ("GIF", "WEBP")  # kinds whose every frame is re-encoded (other kinds: the first)
EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "application/pdf": "pdf",
}


def type_limit(mime: str) -> int:
    """The largest file of this type (MEDIA_MAX_VIDEO_BYTES, MEDIA_MAX_DOCUMENT_BYTES, else
    MEDIA_MAX_UPLOAD_BYTES)."""
    if mime in VIDEO_TYPES:
        return int(settings.MEDIA_MAX_VIDEO_BYTES)
    if mime in DOCUMENT_TYPES:
        return int(settings.MEDIA_MAX_DOCUMENT_BYTES)
    return int(settings.MEDIA_MAX_UPLOAD_BYTES)


def media_register(
    *,
    workspace_id: uuid.UUID,
    user: User,
    type: str,
    url: str,
    filename: str,
    size: int,
    alt: str = "",
    duration: float | None = None,
    width: int | None = None,
    height: int | None = None,
) -> MediaItem:
    """A file hosted elsewhere, registered by its URL (the serializer checked the fields). A
    video's duration, width, height and size are read from the hosted file itself (its header,
    through ranged reads; what the client declared is not kept); 400 when the URL holds no
    video of `type`. A document's pages and size are read from the file, fetched whole (at
    most MEDIA_MAX_DOCUMENT_BYTES). An image's are as declared. `user` is who added it."""
    pages: int | None = None
    if type in DOCUMENT_TYPES:
        pages, size = hosted_document_probe(url, max_bytes=type_limit(type))
    elif type in VIDEO_TYPES:
        header, size = hosted_video_probe(url, type)
        if size > settings.MEDIA_MAX_VIDEO_BYTES:
            limit = settings.MEDIA_MAX_VIDEO_BYTES
            raise ValidationFailed(
                details={"size": [f"The file is {size} bytes; at most {limit}."]}
            )
        duration, width, height = header.duration, header.width, header.height
    return MediaItem.objects.create(
        workspace_id=workspace_id,
        user=user,
        type=type,
        url=url,
        filename=filename,
        size=size,
        alt=alt,
        duration=duration,
        width=width,
        height=height,
        pages=pages,
    )


def media_alt_set(*, workspace_id: uuid.UUID, media_id: uuid.UUID, alt: str) -> MediaItem:
    """Set (or clear, with "") the item's alt text: the text each network shows in place of
    the image (social.md section 9); posts not yet published send the new text."""
    if len(alt) > MAX_ALT:
        raise ValidationFailed(details={"alt": [f"At most {MAX_ALT} characters."]})
    with transaction.atomic():
        item = (
            MediaItem.objects.select_for_update()
            .filter(pk=media_id, workspace_id=workspace_id)
            .first()
        )
        if item is None:
            raise MediaNotFound()
        item.alt = alt
        item.save(update_fields=["alt"])
    return item


def sniff(head: bytes) -> str | None:
    """The MIME type of a file from its first bytes: images through Pillow, videos by their
    ISO base media `ftyp` box, documents by the PDF header; None for anything else."""
    if pdf.is_pdf(head):
        return "application/pdf"
    try:
        with Image.open(io.BytesIO(head)) as image:
            return PILLOW_TYPES.get(str(image.format))
    except (UnidentifiedImageError, OSError, ValueError):
        pass
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:10] == b"qt" else "video/mp4"
    return None


def media_upload(
    *, workspace_id: uuid.UUID, user: User, upload: UploadedFile, alt: str = ""
) -> MediaItem:
    """Store an uploaded file: its type read from its bytes, never its name; images get their
    width and height, videos their duration, width and height from their own header. The file
    is written before the row: a failed write stores nothing, and a failed row insert removes
    the file. A video is streamed to storage in chunks, never read whole into memory. The
    workspace's stored bytes stay within MEDIA_QUOTA_BYTES (413 past it, nothing stored).
    `user` is who added it."""
    size = int(upload.size or 0)
    if size <= 0:
        raise ValidationFailed(details={"file": ["The file is empty."]})
    _quota_check(workspace_id, size)  # before any work; checked again, exactly, as it is made
    upload.seek(0)
    mime = sniff(upload.read(SNIFF_BYTES))
    upload.seek(0)
    if mime is None:
        raise ValidationFailed(
            details={
                "file": [
                    "Only JPEG, PNG, GIF and WebP images, MP4 or MOV videos and PDF documents."
                ]
            }
        )
    limit = type_limit(mime)
    if size > limit:
        raise ValidationFailed(details={"file": [f"The file is larger than {limit} bytes."]})
    item_id = uuid.uuid4()
    stem = f"social/{user.pk}/{item_id}.{EXTENSIONS[mime]}"  # by who added it
    fields: dict[str, Any] = {"type": mime}
    if mime in VIDEO_TYPES or mime in DOCUMENT_TYPES:
        probe = video_probe if mime in VIDEO_TYPES else document_probe
        fields.update(probe(upload.file, size, mime))
        upload.seek(0)
        name = default_storage.save(stem, upload)  # in chunks, from the upload's temporary file
        fields["size"] = size
    else:
        data = upload.read()
        try:
            with Image.open(io.BytesIO(data)) as image:
                _image_budget_check(image)
                image.verify()  # a truncated or corrupt image is refused here
            data, width, height = _reencoded(data)
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            raise ValidationFailed(details={"file": ["The image is damaged."]}) from None
        name = default_storage.save(stem, ContentFile(data))
        fields.update(size=len(data), width=width, height=height)
    try:
        with transaction.atomic():
            # The workspace's row, locked while the quota is summed and the row made: two
            # uploads cannot both take the last room. The file is already written (no lock is
            # held while storage is written to); the loser's is removed.
            Workspace.objects.select_for_update().only("pk").get(pk=workspace_id)
            _quota_check(workspace_id, fields["size"])
            return MediaItem.objects.create(
                id=item_id,
                workspace_id=workspace_id,
                user=user,
                url=_public_url(name),
                filename=(upload.name or "")[:255],
                file=name,
                alt=alt,
                **fields,
            )
    except Exception:
        default_storage.delete(name)
        raise


def _image_budget_check(image: Image.Image) -> None:
    """413 before any pixel is decoded when re-encoding the image would cost more than the
    settings allow: its size and frame count come from its header (a GIF's frames are
    counted by walking its blocks, not decoding them). A few kilobytes can claim a canvas of
    a hundred million pixels, or thousands of frames, each decoded in full."""
    width, height = image.size
    frames = int(getattr(image, "n_frames", 1)) if image.format in ANIMATED else 1
    if (
        width * height > settings.MEDIA_MAX_IMAGE_PIXELS
        or frames > settings.MEDIA_MAX_IMAGE_FRAMES
        or width * height * frames > settings.MEDIA_MAX_ANIMATION_PIXELS
    ):
        raise ImageTooLarge(
            details={
                "width": width,
                "height": height,
                "frames": frames,
                "maxPixels": settings.MEDIA_MAX_IMAGE_PIXELS,
                "maxFrames": settings.MEDIA_MAX_IMAGE_FRAMES,
                "maxAnimationPixels": settings.MEDIA_MAX_ANIMATION_PIXELS,
            }
        )


def _reencoded(data: bytes) -> tuple[bytes, int, int]:
    """The image drawn again from its pixels: its metadata (EXIF with GPS position and
    device, XMP, comments, text chunks) is not carried over, and neither is anything hidden
    around the pixels (an HTML page after a GIF's trailer: a polyglot). The orientation EXIF
    asked for is applied first, so the picture looks the same; the colour profile is kept."""
    with Image.open(io.BytesIO(data)) as source:
        kind = str(source.format)
        frames = getattr(source, "n_frames", 1)
        icc = source.info.get("icc_profile")
        out = io.BytesIO()
        options: dict[str, object] = {"icc_profile": icc} if icc else {}
        if frames > 1 and kind in ANIMATED:  # animations keep their frames and timing
            options.update(
                save_all=True,
                loop=source.info.get("loop", 0),
                duration=source.info.get("duration", 100),
            )
            source.save(out, format=kind, **options)
            width, height = source.size
        else:
            image = ImageOps.exif_transpose(source) or source
            if kind == "JPEG":
                options.update(quality=92, optimize=True)
                if image.mode not in ("RGB", "L", "CMYK"):
                    image = image.convert("RGB")
            image.save(out, format=kind, **options)
            width, height = image.size
    return out.getvalue(), width, height


def _public_url(name: str) -> str:
    url = default_storage.url(name)
    return url if url.startswith(("http://", "https://")) else f"{settings.PUBLIC_URL}{url}"


def media_delete(*, workspace_id: uuid.UUID, media_id: uuid.UUID) -> None:
    """Remove the workspace's item, and its file when we stored it (after the row is gone)."""
    with transaction.atomic():
        item = (
            MediaItem.objects.select_for_update()
            .filter(pk=media_id, workspace_id=workspace_id)
            .first()
        )
        if item is None:
            raise MediaNotFound()
        name = item.file.name if item.file else ""
        item.delete()
        if name:
            transaction.on_commit(lambda: default_storage.delete(name))


def media_erase(workspace_id: uuid.UUID) -> None:
    """Every media item of the workspace, with its workspace: the files we stored are deleted
    from storage once the rows are gone, so no upload stays public."""
    items = MediaItem.objects.filter(workspace_id=workspace_id)
    names = [name for name in items.values_list("file", flat=True) if name]
    items.delete()
    if names:
        transaction.on_commit(lambda: _files_delete(names))


def _files_delete(names: list[str]) -> None:
    for name in names:
        default_storage.delete(name)
