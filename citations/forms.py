"""The search form: a question, an optional folder among those the caller may read, and the
reader's document filters (documents/filters.py), all GET parameters so a result page is a URL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from documents.filters import TYPE_LABELS, FilterError, Filters, parse_filters
from documents.models import Folder


class FolderChoiceField(forms.ModelChoiceField):
    """Folders labelled with their paths as the reader may see them (`visible_folder_paths`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paths: Mapping[int, str] = {}

    def label_from_instance(self, obj: Any) -> str:
        return self.paths.get(obj.pk, obj.name)


# The longest question searched. A longer one is cut at a word boundary and the page says so: a
# browser's maxlength would cut it without a word.
MAX_QUESTION_CHARS = 2000


def cut_question(text: str) -> str:
    """`text` cut to MAX_QUESTION_CHARS, at the last space before the limit when there is one."""
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    head = text[:MAX_QUESTION_CHARS]
    space = head.rfind(" ", MAX_QUESTION_CHARS // 2)
    return (head[:space] if space > 0 else head).rstrip()


class SearchForm(forms.Form):
    q = forms.CharField(
        label=_("Question"),
        strip=True,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": _("Ask a question about the library…"), "autocomplete": "off"}
        ),
    )
    folder = FolderChoiceField(
        label=_("Folder"), queryset=Folder.objects.none(), required=False, empty_label=_("All folders I can read")
    )

    type = forms.MultipleChoiceField(
        label=_("Type"), required=False, choices=list(TYPE_LABELS.items()), widget=forms.CheckboxSelectMultiple
    )
    tag = forms.MultipleChoiceField(label=_("Tag"), required=False, widget=forms.CheckboxSelectMultiple)
    author = forms.CharField(
        label=_("Author"), required=False, max_length=300, widget=forms.TextInput(attrs={"placeholder": _("Full name")})
    )
    document = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        folders: QuerySet[Folder],
        paths: Mapping[int, str],
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """`folders`: those the reader may read; `paths`: their paths as the reader may see them;
        `tags`: the tags of documents the reader may read (no other tag is offered)."""
        super().__init__(*args, **kwargs)
        self.cut_from: int | None = None  # the question's length as sent, when it was cut
        field = self.fields["folder"]
        assert isinstance(field, FolderChoiceField)
        field.queryset = folders.order_by("name", "pk")
        field.paths = paths
        field.error_messages["invalid_choice"] = _("Choose one of the folders you can read.")
        # "from" and "to" are the URL's names (as the API's); Python cannot declare them above.
        self.fields["from"] = forms.CharField(label=_("Published from"), required=False, widget=_DATE)
        self.fields["to"] = forms.CharField(label=_("to"), required=False, widget=_DATE)
        tag_field = self.fields["tag"]
        assert isinstance(tag_field, forms.MultipleChoiceField)
        tag_field.choices = [(name, name) for name in tags or []]
        # A tag in a shared URL that this reader is not offered: said by `clean` in the parser's words.
        tag_field.validators = []
        tag_field.valid_value = lambda value: True  # type: ignore[method-assign]

    def clean_q(self) -> str:
        text: str = self.cleaned_data["q"]
        question = cut_question(text)
        self.cut_from = len(text) if question != text else None
        return question

    def clean(self) -> dict[str, Any]:
        """The filters parsed as every entry point parses them; a bad value is the form's error."""
        cleaned = super().clean() or self.cleaned_data
        if self.data is None or not hasattr(self.data, "getlist"):
            return cleaned
        try:
            cleaned["filters"] = parse_filters(self.data.getlist)
        except FilterError as exc:
            raise forms.ValidationError(exc.message) from exc
        return cleaned

    @property
    def filters(self) -> Filters:
        return self.cleaned_data.get("filters") or Filters()


_DATE = forms.DateInput(attrs={"type": "date"})
