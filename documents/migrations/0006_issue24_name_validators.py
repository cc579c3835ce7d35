# Names and titles follow one rule (documents/names.py): no control characters, unpaired
# surrogates, line separators or bidirectional overrides. Validators only: no change to the tables.

import documents.names
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('documents', '0005_issue11_hnsw_ef_construction'),
    ]

    operations = [
        migrations.AlterField(
            model_name='apitoken',
            name='name',
            field=models.CharField(blank=True, help_text='What the token is for.', max_length=100, validators=[documents.names.NameValidator('token name')]),
        ),
        migrations.AlterField(
            model_name='document',
            name='title',
            field=models.CharField(max_length=500, validators=[documents.names.NameValidator('title')]),
        ),
        migrations.AlterField(
            model_name='folder',
            name='name',
            field=models.CharField(max_length=200, validators=[documents.names.NameValidator('folder name')]),
        ),
    ]
