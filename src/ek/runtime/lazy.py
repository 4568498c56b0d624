"""Validate against a grammar without generating all of it: each tool's validator is compiled the
first time a call to that tool is checked.

Scoring only needs validators, and a corpus usually calls a handful of a
grammar's tools; generating and importing the whole module (every attrs class,
every validator) for a grammar of thousands of tools (all of BFCL's functions)
costs seconds and hundreds of megabytes before the first call is scored. The
code made here is what compiling what ``ek gen`` writes for the same tool gives
(:mod:`ek.runtime.shapecode` makes it from the tool's shape, compiled once per
shape), so the verdicts are the same.
"""

from __future__ import annotations

import hashlib
import linecache
import threading
from collections.abc import Callable
from typing import Any

from ek.codegen.emitter import ToolValidatorPlan, plan_tool_validator
from ek.codegen.validators import refuse_unsafe_patterns
from ek.grammar.model import GraphGrammar
from ek.limits import COMPILED_VALIDATORS, SHARED_VALIDATORS
from ek.runtime.shapecode import validator_from_plan
from ek.runtime.support import short
from ek.runtime.violation import Violation

_ToolCheck = Callable[[Any], list[Violation]]


class GrammarValidator:
    """``validator(tool_name, args)`` -> violations for a :class:`GraphGrammar` ([] when valid).

    A name the grammar does not declare gives one violation at ``$``, as the
    generated module's ``validate`` does. Thread-safe; pickles as its grammar.
    Raises :class:`~ek.codegen.GenerationError` for a grammar with a regex that could backtrack.
    """

    __slots__ = ("_checks", "_lock", "grammar")

    def __init__(self, grammar: GraphGrammar) -> None:
        refuse_unsafe_patterns(grammar)  # a grammar built in code never went through ek lint
        self.grammar = grammar
        self._checks: dict[str, _ToolCheck] = {}
        self._lock = threading.Lock()

    def __call__(self, tool_name: str, args: Any) -> list[Violation]:
        check: _ToolCheck | None
        try:
            check = self._checks[tool_name]
        except KeyError:
            check = self._compile(tool_name)
        except TypeError:  # an unhashable name is no tool's name
            check = None
        if check is None:
            return [Violation("$", "unknown tool " + short(tool_name))]
        return check(args)

    def tool_validator(self, tool_name: str) -> _ToolCheck | None:
        """The compiled ``validate_args(args)`` of one tool, or None for a name the grammar lacks."""
        try:
            return self._checks[tool_name]
        except KeyError:
            return self._compile(tool_name)

    def _compile(self, tool_name: str) -> _ToolCheck | None:
        spec = self.grammar.tool(tool_name) if isinstance(tool_name, str) else None
        if spec is None:
            return None  # not cached: hostile input must not grow the cache
        with self._lock:
            check = self._checks.get(tool_name)
            if check is not None:
                return check
            check = _compiled(plan_tool_validator(self.grammar, spec), self.grammar.key, tool_name)
            self._checks[tool_name] = check
            return check

    def __reduce__(self) -> tuple[Any, ...]:
        return (GrammarValidator, (self.grammar,))

    def __repr__(self) -> str:
        return f"<GrammarValidator {self.grammar.key}: {len(self._checks)} of {len(self.grammar.tools)} tools compiled>"


#: Compiled validators by the SHA-256 of their source, with their linecache file name; most recently used
#: last, at most ``COMPILED_VALIDATORS``.
_by_source: dict[str, tuple[_ToolCheck, str]] = {}
_by_source_lock = threading.Lock()


def _compiled(plan: ToolValidatorPlan, grammar_key: str, tool_name: str) -> _ToolCheck:
    """The ``validate_args`` that ``plan``'s source defines, made once per distinct source while it stays among
    the last ``COMPILED_VALIDATORS`` used: a tool recurs across grammars (BFCL repeats a question's
    functions in others). It is made from its shape's code (:mod:`ek.runtime.shapecode`: compiling is most
    of what a first validation costs, and shapes recur far more than sources). The source names its
    grammar and tool, so a function is shared only where its traceback's file name is right."""
    source = plan.text()
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    with _by_source_lock:
        hit = _by_source.pop(digest, None)
        if hit is not None:
            _by_source[digest] = hit
            return hit[0]
    filename = f"<ek-generated {grammar_key} {tool_name!r} {digest[:12]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    check: _ToolCheck = validator_from_plan(plan, filename, f"_ek_compiled.tool_{digest[:12]}")
    with _by_source_lock:
        _by_source[digest] = (check, filename)
        while len(_by_source) > COMPILED_VALIDATORS:
            _dropped, dropped_file = _by_source.pop(next(iter(_by_source)))
            # its source lines go too (linecache keeps in-memory sources for good); a GrammarValidator still
            # holding the function keeps it working, its tracebacks then without the source line
            linecache.cache.pop(dropped_file, None)
    return check


#: Validators kept for reuse, most recently used last; old ones are dropped past this many (a run
#: over BFCL builds a small grammar per entry, and those must not pile up).
SHARED_LIMIT = SHARED_VALIDATORS

_shared: dict[Any, GrammarValidator] = {}
_shared_lock = threading.Lock()


def grammar_validator(grammar: GraphGrammar) -> GrammarValidator:
    """A shared :class:`GrammarValidator` for ``grammar`` (by schema hash, or by value for a grammar
    built in code), so metrics built over and over reuse what was compiled."""
    key: Any = ("sha", grammar.source_sha256, grammar.source_path) if grammar.source_sha256 else grammar
    with _shared_lock:
        try:
            hit = _shared.pop(key, None)
        except TypeError:  # an unhashable default value somewhere in the grammar: not shared
            return GrammarValidator(grammar)
        if hit is None or not (hit.grammar is grammar or hit.grammar == grammar):
            hit = GrammarValidator(grammar)
        _shared[key] = hit
        while len(_shared) > SHARED_LIMIT:
            del _shared[next(iter(_shared))]
        return hit
