"""Every schema regex ek runs finishes in time linear in the value: the one check, and the one matcher.

Python's ``re`` backtracks: ``/(a+)+b/`` against forty ``a`` takes hours, and
``/a*a*b/`` against a megabyte of ``a`` takes hours too (quadratic). ek matches
schema patterns against data it did not write (model output when scoring and
in generated validators, defaults at lint and import), so it refuses, where a
pattern is written, every pattern whose full match could take more than linear
time, and runs the others with plain ``re``:

- ``ek lint`` (and so ``gen``, ``export``, ``score`` with a schema) reports the
  pattern with its location, the part to blame and how to rewrite it;
- ``ek import`` drops such a JSON Schema ``pattern`` with a warning at its JSON
  path and keeps the rest of the property;
- the code generator raises :class:`~ek.codegen.GenerationError` for one in a
  grammar built in code, and so do the validators the runtime compiles;
- :func:`fullmatch`, which :mod:`ek.grammar.fits` asks, raises :class:`UnsafePattern`.

Why refuse rather than bound the time: a time limit gives different answers
on a loaded machine and a fast one, and an optional engine without
backtracking (RE2) gives different answers with and without it installed (it
reads some patterns differently). A refused pattern gives the same answer
everywhere: none. Why this is not silly: the analysis
(:mod:`ek.grammar.regex_ambiguity`) counts the ways the pattern can read one
text, so it accepts every pattern that can read a text only a bounded number
of ways, however long: ``[A-Z]{3}``, ``\\d{4}-\\d{2}-\\d{2}``, ``[^@\\s]+@[^@\\s]+\\.[a-z]{2,}``,
``[a-z0-9_-]+``, ``(a|ab)*``, and the search patterns ``ek import`` writes
(``[\\s\\S]*(?:\\d+)[\\s\\S]*``). It errs only towards refusing (never calls a
super-linear pattern linear); ``tests/hostile`` times every accepted pattern of
a corpus of tricky ones against long adversarial values to check that claim.
"""

from __future__ import annotations

import functools
import importlib
import re
import warnings
from typing import Any

import attrs

from ek.grammar.regex_ambiguity import Finding, find_problem
from ek.grammar.regex_automaton import Automaton, Refused, TooLarge, build
from ek.grammar.regex_text import shown, shown_item
from ek.limits import REGEX_MAX_LENGTH, REGEX_MAX_POSITIONS

_c: Any = importlib.import_module("re._constants")
_parser: Any = importlib.import_module("re._parser")

_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT)


@attrs.frozen
class PatternProblem:
    """Why a pattern is refused: what its matching time can grow like (``unchecked``: too large or complex
    to tell), the cause, the part of the pattern (as ``re`` reads it), a rewrite."""

    cost: str
    cause: str
    part: str
    hint: str

    def __str__(self) -> str:
        if self.cost == "unchecked":
            return f"cannot be checked for backtracking: {self.cause}: {self.part}; {self.hint}"
        return f"can take {self.cost} time to match: {self.cause}: {self.part}; {self.hint}"


class UnsafePattern(ValueError):
    """A pattern :func:`pattern_problem` refuses was about to be matched."""

    def __init__(self, pattern: str, problem: PatternProblem) -> None:
        super().__init__(f"regex /{pattern}/ {problem}")
        self.pattern = pattern
        self.problem = problem


@functools.lru_cache(maxsize=4096)
def pattern_problem(pattern: str) -> PatternProblem | None:
    """Why a full match of ``pattern`` could take more than linear time, or None when it cannot.

    Raises ``re.error`` (or ``OverflowError``, ``RecursionError``) for a pattern ``re`` cannot compile.

    >>> print(pattern_problem("(a+)+b"))
    can take exponential time to match: a repetition inside a repetition: (a+)+; repeat the inner part only once: (a+)+ is a+, (\\w+\\s?)+ is \\w+(\\s\\w+)*
    >>> pattern_problem("a*a*b").cause
    'two repetitions one after the other that can match the same text, with nothing between them that only one can match'
    >>> [pattern_problem(p) for p in ("[A-Z]{3}", r"\\d{4}-\\d{2}-\\d{2}", r"[^@\\s]+@[^@\\s]+\\.[a-z]{2,}", "(a|ab)*c")]
    [None, None, None, None]
    """
    tree = _parsed(pattern)
    _compiled(pattern)  # errors only the compiler finds (the cache keeps it for the matches to come)
    try:
        return _problem(tree, tree.state.flags, anchored=True, tail_anything=False)
    except RecursionError:
        return PatternProblem("unchecked", "groups nested too deeply", shown(tree), "nest fewer groups")


