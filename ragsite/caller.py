"""Who is asking: the one way pages and API endpoints get the request's user.

`request.user` is always the caller: the API's bearer authentication sets it to the token's
user, Django's session middleware to the signed-in user, and otherwise it is AnonymousUser.
(django-ninja's `request.auth` is not used: pages have none, and for anonymous API callers it
holds only a marker.)
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest


def request_user(request: HttpRequest) -> AbstractBaseUser | AnonymousUser:
    return getattr(request, "user", None) or AnonymousUser()
