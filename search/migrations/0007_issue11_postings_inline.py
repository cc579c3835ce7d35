"""Keep packed postings rows of up to ~8 KB in the table's own pages instead of TOAST.

With 4-byte records most rows a question reads at a million chunks are 2-8 KB: over
PostgreSQL's default 2 KB threshold, each went out of line, and reading it cost a TOAST index
probe and a fetch per row (~2,500 rows a question). toast_tuple_target = 8160 (the most a heap
page allows) stores them inline; only longer values still move to TOAST (EXTERNAL, uncompressed).
Measured at 1M chunks: the statement's p50 24.5 ms before, 21.2 and 17.9 ms after, on two
passes (BENCHMARKS.md). The repack rewrites every block's rows.
"""

from importlib import import_module

from django.db import migrations

REPACK_ALL = import_module("search.migrations.0006_issue11_compact_postings").REPACK_ALL


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0006_issue11_compact_postings"),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE search_lexemeblock SET (toast_tuple_target = 8160)",
            "ALTER TABLE search_lexemeblock RESET (toast_tuple_target)",
        ),
        migrations.RunSQL(REPACK_ALL, migrations.RunSQL.noop),
    ]
