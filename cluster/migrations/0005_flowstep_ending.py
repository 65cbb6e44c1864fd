from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cluster", "0004_cluster_policy"),
    ]

    operations = [
        migrations.AddField(
            model_name="flowtrace",
            name="expected_pods",
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name="flowstep",
            name="ending",
            field=models.CharField(blank=True, default="", max_length=20),
        ),
        migrations.AddField(
            model_name="flowstep",
            name="final",
            field=models.BooleanField(default=False),
        ),
    ]
