from django.apps import AppConfig
from django.core import checks


class DocumentsConfig(AppConfig):
    name = "documents"
    verbose_name = "Document library"

    def ready(self) -> None:
        from documents.vector_column import vector_column_check

        checks.register(vector_column_check, checks.Tags.database)
