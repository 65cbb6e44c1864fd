from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cluster", "0012_flowtrace_gate_step"),
    ]

    operations = [
        migrations.AddField(
            model_name="execsession",
            name="holder",
            field=models.CharField(blank=True, default="", max_length=300),
        ),
        migrations.AddIndex(
            model_name="execsession",
            index=models.Index(fields=["holder", "closed_at"], name="execsession_holder_open"),
        ),
    ]
