"""The corpus engine: read lines, join gold, resolve grammars, score (in parallel), accumulate.

:mod:`ek.corpus.sources` opens the inputs (files, globs, gzip, Parquet) as one numbered stream of lines,
:mod:`ek.corpus.reading` turns lines into episodes or located errors,
:mod:`ek.corpus.grammars` resolves the grammar each episode names,
:mod:`ek.corpus.runner` scores them in one or many processes (:mod:`ek.corpus.distributed`: on Ray) and
:mod:`ek.corpus.summary` accumulates the finished result that
:mod:`ek.report` renders.
"""
