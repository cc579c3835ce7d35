"""The search form: a question and an optional folder among those the caller may read."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet

from documents.models import Folder


class FolderChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return obj.path


class SearchForm(forms.Form):
    q = forms.CharField(
        label="Question",
        max_length=2000,
        strip=True,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": "Ask a question about the library…", "autocomplete": "off"}
        ),
    )
    folder = FolderChoiceField(
        label="Folder", queryset=Folder.objects.none(), required=False, empty_label="All folders I can read"
    )

    def __init__(self, *args: Any, folders: QuerySet[Folder], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["folder"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = folders.select_related("parent").order_by("name", "pk")
        field.error_messages["invalid_choice"] = "Choose one of the folders you can read."
