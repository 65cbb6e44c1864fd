from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cluster", "0011_cluster_clock_offset"),
    ]

    operations = [
        migrations.AddField(
            model_name="flowtrace",
            name="gate_step",
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
