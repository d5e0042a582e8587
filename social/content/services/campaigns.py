"""Campaigns group posts (social.md section 6)."""

from typing import Any

from django.db import transaction

from accounts.models import User
from core.errors import ValidationFailed
from social.errors import CampaignNotFound
from social.models import Campaign

FIELDS = {
    "name": "name",
    "description": "description",
    "color": "color",
    "start_date": "start_date",
    "end_date": "end_date",
    "budget": "budget",
    "goal": "goal",
    "status": "status",
}


def user_campaign(*, user: User, campaign_id: Any, lock: bool = False) -> Campaign:
    campaigns = Campaign.objects.select_for_update() if lock else Campaign.objects
    found = campaigns.filter(pk=campaign_id, user=user).first()
    if found is None:
        raise CampaignNotFound()
    return found


def campaign_save(*, user: User, fields: dict[str, Any], campaign_id: Any = None) -> Campaign:
    """Create a campaign (a name is required), or update the user's `campaign_id` with the
    fields given; the end may not come before the start."""
    with transaction.atomic():
        campaign = (
            Campaign(user=user)
            if campaign_id is None
            else user_campaign(user=user, campaign_id=campaign_id, lock=True)
        )
        for name, value in fields.items():
            setattr(campaign, FIELDS[name], value)
        if not campaign.name:
            raise ValidationFailed(details={"name": ["This field is required."]})
        if campaign.start_date and campaign.end_date and campaign.end_date < campaign.start_date:
            raise ValidationFailed(details={"end_date": ["The end is before the start."]})
        campaign.save()
    return campaign


def campaign_delete(*, user: User, campaign_id: Any) -> None:
    """Delete the campaign; its posts stay, without a campaign."""
    with transaction.atomic():
        user_campaign(user=user, campaign_id=campaign_id, lock=True).delete()
