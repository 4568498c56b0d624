"""Validate against a grammar without generating all of it: each tool's calls are checked by an interpreter
over the grammar model at first, and by the tool's compiled validator once the tool has been checked often.

Scoring only needs validators, and a corpus usually calls a handful of a
grammar's tools; generating and importing the whole module (every attrs class,
every validator) for a grammar of thousands of tools (all of BFCL's functions)
costs seconds and hundreds of megabytes before the first call is scored. The
code made here is what compiling what ``ek gen`` writes for the same tool gives
(:mod:`ek.runtime.shapecode` makes it from the tool's shape, compiled once per
shape), so the verdicts are the same.

Tiers: making one tool's validator costs ~100 µs (~370 µs rendered and compiled
whole, before shapes), and a BFCL question's tools are checked once or twice
(its gold, one output) when a result file holds one line per question. So the
first :data:`~ek.limits.INTERPRETED_CALLS` calls of a tool are answered by
:mod:`ek.grammar.fits`, the reference the generated code compiles (the same
violations in the same order, which ``tests/test_fits_agreement.py`` checks on
random grammars and hostile values): the first makes the tool's plan
(:func:`~ek.grammar.fits.arguments_plan`, no code compiled), which answers them
(:func:`~ek.grammar.fits.planned_violations`: on BFCL's tools ~8.6k
instructions a correct call and ~15k a wrong one, against ~23.5k and ~28k for
fits' walk, :func:`~ek.grammar.fits.arguments_violations`, and the compiled
code's ~5k and ~7.5k; making the plan and running it once already costs less
than the walk); the call after them makes the compiled validator, and every
later call runs it.
"""

from __future__ import annotations

import hashlib
import itertools
import linecache
import math
import operator
import threading
from collections.abc import Callable, Mapping
from types import CodeType, FunctionType
from typing import Any

