from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("documents", "0012_h29_storage_database")]

    operations = [
        migrations.AddField(
            model_name="document",
            name="run_id",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
