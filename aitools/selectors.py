"""Reads: a user's history, gigs and proposals (never anyone else's)."""

from uuid import UUID

from django.db.models import QuerySet

from accounts.models import User
from aitools.models import Generation, Gig, Proposal
from core.errors import NotFoundError


def generation_list(*, user: User) -> QuerySet[Generation]:
    return Generation.objects.filter(user=user).select_related("gig", "proposal")


def generation_get(*, user: User, pk: UUID | str) -> Generation:
    generation = generation_list(user=user).filter(pk=pk).first()
    if generation is None:
        raise NotFoundError()
    return generation


def gig_list(*, user: User) -> QuerySet[Gig]:
    return Gig.objects.filter(user=user)


def gig_get(*, user: User, pk: UUID | str) -> Gig:
    gig = gig_list(user=user).filter(pk=pk).first()
    if gig is None:
        raise NotFoundError()
    return gig


def proposal_list(*, user: User) -> QuerySet[Proposal]:
    return Proposal.objects.filter(user=user)


def proposal_get(*, user: User, pk: UUID | str) -> Proposal:
    proposal = proposal_list(user=user).filter(pk=pk).first()
    if proposal is None:
        raise NotFoundError()
    return proposal
