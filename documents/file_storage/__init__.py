"""Where originals live (FILE_STORAGE): Django Storage classes beside FileSystemStorage, and the
helpers that read an original whatever the storage (docs/operations.md "Running on several machines")."""
