from django.apps import AppConfig


class BenchConfig(AppConfig):
    # Installed only so that Django finds the `bench_*` management commands; no models.
    name = "bench"
    verbose_name = "Benchmarks"
