"""Planning: when a post goes where: scheduled records, the posting queue and its best times,
recurring series on the wall clock, and the platforms' publishing caps. Siblings and the API
import from here only."""

from social.planning.calendar import (
    IN_FEED,
    calendar_data,
    calendar_ics,
    calendar_records,
    calendar_window,
)
from social.planning.report_files import report_csv, report_pdf
from social.planning.reports import (
    Period,
    Report,
    report_build,
    report_period,
    report_rows,
)
from social.planning.selectors import (
    best_times,
    queue_of,
    queue_records,
    queue_upcoming,
)
from social.planning.services.approval_notices import approvals_notify
from social.planning.services.approval_requests import (
    Asked,
    approval_client,
    approval_comment_as_client,
    approval_decide_as_client,
    approval_decide_as_member,
    approval_email_send,
    approval_open,
    approval_request,
)
from social.planning.services.approvals import (
    approval_gate,
    approval_gate_on_edit,
    approval_rule_changed,
    approved,
    approved_for,
    post_version,
)
from social.planning.services.caps import (
    cap_use,
    records_admit,
)
from social.planning.services.queue import (
    POSITIONS,
    queue_add,
    queue_reorder,
    queue_slots_suggest,
    queue_update,
)
from social.planning.services.record_changes import (
    account_records_cancel,
    record_cancel,
    record_move,
    record_retry,
)
from social.planning.services.records import (
    Scheduled,
    post_with_targets,
    record_of,
    schedule_to_accounts,
    schedule_to_platforms,
)
from social.planning.services.recurrence import (
    MAX_COUNT,
    RecurrenceInput,
    occurrences_next,
    series_after_outcomes,
    series_end,
)
from social.planning.services.sharing import (
    Shared,
    share_link_create,
    share_link_open,
    share_link_revoke,
    share_link_status,
    share_links_of,
)
from social.planning.wallclock import (
    SLOT_TIME,
    slots_sorted,
)

__all__ = [
    "IN_FEED",
    "MAX_COUNT",
    "POSITIONS",
    "SLOT_TIME",
    "Asked",
    "Period",
    "RecurrenceInput",
    "Report",
    "Scheduled",
    "Shared",
    "account_records_cancel",
    "approval_client",
    "approval_comment_as_client",
    "approval_decide_as_client",
    "approval_decide_as_member",
    "approval_email_send",
    "approval_gate",
    "approval_gate_on_edit",
    "approval_open",
    "approval_request",
    "approval_rule_changed",
    "approvals_notify",
    "approved",
    "approved_for",
    "best_times",
    "calendar_data",
    "calendar_ics",
    "calendar_records",
    "calendar_window",
    "cap_use",
    "occurrences_next",
    "post_version",
    "post_with_targets",
    "queue_add",
    "queue_of",
    "queue_records",
    "queue_reorder",
    "queue_slots_suggest",
    "queue_upcoming",
    "queue_update",
    "record_cancel",
    "record_move",
    "record_of",
    "record_retry",
    "records_admit",
    "report_build",
    "report_csv",
    "report_pdf",
    "report_period",
    "report_rows",
    "schedule_to_accounts",
    "schedule_to_platforms",
    "series_after_outcomes",
    "series_end",
    "share_link_create",
    "share_link_open",
    "share_link_revoke",
    "share_link_status",
    "share_links_of",
    "slots_sorted",
]
