from django.db import migrations, models


def mark_deleting(apps, schema_editor):
    """Rows already being deleted (metadata.deletionTimestamp set) get the new column set."""
    ApiObject = apps.get_model("cluster", "ApiObject")
    ApiObject.objects.filter(body__metadata__has_key="deletionTimestamp").update(deleting=True)


class Migration(migrations.Migration):
    dependencies = [
        ("cluster", "0008_graceful_deletion_requests"),
    ]

    operations = [
        migrations.AddField(
            model_name="apiobject",
            name="deleting",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_deleting, migrations.RunPython.noop),
    ]