import ek.codegen
from ek.codegen.errors import GenerationError
from ek.codegen.toolplan import TOOL_VALIDATOR_NAME, ToolValidatorPlan
from ek.codegen.validators import refuse_unsafe_patterns
from ek.grammar import fits
from ek.grammar.model import GraphGrammar, ToolSpec
from ek.limits import COMPILED_VALIDATORS, INTERPRETED_CALLS, SHARED_VALIDATORS
from ek.runtime.shapecode import validator_from_plan
from ek.runtime.support import short
from ek.runtime.violation import Violation, make_violation

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
        self._checks: dict[str, FunctionType] = {}
        self._lock = threading.Lock()

    def __call__(self, tool_name: str, args: Any) -> list[Violation]:
        check: _ToolCheck | None
        try:
            check = self._checks[tool_name]
        except KeyError:
            check = self._check_of(tool_name)
        except TypeError:  # an unhashable name is no tool's name
            check = None
        if check is None:
            return [Violation("$", "unknown tool " + short(tool_name))]
        return check(args)

    def tool_validator(self, tool_name: str) -> _ToolCheck | None:
        """One tool's ``validate_args(args)``, or None for a name the grammar lacks.

        The same function object every time, for callers that keep it: it interprets its first
        ``INTERPRETED_CALLS`` calls, then becomes the compiled validator itself (see :func:`_tiered`),
        so a kept function is as fast as the compiled one from then on.
        """
        try:
            return self._checks[tool_name]
        except KeyError:
            return self._check_of(tool_name)

    def plainly_valid(self, tool_name: str, choices: Mapping[str, tuple[Any, ...]]) -> bool:
        """Whether every call of ``tool_name`` made by taking one value of each argument in ``choices``
        (argument name -> its values) is valid, told by the tool's plan alone
        (:func:`~ek.grammar.fits.plainly_accepted`); False when that cannot be told so (then validate each).

        Fast path of a gold check (:mod:`ek.scorer.goldcheck`: a gold call and its alternatives): one pass
        over the values instead of one validation per combination. The plan is the one the tool's first
        interpreted call makes (made here if none was yet, and kept for those calls); asking here is no
        call of the tool, so it does not count towards compiling its validator (which answers as the plan).
        """
        check = self._checks.get(tool_name) if type(tool_name) is str else None
        if check is None:
            check = self._check_of(tool_name) if type(tool_name) is str else None
            if check is None:
                return False  # an unknown tool: its violation comes from validating
        namespace = check.__globals__
        plan = namespace["__ek_plan__"]
        if plan is None:  # what the tool's first interpreted call would make (see _INTERPRETED_SOURCE)
            plan = fits.arguments_plan(namespace["__ek_fields__"], namespace["__ek_resolve__"])
            namespace["__ek_plan__"] = plan
        return fits.plainly_accepted(plan, choices)

    def _check_of(self, tool_name: str) -> FunctionType | None:
        """The tool's check, made on its first use (nothing rendered or compiled yet)."""
        spec = self.grammar.tool(tool_name) if isinstance(tool_name, str) else None
        if spec is None:
            return None  # not cached: hostile input must not grow the cache
        with self._lock:
            check = self._checks.get(tool_name)
            if check is None:
                check = self._checks[tool_name] = _tiered(self, spec)
            return check

    def _compile(self, check: FunctionType, spec: ToolSpec) -> FunctionType:
        """Turn ``check`` (a tool's function from :func:`_tiered`) into its compiled validator, once.

        A grammar built in code that the generator cannot write (a lone surrogate in a name, types
        nested past Python's indentation limit) keeps its interpreter for good: fits answers for
        every value, and is what the compiled code would have answered."""
        with self._lock:
            namespace = check.__globals__
            if check.__code__ is _INTERPRETED_CODE and namespace[_LIMIT] != _FOR_GOOD:
                try:
                    plan = plan_tool_validator(self.grammar, spec)
                except GenerationError:
                    namespace[_LIMIT] = _FOR_GOOD
                    return check
                compiled = _compiled(plan, self.grammar.key, spec.name)
                namespace.update(compiled.__globals__)  # the tables its code reads, then the code
                check.__code__ = compiled.__code__
                check.__doc__ = compiled.__doc__
        return check

    def __reduce__(self) -> tuple[Any, ...]:
        return (GrammarValidator, (self.grammar,))

    def __repr__(self) -> str:
        compiled = sum(1 for check in list(self._checks.values()) if check.__code__ is not _INTERPRETED_CODE)
        return f"<GrammarValidator {self.grammar.key}: {compiled} of {len(self.grammar.tools)} tools compiled>"


#: A tool's function while its calls are interpreted. Its globals are its own (see :func:`_tiered`), under
#: dunder names, which generated code never defines, so the compiled code's tables never overwrite them. Its
#: first call makes the tool's plan (fits' ``arguments_plan``), which ``planned_violations`` runs until the
#: count (a C-level ``next``, atomic under the GIL) reaches the limit: making the plan and running it costs
#: less than fits' walk (``arguments_violations``) of that one call already (on BFCL's gold calls ~1.5 µs
#: against ~2.7 µs), and a BFCL question's tools are called two to four times (the gold check's variants,
#: the output). No wrapper frame between; fits is reached as a module, so every tool's function calls the same
#: functions (call sites CPython can specialize once, not one closure per tool). Threads racing at the first
#: call may each make a plan: any of them gives the same answer.
_INTERPRETED_SOURCE = f"""\
def {TOOL_VALIDATOR_NAME}(args):
    global __ek_plan__
    count = next(__ek_count__)
    if count < __ek_limit__:
        plan = __ek_plan__
        if plan is None:
            plan = __ek_plan__ = __ek_fits__.arguments_plan(__ek_fields__, __ek_resolve__)
        problems = __ek_fits__.planned_violations(plan, args)
        return list(map(__ek_violation__, problems)) if problems else problems
    return __ek_compile__(args)
"""
_LIMIT = "__ek_limit__"
_FOR_GOOD = math.inf  # the limit of a tool whose validator cannot be compiled: interpreted for good
_INTERPRETED_FILE = "<ek.runtime.lazy interpreted validator>"
linecache.cache[_INTERPRETED_FILE] = (len(_INTERPRETED_SOURCE), None, _INTERPRETED_SOURCE.splitlines(keepends=True),
                                      _INTERPRETED_FILE)
