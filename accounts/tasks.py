"""Account tasks: magic-link and invitation e-mails, and periodic housekeeping (scheduled in
accounts/beat.py)."""

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from accounts.models import Invitation
from accounts.services.magic_links import magic_links_purge
from accounts.services.tokens import tokens_flush_expired


@shared_task(
    autoretry_for=(OSError,),  # SMTP connection trouble; the link stays valid for 15 minutes
    retry_backoff=5,
    max_retries=3,
)
def send_magic_link_email_task(*, email: str, url: str) -> None:
    context = {"url": url, "minutes": int(settings.MAGIC_LINK_LIFETIME.total_seconds() // 60)}
    message = EmailMultiAlternatives(
        subject="Your sign-in link",
        body=render_to_string("accounts/email/magic_link.txt", context),
        to=[email],
    )
    message.attach_alternative(
        render_to_string("accounts/email/magic_link.html", context), "text/html"
    )
    message.send()


@shared_task(autoretry_for=(OSError,), retry_backoff=5, max_retries=3)
def send_invitation_email_task(*, invitation_id: str, url: str) -> None:
    """The invitation's e-mail; nothing when it was revoked, replaced or accepted before the
    worker got to it."""
    invitation = (
        Invitation.objects.select_related("workspace", "invited_by")
        .filter(pk=invitation_id, accepted_at__isnull=True, revoked_at__isnull=True)
        .first()
    )
    if invitation is None:
        return
    inviter = invitation.invited_by
    context = {
        "url": url,
        "workspace": invitation.workspace.name,
        "inviter": (inviter.full_name or inviter.email) if inviter else "A member",
        "role": invitation.get_role_display().lower(),
        "days": settings.INVITATION_TTL_DAYS,
    }
    message = EmailMultiAlternatives(
        subject=f"You are invited to {invitation.workspace.name}",
        body=render_to_string("accounts/email/invitation.txt", context),
        to=[invitation.email],
    )
    message.attach_alternative(
        render_to_string("accounts/email/invitation.html", context), "text/html"
    )
    message.send()


@shared_task(acks_late=True)  # idempotent: deleting what is already gone deletes nothing
def flush_expired_tokens_task() -> int:
    return tokens_flush_expired()


@shared_task(acks_late=True)  # idempotent, as above
def purge_magic_links_task() -> int:
    return magic_links_purge()
