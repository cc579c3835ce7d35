"""The keyword index's models move to the documents app (documents/lexical/models.py).

State only: the tables, their rows, the SQL function and the triggers stay as they are;
documents/0014 declares the same models on the same tables.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0009_one_lexical_store"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="LexemeBlock"),
                migrations.DeleteModel(name="FolderLength"),
            ],
            database_operations=[],
        ),
    ]
