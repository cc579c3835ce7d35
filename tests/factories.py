"""factory_boy factories for the models."""

from __future__ import annotations

import hashlib

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.utils import timezone

from documents.models import Document, DocumentStatus, Folder

User = get_user_model()


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests-1")

    @factory.post_generation
    def save_password(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()


class StaffFactory(UserFactory):
    is_staff = True
    is_superuser = True


class GroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Group
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"group{n}")


class FolderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Folder
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Folder {n}")
    is_public = False

    @factory.post_generation
    def readers(self, create: bool, extracted: list[object] | None, **kwargs: object) -> None:
        for reader in extracted or []:
            if isinstance(reader, Group):
                self.reader_groups.add(reader)
            else:
                self.reader_users.add(reader)


class DocumentFactory(factory.django.DjangoModelFactory):
    """A stored text document (not yet ingested unless the test runs the pipeline)."""

    class Meta:
        model = Document

    folder = factory.SubFactory(FolderFactory)
    title = factory.Sequence(lambda n: f"Document {n}")
    original_name = factory.LazyAttribute(lambda d: f"{d.title}.txt")
    content_type = "text/plain"
    status = DocumentStatus.QUEUED

    class Params:
        text = "Plain text for a test document."
        # Marked indexed, as readers need a document to be (no chunks are written).
        indexed = factory.Trait(status=DocumentStatus.INDEXED, indexed_at=factory.LazyFunction(timezone.now))

    file = factory.LazyAttribute(lambda d: ContentFile(d.text.encode(), name=d.original_name))
    size = factory.LazyAttribute(lambda d: len(d.text.encode()))
    sha256 = factory.LazyAttribute(lambda d: hashlib.sha256(d.text.encode()).hexdigest())
