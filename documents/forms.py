"""Admin forms: uploading many files at once into one folder."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.functional import lazy
from django.utils.text import format_lazy

from documents.extraction.formats import supported_description
from documents.models import Folder


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Empty files are refused one by one by the upload service (with a message naming
        # the file); refusing them here would reject every good file of the same batch.
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class DocumentUploadForm(forms.Form):
    folder = forms.ModelChoiceField(queryset=Folder.objects.all(), help_text="Where the documents go.")
    files = MultipleFileField(  # type: ignore[assignment]  # a form field; Django moves it to base_fields
        # Lazily: the form is built at import, before any language is active.
        help_text=format_lazy("{}; select several files at once.", lazy(supported_description, str)()),
        # No `accept` filter: files are recognised by their content too, so one without a
        # known extension must stay selectable.
        widget=MultipleFileInput(),
    )
