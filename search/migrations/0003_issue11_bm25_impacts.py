# A query-independent impact per posting, ordered in the postings index, so BM25
# top-k can read a prefix of each lexeme's postings (search/services/bm25_topk.py).

from django.db import migrations, models

# Frozen copies of search.services.bm25.K1 / B (a migration must not follow later code changes).
K1, B = 1.2, 0.75

SET_BASIS = """
INSERT INTO search_bm25impactbasis (id, avgdl, refreshed_at)
SELECT 1, coalesce(sum(lexeme_total)::float8 / nullif(sum(chunk_count), 0), 100.0), now()
  FROM documents_document
"""

SET_IMPACTS = f"""
UPDATE search_chunklexeme AS p
   SET impact = p.tf * ({K1} + 1) / (p.tf + {K1} * (1 - {B} + {B} * p.dl / b.avgdl))
  FROM search_bm25impactbasis AS b
 WHERE b.id = 1
"""


class Migration(migrations.Migration):

    dependencies = [
        ('documents', '0001_initial'),
        ('search', '0002_chunk_postings'),
    ]

    operations = [
        migrations.CreateModel(
            name='Bm25ImpactBasis',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('avgdl', models.FloatField(help_text='Reference average chunk length (lexemes) of the stored impacts.')),
                ('refreshed_at', models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.RunSQL(SET_BASIS, reverse_sql=migrations.RunSQL.noop),
        migrations.RemoveIndex(
            model_name='chunklexeme',
            name='chunk_lexeme_postings',
        ),
        migrations.AddField(
            model_name='chunklexeme',
            name='impact',
            field=models.FloatField(default=0.0, help_text="tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl_ref)): BM25's tf part under Bm25ImpactBasis.avgdl."),
            preserve_default=False,
        ),
        migrations.RunSQL(SET_IMPACTS, reverse_sql=migrations.RunSQL.noop),
        migrations.AddIndex(
            model_name='chunklexeme',
            index=models.Index(fields=['lexeme', '-impact'], include=('chunk', 'document', 'tf', 'dl'), name='chunk_lexeme_impacts'),
        ),
    ]
