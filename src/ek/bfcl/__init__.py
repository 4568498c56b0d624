"""BFCL compatibility: read BFCL's data files, convert them to ek, and check outputs with BFCL's semantics.

- :func:`read_questions` / :func:`read_possible_answers`: BFCL's JSON-lines files;
  :func:`load_category`: both at once, as :class:`Episode` s; :func:`underscored_question` and
  :func:`underscored_answer`: an entry as a model BFCL marks ``underscore_to_dot`` was shown it.
- :func:`to_grammar`: an entry's function schemas as a :class:`~ek.grammar.GraphGrammar`.
- :func:`gold_calls`: a ground truth as gold :class:`~ek.calls.Step` s with ``OneOf``/``OMITTABLE``.
- :func:`check`: BFCL's AST checker verdict for one output (see docs/bfcl.md for where ek differs);
  :func:`prepare`: an entry read once, to check many outputs (``prepare(...).check(output)``).
"""

from ek.bfcl.checker import PreparedEntry, Verdict, check, prepare
from ek.bfcl.data import (
    BfclDataError,
    Episode,
    PossibleAnswer,
    Question,
    category_of,
    load_category,
    pair_up,
    read_possible_answers,
    read_questions,
    underscored_answer,
    underscored_name,
    underscored_question,
)
from ek.bfcl.gold import alternatives, expects_no_call, expects_some_call, gold_calls
from ek.bfcl.grammar import to_grammar
from ek.bfcl.typemap import language_of

__all__ = [
    "BfclDataError",
    "Episode",
    "PossibleAnswer",
    "PreparedEntry",
    "Question",
    "Verdict",
    "alternatives",
    "category_of",
    "check",
    "expects_no_call",
    "expects_some_call",
    "gold_calls",
    "language_of",
    "load_category",
    "pair_up",
    "prepare",
    "read_possible_answers",
    "read_questions",
    "to_grammar",
    "underscored_answer",
    "underscored_name",
    "underscored_question",
]
