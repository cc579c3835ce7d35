"""The JSON API (django-ninja) mounted at /api/: placeholder until the API lands."""

from ninja import NinjaAPI

api = NinjaAPI(title="Document library API", version="1", urls_namespace="api")
