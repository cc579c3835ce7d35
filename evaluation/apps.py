from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    # Installed only so that Django finds `evaluate` and `compare_evaluations`; no models.
    name = "evaluation"
    verbose_name = "Evaluation"
