"""Publishing: the scheduler's claims, timer and attempts at the platforms, publish now, and
what a user does about an outcome. Siblings and the API import from here only."""

from social.publishing.services.attempts import (
    record_processing_continue,
)
from social.publishing.services.job import (
    Outcome,
    OutcomeStatus,
)
from social.publishing.services.publish_now import (
    publish_now,
)
from social.publishing.services.remedies import (
    RESOLUTIONS,
    record_resolve,
    record_retry,
    records_retry,
)
from social.publishing.services.scheduler import (
    scheduler_run,
)
from social.publishing.services.settle import (
    records_notify,
)
from social.publishing.services.timer import (
    SchedulerTimer,
)

__all__ = [
    "RESOLUTIONS",
    "Outcome",
    "OutcomeStatus",
    "SchedulerTimer",
    "publish_now",
    "record_processing_continue",
    "record_resolve",
    "record_retry",
    "records_notify",
    "records_retry",
    "scheduler_run",
]
