"""Campaigns group posts (social.md section 6)."""

from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal
from uuid import UUID

from django.db import transaction

from accounts.models import User
from core.errors import ValidationFailed
from core.inputs import UNSET, Unset
from social.errors import CampaignNotFound
from social.models import Campaign, CampaignStatus


@dataclass(frozen=True, slots=True, kw_only=True)
class CampaignInput:
    """A campaign's fields a request sets; a new campaign takes the defaults for the rest."""

    name: str | Unset = UNSET
    description: str | Unset = UNSET
    color: str | Unset = UNSET
    start_date: date | Unset | None = UNSET
    end_date: date | Unset | None = UNSET
    budget: Decimal | Unset | None = UNSET
    goal: str | Unset = UNSET
    status: CampaignStatus | Unset = UNSET


def workspace_campaign(*, workspace_id: UUID, campaign_id: UUID, lock: bool = False) -> Campaign:
    """One of the workspace's campaigns; another workspace's or none: 404."""
    campaigns = Campaign.objects.select_for_update() if lock else Campaign.objects
    found = campaigns.filter(pk=campaign_id, workspace_id=workspace_id).first()
    if found is None:
        raise CampaignNotFound()
    return found


def campaign_save(
    *, workspace_id: UUID, user: User, changes: CampaignInput, campaign_id: UUID | None = None
) -> Campaign:
    """Create a campaign in the workspace (a name is required; `user` made it), or update the
    workspace's `campaign_id` with the fields given; the end may not come before the start."""
    with transaction.atomic():
        campaign = (
            Campaign(workspace_id=workspace_id, user=user)
            if campaign_id is None
            else workspace_campaign(workspace_id=workspace_id, campaign_id=campaign_id, lock=True)
        )
        for field in fields(changes):  # each a model field of the same name
            value = getattr(changes, field.name)
            if value is not UNSET:
                setattr(campaign, field.name, value)
        if not campaign.name:
            raise ValidationFailed(details={"name": ["This field is required."]})
        if campaign.start_date and campaign.end_date and campaign.end_date < campaign.start_date:
            raise ValidationFailed(details={"end_date": ["The end is before the start."]})
        campaign.save()
    return campaign


def campaign_delete(*, workspace_id: UUID, campaign_id: UUID) -> None:
    """Delete the workspace's campaign; its posts stay, without a campaign."""
    with transaction.atomic():
        workspace_campaign(workspace_id=workspace_id, campaign_id=campaign_id, lock=True).delete()
