"""The search form: a question and an optional folder among those the caller may read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.db.models import QuerySet

from documents.models import Folder


class FolderChoiceField(forms.ModelChoiceField):
    """Folders labelled with their paths as the reader may see them (`visible_folder_paths`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paths: Mapping[int, str] = {}

    def label_from_instance(self, obj: Any) -> str:
        return self.paths.get(obj.pk, obj.name)


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

    def __init__(self, *args: Any, folders: QuerySet[Folder], paths: Mapping[int, str], **kwargs: Any) -> None:
        """`folders`: those the reader may read; `paths`: their paths as the reader may see them."""
        super().__init__(*args, **kwargs)
        field = self.fields["folder"]
        assert isinstance(field, FolderChoiceField)
        field.queryset = folders.order_by("name", "pk")
        field.paths = paths
        field.error_messages["invalid_choice"] = "Choose one of the folders you can read."
