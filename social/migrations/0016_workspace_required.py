"""The social hub's data moves into workspaces, step three of three: the workspace is required
on every row, the lists' indexes lead with it instead of the user (the scheduler's due-set
indexes do not filter by owner and stay), and the settings and post counters' workspace-keyed
tables (0014, filled by 0015) take the old names. The analytics rows' `user`, a copy of their
record's, goes in 0017."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _required(*, on_delete, db_index=False):
    return models.ForeignKey(
        db_index=db_index, on_delete=on_delete, related_name="+", to="accounts.workspace"
    )


RESTRICT = django.db.models.deletion.RESTRICT
CASCADE = django.db.models.deletion.CASCADE


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("accounts", "0010_personal_workspaces"),
        ("social", "0015_workspace_backfill"),
    ]

    operations = [
        migrations.AlterField(
            model_name="socialaccount", name="workspace", field=_required(on_delete=RESTRICT)
        ),
        migrations.AlterField(
            model_name="connectstate",
            name="workspace",
            field=_required(on_delete=CASCADE, db_index=True),
        ),
        migrations.AlterField(
            model_name="post", name="workspace", field=_required(on_delete=RESTRICT)
        ),
        migrations.AlterField(
            model_name="campaign",
            name="workspace",
            field=_required(on_delete=RESTRICT, db_index=True),
        ),
        migrations.AlterField(
            model_name="mediaitem", name="workspace", field=_required(on_delete=RESTRICT)
        ),
        migrations.AlterField(
            model_name="scheduledrecord", name="workspace", field=_required(on_delete=RESTRICT)
        ),
        migrations.AlterField(
            model_name="analyticsrecord", name="workspace", field=_required(on_delete=RESTRICT)
        ),
        # The lists' indexes: by workspace now.
        migrations.RemoveIndex(model_name="socialaccount", name="social_account_user_idx"),
        migrations.AddIndex(
            model_name="socialaccount",
            index=models.Index(fields=["workspace", "status"], name="social_account_workspace_idx"),
        ),
        migrations.RemoveIndex(model_name="post", name="social_post_user_idx"),
        migrations.AddIndex(
            model_name="post",
            index=models.Index(
                fields=["workspace", "-created_at", "-id"], name="social_post_workspace_idx"
            ),
        ),
        migrations.RemoveIndex(model_name="mediaitem", name="social_media_user_idx"),
        migrations.AddIndex(
            model_name="mediaitem",
            index=models.Index(
                fields=["workspace", "-created_at"], name="social_media_workspace_idx"
            ),
        ),
        migrations.RemoveIndex(model_name="scheduledrecord", name="social_record_user_idx"),
        migrations.AddIndex(
            model_name="scheduledrecord",
            index=models.Index(
                fields=["workspace", "scheduled_time"], name="social_record_workspace_idx"
            ),
        ),
        migrations.RemoveIndex(model_name="analyticsrecord", name="social_metrics_user_idx"),
        migrations.AddIndex(
            model_name="analyticsrecord",
            index=models.Index(fields=["workspace", "-date"], name="social_metrics_workspace_idx"),
        ),
        # Who connected an account is looked up by itself now (a takeover releases theirs);
        # nothing looks campaigns up by their maker.
        migrations.AlterField(
            model_name="socialaccount",
            name="user",
            field=models.ForeignKey(
                on_delete=CASCADE, related_name="social_accounts", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AlterField(
            model_name="campaign",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                on_delete=CASCADE,
                related_name="campaigns",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        # The settings and counters keyed by workspace take the old tables' names.
        migrations.DeleteModel(name="SocialSettings"),
        migrations.RenameModel(old_name="WorkspaceSocialSettings", new_name="SocialSettings"),
        migrations.DeleteModel(name="PostCounter"),
        migrations.RenameModel(old_name="WorkspacePostCounter", new_name="PostCounter"),
    ]
