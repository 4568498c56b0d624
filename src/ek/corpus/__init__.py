"""The corpus engine: read lines, join gold, resolve grammars, score (in parallel), accumulate.

:mod:`ek.corpus.reading` turns lines into episodes or located errors,
:mod:`ek.corpus.grammars` resolves the grammar each episode names,
:mod:`ek.corpus.runner` scores them in one or many processes and
:mod:`ek.corpus.summary` accumulates the finished result that
:mod:`ek.report` renders.
"""

from ek.corpus.reading import (
    GRAMMAR_REF,
    PRED_KEYS,
    Episode,
    GoldEntry,
    LineCounts,
    LineDataError,
    LineError,
    NotUnicodeError,
    iter_raw_lines,
    load_bfcl_answers,
    load_bfcl_functions,
    load_gold_file,
    parse_episode,
)

__all__ = [
    "GRAMMAR_REF",
    "PRED_KEYS",
    "Episode",
    "GoldEntry",
    "LineCounts",
    "LineDataError",
    "LineError",
    "NotUnicodeError",
    "iter_raw_lines",
    "load_bfcl_answers",
    "load_bfcl_functions",
    "load_gold_file",
    "parse_episode",
]
