"""Grammar references of a corpus (``--grammar`` and per-line ``NAME@VERSION``), resolved once per process.

A reference that cannot be resolved is an error of the lines that name it, never
a crash of the run; the metric built for each grammar is cached with it, so
each grammar's validator is compiled once.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ek.bfcl
import ek.runtime
from ek.bfcl.typemap import source_language
from ek.bfcl.variation import original_id
from ek.corpus.reading import GRAMMAR_REF
from ek.grammar.model import GraphGrammar
from ek.limits import BFCL_METRICS_CACHED
from ek.runtime.api import grammar_of
from ek.scorer.metric import ToolCallMetric


class GrammarError(LookupError):
    """A grammar reference that does not resolve, with the reason."""


def load_grammar(spec: str, search_path: Sequence[str] = ()) -> GraphGrammar:
    """Resolve ``NAME@VERSION`` on ``search_path`` (default: the current folder), or load a schema/module path.

    Anything that is not ``NAME@VERSION`` is an ``.ek`` schema path, a generated
    module's ``.py`` path or an importable module name.
    """
    try:
        if GRAMMAR_REF.fullmatch(spec) and not os.path.exists(spec):
            # the package's lazy export: the resolver (and the loader, Lark) load on a NAME@VERSION only; a schema
            # is read, not compiled into a module (the metric compiles each tool's validator as it is used)
            return ek.runtime.resolve_grammar(spec, search_path=list(search_path) or ["."])
        return grammar_of(spec)
    except Exception as exc:  # noqa: BLE001 - any failure to resolve is reported on the lines that need it
        message = str(exc).strip() or type(exc).__name__
        raise GrammarError(f"cannot resolve grammar {spec!r}: {message}") from None


#: Label of episodes scored against their BFCL question's own function schemas.
BFCL_QUESTION_GRAMMAR = "bfcl:question"


class MetricCache:
    """One :class:`ToolCallMetric` per grammar reference (``None``: the default grammar), built on first use.

    With ``bfcl_functions`` (BFCL question id -> function schemas) an episode
    without its own ``grammar`` is scored against its question's functions;
    those metrics live in a small LRU keyed by the schemas' content, since many
    questions share one function set.
    """

    #: How many BFCL function sets keep their compiled metric.
    BFCL_CACHE = BFCL_METRICS_CACHED

    def __init__(self, *, level: str, canonicalizer: str, optimal: bool, default_grammar: str | None,
                 search_path: Sequence[str],
                 bfcl_functions: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                 order: str = "gold", format: str = "auto",
                 loader: Callable[[str, Sequence[str]], GraphGrammar] | None = None, validate: bool = True) -> None:
        self._options: dict[str, Any] = {"level": level, "canonicalizer": canonicalizer, "optimal": optimal,
                                         "order": order, "format": format, "validate": validate}
        self.default_grammar = default_grammar
        self.search_path = tuple(search_path)
        if default_grammar is not None and os.path.isfile(default_grammar):
            # versions beside the default schema resolve without a --search-path
            self.search_path += (os.path.dirname(os.path.abspath(default_grammar)),)
        self._metrics: dict[str | None, ToolCallMetric | GrammarError] = {}
        #: grammar ref -> :meth:`grammar_identity` (asked for every line that names a task, or keeps its id)
        self._identities: dict[str | None, str] = {}
        #: how a reference becomes a grammar: :func:`load_grammar`, or (Ray workers, which may not see the
        #: files) a loader that asks the driver's process, so every engine resolves exactly the same way
        self.loader = loader if loader is not None else load_grammar
        self.bfcl_functions = bfcl_functions
        #: content key (or, see _bfcl_alone, tool names) -> metric, least recently used first
        self._bfcl: OrderedDict[str | tuple[str, ...], ToolCallMetric] = OrderedDict()
        #: id(function schemas) -> (those schemas, their content key); see _bfcl_key
        self._bfcl_keys: dict[int, tuple[Any, str]] = {}
        #: the function schemas of the last BFCL lookup and their metric; see for_episode
        self._bfcl_last: tuple[Any, ToolCallMetric] | None = None
        #: tool names -> the schemas kept under them in the LRU; names met with other schemas: see _bfcl_alone
        self._bfcl_alone_functions: dict[tuple[str, ...], Any] = {}
        self._bfcl_shared_names: set[tuple[str, ...]] = set()
        #: id(function schemas) -> (those schemas, their tool names or None); see _bfcl_alone
        self._bfcl_names: dict[int, tuple[Any, tuple[str, ...] | None]] = {}

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
                grammar = self.loader(key, self.search_path) if key is not None else None
                found = ToolCallMetric(grammar=grammar, **self._options)
            except GrammarError as exc:
                found = exc
            self._metrics[key] = found
        if isinstance(found, GrammarError):
            raise found
        return found


    def grammar_label(self, ref: str | None) -> str | None:
        """What the report counts an episode's grammar as."""
        if ref is None and self.bfcl_functions is not None:
            return BFCL_QUESTION_GRAMMAR
        return ref if ref is not None else self.default_grammar

    def grammar_identity(self, ref: str | None) -> str:
        """Which grammar an episode is scored with, for telling two runs apart: ``NAME@VERSION`` and the
        schema's sha256 when known (a schema and the module generated from it agree), ``none``, or
        :data:`BFCL_QUESTION_GRAMMAR`. The default grammar counts as what it resolves to. One string per ref,
        made once: a task's samples share it (:attr:`ek.corpus.summary.Summary.tasks`)."""
        found = self._identities.get(ref)
        if found is None:
            found = self._identities[ref] = self._identity(ref)
        return found

    def _identity(self, ref: str | None) -> str:
        if ref is None and self.bfcl_functions is not None:
            return BFCL_QUESTION_GRAMMAR
        grammar = self.metric(ref).grammar
        if grammar is None:
            return "none"
        return f"{grammar.key} (sha256 {grammar.source_sha256[:12]})" if grammar.source_sha256 else grammar.key

    def for_episode(self, ref: str | None, episode_id: Any) -> ToolCallMetric:
        """The metric of one episode: its own grammar ref, else its BFCL question's functions, else the default."""
        if ref is not None or self.bfcl_functions is None:
            return self.metric(ref)
        functions = self.bfcl_functions.get(episode_id) if isinstance(episode_id, str) else None
        if functions is None:  # a BFCL format-sensitivity entry is asked its original question
            functions = self.bfcl_functions.get(original_id(episode_id))
        if functions is None:
            raise GrammarError(f"id {episode_id!r} is not in the BFCL questions file, so its functions are unknown")
        if not functions:  # a question that lists no schemas (BFCL's multi-turn ones): no grammar to check against
            return self.metric(None)
        if source_language(episode_id) is not None:  # a Java or JavaScript question
            return self._bfcl_source(functions)
        last = self._bfcl_last
        if last is not None and last[0] is functions:
            # fast path: the line's question has the schemas of the line before (samples of one question in a
            # row): the metric found then, without keying the schemas and asking the LRU again. Safe because it
            # is what those steps would find (the schemas, held here, are the same object), and the LRU's
            # order would not change (that entry was the last one moved to its end)
            return last[1]
        metric = self._bfcl_alone(functions)
        if metric is None:
            key = self._bfcl_key(functions)
            metric = self._bfcl.get(key)
            if metric is None:
                metric = self._bfcl_new(key, functions)
            else:
                self._bfcl.move_to_end(key)
        self._bfcl_last = (functions, metric)
        return metric

    def _bfcl_source(self, functions: Any) -> ToolCallMetric:
        """The metric of a Java or JavaScript question's function schemas, which does not validate values.

        In those categories every argument value is source text, which the runner reads and converts by
        its declared type as BFCL does (:func:`ek.bfcl.javalike.typed_calls`); text that is no value of
        that type stays text, and BFCL compares it with the answers as written: the answers hold such
        "variables" (``"myList"`` for an ``Array``). A schema check would call those answers invalid gold
        and those outputs invalid values, so it is left out, and a call is exact iff BFCL's check is valid
        (docs/bfcl.md). Kept in the LRU under ``source:`` and the schemas' content key.
        """
        key = f"source:{self._bfcl_key(functions)}"
        metric = self._bfcl.get(key)
        if metric is None:
            return self._bfcl_new(key, functions, validate=False)
        self._bfcl.move_to_end(key)
        return metric

    def _bfcl_new(self, key: str | tuple[str, ...], functions: Any, *, validate: bool = True) -> ToolCallMetric:
        """The metric of ``functions``, built and kept in the LRU under ``key``."""
        metric = ToolCallMetric(grammar=ek.bfcl.to_grammar(list(functions)).grammar,
                                **{**self._options, "validate": validate and self._options["validate"]})
        self._bfcl[key] = metric
        if len(self._bfcl) > self.BFCL_CACHE:
            dropped, _ = self._bfcl.popitem(last=False)
            self._bfcl_alone_functions.pop(dropped, None)
        return metric

    def _bfcl_alone(self, functions: Any) -> ToolCallMetric | None:
        """Fast path of :meth:`for_episode`: the metric of function schemas whose tool names (in order) no
        other schemas met so far have, found or built without their content key; None for the others.

        What it skips, and why that is safe: the content key (a sha256 of the schemas' sorted JSON, ~10 µs
        a question), for a question whose schemas are the first with their names. Schemas with the same
        content have the same names, so only schemas that share their names could share their metric: the
        first of a name tuple is kept under that tuple, with its schemas object, and found by it (that
        object only). When other schemas with those names come, the first's content key is worked out,
        its metric moved under it (the content path then finds it, as it would have), and those names
        take the content path from then on. A BFCL run file, one line per question, has few such pairs.
        Schemas whose names are not all text take the content path.
        """
        known = self._bfcl_names.get(id(functions))  # as for _bfcl_key: worked out once per schemas object
        if known is not None and known[0] is functions:
            names = known[1]
        else:
            names = _tool_names(functions)
            self._bfcl_names[id(functions)] = (functions, names)
        if names is None or names in self._bfcl_shared_names:
            return None
        metric = self._bfcl.get(names)
        if metric is None:
            metric = self._bfcl_new(names, functions)
            self._bfcl_alone_functions[names] = functions
            return metric
        if self._bfcl_alone_functions[names] is functions:
            self._bfcl.move_to_end(names)
            return metric
        # other schemas with these names: the first ones' metric goes under their content key
        self._bfcl_shared_names.add(names)
        first = self._bfcl_alone_functions.pop(names)
        del self._bfcl[names]
        self._bfcl[self._bfcl_key(first)] = metric
        return None

    def _bfcl_key(self, functions: Any) -> str:
        """The content key of a question's function schemas, computed once per schemas object.

        Fast path: every line of one question looks up the same object of ``bfcl_functions``, so its
        key (a sha256 of its sorted JSON) is remembered by identity; the object is kept with it, so the
        id is never another object's, and there are at most as many as the questions file holds.
        """
        known = self._bfcl_keys.get(id(functions))
        if known is not None and known[0] is functions:
            return known[1]
        key = hashlib.sha256(json.dumps(functions, sort_keys=True, default=repr).encode()).hexdigest()
        self._bfcl_keys[id(functions)] = (functions, key)
        return key


def _tool_names(functions: Any) -> tuple[str, ...] | None:
    """The ``name`` of each of a BFCL question's function schemas, in order; None when one is not text."""
    names = []
    for f in functions:  # (a decoded schema is a dict: no Mapping ABC check for it)
        name = f.get("name") if type(f) is dict or isinstance(f, Mapping) else None
        if type(name) is not str:
            return None
        names.append(name)
    return tuple(names)


__all__ = ["BFCL_QUESTION_GRAMMAR", "GrammarError", "MetricCache", "load_grammar"]
