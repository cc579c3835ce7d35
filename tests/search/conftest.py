from tests.search.bm25_cases import small_folder

__all__ = ["small_folder"]
