"""Grammar references of a corpus (``--grammar`` and per-line ``NAME@VERSION``), resolved once per process.

A reference that cannot be resolved is an error of the lines that name it, never
a crash of the run; the metric built for each grammar is cached with it, so
each grammar's validator is compiled once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ek.agents.toolcalls import ToolCallMetric
from ek.corpus import GRAMMAR_REF
from ek.grammar.model import GraphGrammar


class GrammarError(LookupError):
    """A grammar reference that does not resolve, with the reason."""


def load_grammar(spec: str, search_path: Sequence[str] = ()) -> GraphGrammar:
    """Resolve ``NAME@VERSION`` on ``search_path`` (default: the current folder), or load a schema/module path.

    Anything that is not ``NAME@VERSION`` is an ``.ek`` schema path, a generated
    module's ``.py`` path or an importable module name.
    """
    try:
        from ek.runtime import grammar_of, resolve
    except ImportError as exc:
        raise GrammarError(f"cannot resolve grammar {spec!r}: ek.runtime is unavailable ({exc})") from None
    try:
        if GRAMMAR_REF.fullmatch(spec) and not os.path.exists(spec):
            return grammar_of(resolve(spec, search_path=list(search_path) or ["."]))
        return grammar_of(spec)
    except Exception as exc:  # noqa: BLE001 - any failure to resolve is reported on the lines that need it
        message = str(exc).strip() or type(exc).__name__
        raise GrammarError(f"cannot resolve grammar {spec!r}: {message}") from None


class MetricCache:
    """One :class:`ToolCallMetric` per grammar reference (``None``: the default grammar), built on first use."""

    def __init__(self, *, level: str, canonicalizer: str, optimal: bool, default_grammar: str | None,
                 search_path: Sequence[str]) -> None:
        self._options: dict[str, Any] = {"level": level, "canonicalizer": canonicalizer, "optimal": optimal}
        self.default_grammar = default_grammar
        self.search_path = tuple(search_path)
        if default_grammar is not None and os.path.isfile(default_grammar):
            # versions beside the default schema resolve without a --search-path
            self.search_path += (os.path.dirname(os.path.abspath(default_grammar)),)
        self._metrics: dict[str | None, ToolCallMetric | GrammarError] = {}

    def default_key(self) -> str | None:
        """``NAME@VERSION`` of the default grammar (resolving it), or None without one."""
        if self.default_grammar is None:
            return None
        metric = self.metric(None)
        assert metric.grammar is not None
        return f"{metric.grammar.name}@{metric.grammar.version}"

    def metric(self, ref: str | None) -> ToolCallMetric:
        """The metric for a line's grammar ref (or the default); raises :class:`GrammarError` if it cannot resolve."""
        key = ref if ref is not None else self.default_grammar
        if ref is not None and self.default_grammar is not None and ref not in self._metrics:
            try:
                if ref == self.default_key():  # the line names the default grammar: same metric
                    self._metrics[ref] = self.metric(None)
            except GrammarError:
                pass
        found = self._metrics.get(key)
        if found is None:
            try:
                grammar = load_grammar(key, self.search_path) if key is not None else None
                found = ToolCallMetric(grammar=grammar, **self._options)
            except GrammarError as exc:
                found = exc
            self._metrics[key] = found
        if isinstance(found, GrammarError):
            raise found
        return found


__all__ = ["GrammarError", "MetricCache", "load_grammar"]
