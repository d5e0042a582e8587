"""Comments on posts (workspaces.md section 3): a member's through their session, a client's
through their approval link, a rejection's with it. Each is told (`post.commented`)."""

from typing import Any
from uuid import UUID

from accounts.models import User
from core.times import iso
from notifications import events
from social.models import CommentAuthor, Post, PostComment

COMMENT_MAX = 2000


def comment_author(comment: PostComment) -> dict[str, str]:
    """`{type: member | client, name}`: a member by their name as it is now (never their
    e-mail: a client reads it), a client as they signed."""
    if comment.author_type == CommentAuthor.CLIENT:
        return {"type": "client", "name": comment.author_name}
    user = comment.author
    return {"type": "member", "name": (user.full_name if user is not None else "") or "A member"}


def comment_add(
    *, post: Post, author_type: str, author: User | None, author_name: str, body: str
) -> PostComment:
    """Add a comment to the post, in the caller's transaction, and tell it."""
    comment = PostComment.objects.create(
        post=post,
        workspace_id=post.workspace_id,
        author_type=author_type,
        author=author,
        author_name=author_name if author_type == CommentAuthor.CLIENT else "",
        body=body,
    )
    who: events.Actor = (
        events.client_actor(author_name)
        if author_type == CommentAuthor.CLIENT
        else events.user_actor(author.pk if author is not None else "")
    )
    events.emit(
        user=post.user_id,
        workspace=post.workspace_id,
        actor=who,
        payload=events.post_commented(
            post_id=str(post.pk),
            comment_id=str(comment.pk),
            author=comment_author(comment),
            body=body,
            context={"author_id": str(author.pk) if author is not None else ""},
        ),
    )
    return comment


def comments_of(*, post_id: UUID) -> list[PostComment]:
    """The post's comments, oldest first, their authors with them (one query)."""
    return list(PostComment.objects.filter(post_id=post_id).select_related("author"))


def comment_data(comment: PostComment) -> dict[str, Any]:
    return {
        "id": str(comment.pk),
        "author": comment_author(comment),
        "body": comment.body,
        "created_at": iso(comment.created_at),
    }
