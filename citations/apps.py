from django.apps import AppConfig


class CitationsConfig(AppConfig):
    name = "citations"
    verbose_name = "Citations"

    def ready(self) -> None:
        # The search API cannot call the question log (a floor above it): it signals, this keeps.
        from citations.services.question_log import on_search_served
        from search.signals import search_served

        search_served.connect(on_search_served, dispatch_uid="citations.question_log")
        # Library exports carry the question log: the backup services cannot import this app.
        from citations.backup import question_log_backup_register

        question_log_backup_register()
