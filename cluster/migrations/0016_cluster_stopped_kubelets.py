from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cluster", "0015_controlplanemember"),
    ]

    operations = [
        migrations.AddField(
            model_name="cluster",
            name="stopped_kubelets",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