_INTERPRETED_CODE = next(c for c in compile(_INTERPRETED_SOURCE, _INTERPRETED_FILE, "exec").co_consts
                         if isinstance(c, CodeType))


def _tiered(owner: GrammarValidator, spec: ToolSpec) -> FunctionType:
    """A tool's check as one function object that changes tier in place.

    Its first ``INTERPRETED_CALLS`` calls are interpreted by :mod:`ek.grammar.fits` (by the tool's plan,
    made at the first: see ``_INTERPRETED_SOURCE``); the next
    compiles the validator (:meth:`GrammarValidator._compile`), which copies the compiled function's
    globals into this one's and gives it the compiled code: from then on, calling it *is* calling the
    compiled validator, not a wrapper around it (a wrapper would add a call to each of the hot tools'
    calls), whoever kept a reference to it (the metric keeps one per tool). Threads racing past the
    count all compile through the lock, once; either tier gives the same answer.
    """

    def compile_then_check(args: Any) -> list[Violation]:
        return owner._compile(check, spec)(args)  # type: ignore[no-any-return]

    namespace: dict[str, Any] = {
        "__name__": __name__, "__ek_count__": itertools.count(), _LIMIT: INTERPRETED_CALLS,
        "__ek_fits__": fits, "__ek_fields__": spec.fields, "__ek_resolve__": owner.grammar.resolve, "__ek_plan__": None,
        "__ek_violation__": make_violation, "__ek_compile__": compile_then_check,
    }
    check = FunctionType(_INTERPRETED_CODE, namespace, TOOL_VALIDATOR_NAME)
    return check


#: Compiled validators by the SHA-256 of their source, with their linecache file name; most recently used
#: last, at most ``COMPILED_VALIDATORS``.
_by_source: dict[str, tuple[_ToolCheck, str]] = {}
_by_source_lock = threading.Lock()


def plan_tool_validator(grammar: GraphGrammar, tool: ToolSpec) -> ToolValidatorPlan:
    """:func:`ek.codegen.emitter.plan_tool_validator`, imported when a validator is first compiled: the emitter
    loads jinja2, which scoring with validators interpreted never needs."""
    return ek.codegen.plan_tool_validator(grammar, tool)  # the package's lazy export: loaded on this first use


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


_name = operator.attrgetter("name")


def _names_key(grammar: GraphGrammar) -> tuple[Any, ...]:
    """What a grammar built in code is shared under: its name, version, and its tools' and types' names.

    Fast path for keying it by its value: hashing a grammar hashes every tool, field, type and constraint
    (attrs' ``__hash__`` of each, in Python: half of what a metric per BFCL question cost to make), and a
    grammar per question is hashed once and never met again. Equal grammars have equal names, so the
    validator of an equal grammar is still found; one found under the key serves only a grammar equal to
    its own (:func:`grammar_validator` checks), so grammars that differ only inside their tools take turns
    under one key (the latest kept): a validator made again, never another grammar's verdicts.
    """
    return ("names", grammar.name, grammar.version, tuple(map(_name, grammar.tools)),
            tuple(map(_name, grammar.types)))


def grammar_validator(grammar: GraphGrammar) -> GrammarValidator:
    """A shared :class:`GrammarValidator` for ``grammar`` (by schema hash, or by value for a grammar
    built in code: see :func:`_names_key`), so metrics built over and over reuse what was compiled."""
    key: Any = ("sha", grammar.source_sha256, grammar.source_path) if grammar.source_sha256 else _names_key(grammar)
    with _shared_lock:
        try:
            hit = _shared.pop(key, None)
        except TypeError:  # a name that is no string, and unhashable, in a grammar built in code: not shared
            return GrammarValidator(grammar)
        if hit is None or not (hit.grammar is grammar or hit.grammar == grammar):
            hit = GrammarValidator(grammar)
        _shared[key] = hit
        while len(_shared) > SHARED_LIMIT:
            del _shared[next(iter(_shared))]
        return hit
