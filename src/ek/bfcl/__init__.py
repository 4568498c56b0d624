"""BFCL compatibility: read BFCL's data files, convert them to ek, and check outputs with BFCL's semantics.

- :func:`read_questions` / :func:`read_possible_answers`: BFCL's JSON-lines files;
  :func:`load_category`: both at once, as :class:`Episode` s; :func:`underscored_question` and
  :func:`underscored_answer`: an entry as a model BFCL marks ``underscore_to_dot`` was shown it.
- :func:`to_grammar`: an entry's function schemas as a :class:`~ek.grammar.GraphGrammar`.
- :func:`gold_calls`: a ground truth as gold :class:`~ek.calls.Step` s with ``OneOf``/``OMITTABLE``.
- :func:`check`: BFCL's AST checker verdict for one output (see docs/bfcl.md for where ek differs);
  :func:`prepare`: an entry read once, to check many outputs (``prepare(...).check(output)``).
- :func:`prompt_variation` / :func:`decode_variation`: an entry of the format-sensitivity category (its id's
  prompt configuration and original question) and its output read in the return format that prompt asked for.

The names load on first use: ``ek score`` reads BFCL's files and gold without loading the checker.
"""

from __future__ import annotations

from ek._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "BfclDataError": "ek.bfcl.data",
    "Episode": "ek.bfcl.data",
    "PossibleAnswer": "ek.bfcl.data",
    "PreparedEntry": "ek.bfcl.checker",
    "PromptVariation": "ek.bfcl.variation",
    "Question": "ek.bfcl.data",
    "Verdict": "ek.bfcl.checker",
    "alternatives": "ek.bfcl.gold",
    "category_of": "ek.bfcl.data",
    "decode_variation": "ek.bfcl.variation",
    "check": "ek.bfcl.checker",
    "expects_no_call": "ek.bfcl.gold",
    "expects_some_call": "ek.bfcl.gold",
    "gold_calls": "ek.bfcl.gold",
    "language_of": "ek.bfcl.typemap",
    "load_category": "ek.bfcl.data",
    "pair_up": "ek.bfcl.data",
    "prepare": "ek.bfcl.checker",
    "prompt_variation": "ek.bfcl.variation",
    "read_possible_answers": "ek.bfcl.data",
    "read_questions": "ek.bfcl.data",
    "to_grammar": "ek.bfcl.grammar",
    "underscored_answer": "ek.bfcl.data",
    "underscored_name": "ek.bfcl.data",
    "underscored_question": "ek.bfcl.data",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
