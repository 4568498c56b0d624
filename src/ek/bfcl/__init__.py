"""BFCL compatibility: read BFCL's data files, convert them to ek, and check outputs with BFCL's semantics.

- :func:`read_questions` / :func:`read_possible_answers`: BFCL's JSON-lines files.
- :func:`to_grammar`: an entry's function schemas as a :class:`~ek.grammar.GraphGrammar`.
- :func:`gold_calls`: a ground truth as gold :class:`~ek.agents.base.Step` s with ``OneOf``/``OMITTABLE``.
- :func:`check`: BFCL's AST checker verdict for one output (see docs/bfcl.md for where ek differs).
"""

from ek.bfcl.checker import Verdict, check
from ek.bfcl.data import BfclDataError, PossibleAnswer, Question, pair_up, read_possible_answers, read_questions
from ek.bfcl.gold import alternatives, gold_calls
from ek.bfcl.grammar import to_grammar
from ek.bfcl.typemap import language_of

__all__ = [
    "BfclDataError",
    "PossibleAnswer",
    "Question",
    "Verdict",
    "alternatives",
    "check",
    "gold_calls",
    "language_of",
    "pair_up",
    "read_possible_answers",
    "read_questions",
    "to_grammar",
]
