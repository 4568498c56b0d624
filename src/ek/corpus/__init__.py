"""The corpus engine: read lines, join gold, resolve grammars, score (in parallel), accumulate.

:mod:`ek.corpus.reading` turns lines into episodes or located errors,
:mod:`ek.corpus.grammars` resolves the grammar each episode names,
:mod:`ek.corpus.runner` scores them in one or many processes and
:mod:`ek.corpus.summary` accumulates the finished result that
:mod:`ek.report` renders.
"""
