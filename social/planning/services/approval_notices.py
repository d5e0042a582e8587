"""Who hears of approvals and comments (workspaces.md section 3): the event channel's
subscriber that notifies the people concerned, never the one who acted."""

from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many

DECIDED = {"approval.approved": "approved", "approval.rejected": "rejected"}


def approvals_notify(emitted: list[events.Event]) -> None:
    """`approval.requested`: the approvers asked (the named ones, else the owners and
    admins); `approval.approved` and `approval.rejected`: the post's author and whoever asked;
    `post.commented`: the post's author. One INSERT for them all."""
    drafts: list[NotificationDraft] = []
    for event in emitted:
        data, context = event.payload.data, event.payload.context
        acting = str(event.actor.get("id") or "")
        meta = {"postId": data["postId"]}
        if event.name == "approval.requested":
            drafts += [
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.APPROVAL_REQUESTED,
                    title="Approval requested",
                    message="A post waits for your approval before it goes out."
                    + (f" {data['message']}" if data["message"] else ""),
                    metadata={**meta, "approvalRequestId": data["approvalRequestId"]},
                )
                for user_id in dict.fromkeys(context.get("asked") or [])
                if user_id != acting
            ]
        elif event.name in DECIDED:
            verdict = DECIDED[event.name]
            who = event.actor.get("name") or "An approver"
            told = {str(event.user_id), str(context.get("requested_by") or "")} - {"", acting}
            drafts += [
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.APPROVAL_DECIDED,
                    title=f"Post {verdict}",
                    message=f"{who} {verdict} the post."
                    + (f" “{data['comment']}”" if data["comment"] else ""),
                    metadata={**meta, "approvalRequestId": data["approvalRequestId"]},
                )
                for user_id in sorted(told)
            ]
        elif event.name == "post.commented" and str(event.user_id) != str(
            context.get("author_id") or ""
        ):
            drafts.append(
                NotificationDraft(
                    user_id=event.user_id,
                    type=NotificationType.POST_COMMENTED,
                    title="New comment",
                    message=f"{data['author']['name']}: {data['body'][:200]}",
                    metadata={**meta, "commentId": data["commentId"]},
                )
            )
    notify_many(drafts=drafts)