def _parsed(pattern: str) -> Any:
    """``re``'s parse tree of ``pattern``. A pattern ``re`` warns about (``[[:alpha:]]``: its meaning
    changes in a future Python) is an error: no warning reaches the user's terminal, and the verdict
    cannot change with the Python version."""
    if len(pattern) > REGEX_MAX_LENGTH:
        raise re.error(f"longer than {REGEX_MAX_LENGTH} characters, more than ek compiles")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return _parser.parse(pattern)
        except (FutureWarning, DeprecationWarning) as warning:
            raise re.error(f"{warning} (Python warns that its meaning will change: escape that character)") from None
        except RecursionError:
            raise re.error(_TOO_DEEP_FOR_RE) from None


#: Why a pattern ``re`` itself cannot read for its nesting (it parses and compiles groups recursively).
_TOO_DEEP_FOR_RE = "groups nested too deeply for Python's re to read (it runs out of recursion); nest fewer groups"


def _compiled(pattern: str) -> re.Pattern[str]:
    """``re.compile(pattern)``, its running out of recursion an ``re.error`` that says why."""
    try:
        return re.compile(pattern)
    except RecursionError:
        raise re.error(_TOO_DEEP_FOR_RE) from None


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, or ``re.error`` (also for a pattern ``re`` warns about), ``OverflowError`` or
    ``RecursionError``: the one way a schema regex is compiled, so every owner refuses the same ones."""
    _parsed(pattern)
    return _compiled(pattern)


def is_safe(pattern: str) -> bool:
    """Can ``pattern`` be matched in linear time (and compiled)? The question of every caller that only drops."""
    try:
        return pattern_problem(pattern) is None
    except (re.error, OverflowError, RecursionError, ValueError, TypeError):
        return False


def fullmatch(pattern: str, value: str) -> bool:
    """Does ``value`` match all of ``pattern``? Raises :class:`UnsafePattern` for a pattern that could
    backtrack (a grammar built in code that never went through ``ek lint``).

    >>> fullmatch("[A-Z]{3}", "JFK"), fullmatch("[A-Z]{3}", "JFKX")
    (True, False)
    """
    problem = pattern_problem(pattern)
    if problem is not None:
        raise UnsafePattern(pattern, problem)
    return re.fullmatch(pattern, value) is not None


def starts_with_repeat(pattern: str, atom: str, fewest: int) -> bool:
    """Does ``re`` read ``pattern`` as ``atom`` repeated at least ``fewest`` times (greedily or lazily), then
    the rest? (The importer's question before it shortens such a start.)

    >>> starts_with_repeat(r"\\d+-\\d", r"\\d", 1), starts_with_repeat("a|b+", "a", 1), starts_with_repeat("a++b", "a", 1)
    (True, False, False)
    """
    try:
        first, single = list(_parsed(pattern)), list(_parsed(atom))
    except (re.error, RecursionError, OverflowError):
        return False
    if not first or first[0][0] not in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        return False
    lo, _hi, body = first[0][1]
    return lo == fewest and list(body) == single


def _problem(tree: Any, flags: int, *, anchored: bool, tail_anything: bool) -> PatternProblem | None:
    try:
        auto = build(tree, flags, anchored=anchored, tail_anything=tail_anything)
    except Refused as refused:
        return _refused(refused)
    except TooLarge:
        auto = None
    finding = find_problem(auto) if auto is not None else None
    if auto is None or (finding is not None and finding.kind == "too-complex"):
        try:  # fewer positions: every repetition a loop; a pass here is a pass (it only has more paths)
            coarse = build(tree, flags, exact=False, anchored=anchored, tail_anything=tail_anything)
        except TooLarge:
            return PatternProblem("unchecked", f"more than {REGEX_MAX_POSITIONS} characters to match once its "
                                               "counted repetitions are expanded", shown(tree), "use a shorter pattern")
        if find_problem(coarse) is not None:
            return PatternProblem("unchecked", "too many overlapping parts to check in reasonable time", shown(tree),
                                  "simplify the pattern")
        auto, finding = coarse, None
    if finding is not None:
        return _explain(auto, finding, tree)
    for look in auto.lookarounds:
        lo_hi = look.body.getwidth()
        if lo_hi[1] >= _c.MAXREPEAT and look.position in auto.looped:
            return PatternProblem(
                "quadratic", "a lookaround that reads ahead without bound, placed in or after a repetition, runs "
                             "again at every position", shown_item(*_node(auto, look.node)),
                "check the condition once, at the start of the pattern, or bound what it reads")
        inner = _problem(look.body, look.flags, anchored=False, tail_anything=True)
        if inner is not None:
            return attrs.evolve(inner, cause=f"inside {shown_item(*_node(auto, look.node))}, {inner.cause}")
    return None


def _node(auto: Automaton, node: int) -> tuple[Any, Any]:
    item = auto.nodes[node]
    return item.op, item.av


def _refused(refused: Refused) -> PatternProblem:
    return PatternProblem("unchecked", f"{refused.what}, which ek does not run", shown_item(*refused.item),
                          "match the text itself instead (ek runs no backreferences or conditional groups)")


def _ancestors(auto: Automaton, node: int) -> list[int]:
    out = []
    current: int | None = node
    while current is not None and current >= 0:
        out.append(current)
        current = auto.nodes[current].parent
    return out


def _loops_through(auto: Automaton, positions: frozenset[int]) -> list[int]:
    """The repetitions that go around inside ``positions`` (one of their steps back to a start is in it),
    outermost first."""
    loops = [node for node, backs in auto.loop_backs.items()
             if node >= 0 and any(x in positions and y in positions for x, y in backs)]
    return sorted(loops, key=lambda node: len(_ancestors(auto, node)))


def _part(auto: Automaton, node: int | None, tree: Any) -> str:
    return shown(tree) if node is None else shown_item(*_node(auto, node))


def _explain(auto: Automaton, finding: Finding, tree: Any) -> PatternProblem:
    widened = _widened_in(auto, finding)
    if widened is not None:
        return widened
    if finding.kind == "exponential":
        return _explain_exponential(auto, finding, tree)
    if finding.kind == "polynomial":
        first, second = (_part(auto, next(iter(_loops_through(auto, loop)), None), tree) for loop in finding.loops)
        return PatternProblem(
            "quadratic or worse", "two repetitions one after the other that can match the same text, with nothing "
                                  "between them that only one can match", f"{first} and {second}",
            "merge them ([a-z]+[a-z]* is [a-z]+) or require a separator the first cannot match "
            "([^.]+\\.[a-z]+, not .+\\..+)")
    if finding.kind == "many-ways":
        return PatternProblem("exponential", "too many ways to read the same text (alternatives or optional parts "
                                             "that overlap, one after another)", shown(tree),
                              "remove the alternatives or optional parts that can match the same text")
    return PatternProblem("unchecked", "too many overlapping parts to check in reasonable time", shown(tree),
                          "simplify the pattern")


def _widened_in(auto: Automaton, finding: Finding) -> PatternProblem | None:
    """The refusal of a finding that goes around a counted repetition too large to expand: the automaton reads
    it as "the first few, then any number", so the backtracking found may be the widening's alone
    (``(?:a{100}){100}`` reads one way; ``(?:a+){100}`` does not). Such a pattern is unchecked, not proven slow."""
    if finding.kind not in ("exponential", "polynomial"):
        return None
    loops = [node for cycle in (finding.cycle, *finding.loops) if cycle for node in _loops_through(auto, cycle)]
    widened = [node for node in loops if node in auto.widened]
    if not widened or any(node in auto.empty_rounds for node in widened):
        return None  # a body that can match the empty text, counted past a few, has many readings anyway
    return PatternProblem("unchecked", "a counted repetition too large to check exactly (ek reads it as any number "
                                       "of rounds, which could backtrack)", _part(auto, widened[0], tree=None),
                          "use a smaller count, or + or * where any count will do")


def _explain_exponential(auto: Automaton, finding: Finding, tree: Any) -> PatternProblem:
    loops = _loops_through(auto, finding.cycle)
    outer = loops[0] if loops else None
    part = _part(auto, outer, tree)
    nested = outer is not None and any(outer in _ancestors(auto, inner)[1:] for inner in loops[1:])
    branch = False
    if len(finding.positions) == 2:
        a, b = (set(_ancestors(auto, auto.positions[x].node)) for x in finding.positions)
        shared = max(a & b, key=lambda n: len(_ancestors(auto, n)), default=None)
        branch = shared is not None and auto.nodes[shared].op is _c.BRANCH
    alternation = PatternProblem("exponential", "an alternation inside a repetition whose branches can match the "
                                                "same text", part,
                                 "make the branches unable to match the same text: (a|aa)+ is a+, (ab|abab)* is (ab)*")
    if branch:
        return alternation
    if nested:
        return PatternProblem("exponential", "a repetition inside a repetition", part,
                              "repeat the inner part only once: (a+)+ is a+, (\\w+\\s?)+ is \\w+(\\s\\w+)*")
    if outer in auto.empty_rounds:
        return PatternProblem("exponential", "a repetition whose body can match the empty text", part,
                              "make the body match at least one character: (a?b?)* is (a|b)*")
    if outer is not None and any(item.op is _c.BRANCH and outer in _ancestors(auto, index)
                                 for index, item in enumerate(auto.nodes)):
        return alternation
    return PatternProblem("exponential", "a repetition whose body can match the same text in more than one way",
                          part, "rewrite it so a text splits into rounds only one way")
