"""Pages: search at /, login/logout, the library's browse pages, and the document viewer, page images and
original files."""

from django.contrib.auth import views as auth_views
from django.urls import path

from citations import feedback_views, library_views, stream_views, views

app_name = "citations"

urlpatterns = [
    path("", views.search_page, name="search"),
    path(
        "login/",
        views.RateLimitedLoginView.as_view(
            template_name="registration/login.html", redirect_authenticated_user=True, next_page="citations:search"
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(next_page="citations:search"), name="logout"),
    path("documents/<int:document_id>/view", views.document_view, name="document_view"),
    path("documents/<int:document_id>/pages/<int:page>", views.document_page, name="document_page"),
    path("documents/<int:document_id>/pages/<int:page>.png", views.document_page_image, name="document_page_image"),
    path("documents/<int:document_id>/file", views.document_file, name="document_file"),
    path("answers/stream", stream_views.answer_stream_page, name="answer_stream"),
    path("answers/<int:answer_id>/feedback", feedback_views.answer_feedback, name="answer_feedback"),
    path("library/", library_views.library_index, name="library"),
    path("library/folders/<int:folder_id>/", library_views.library_folder, name="library_folder"),
    path("library/documents/<int:document_id>/", library_views.library_document, name="library_document"),
]
