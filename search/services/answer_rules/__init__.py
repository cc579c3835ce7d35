"""Answer-type rules, one module per language (en.py, pt.py), each a `RULES` instance of
search/services/answer_type.py's `AnswerTypeRules`; `rules_for` there picks one by language code."""
