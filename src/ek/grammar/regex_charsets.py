"""The characters one position of a regex can read, and whether two such sets can share a character.

The backtracking analysis of :mod:`ek.grammar.regexes` asks two questions of
character sets: can these two read the same character (then two paths can
read the same text), and does this union read every character (then what
follows can always continue). Both answers may err only one way: "they may
share a character" and "not every character" when unsure, which makes the
analysis call more patterns ambiguous, never fewer.

Sets mirror what ``re`` matches on ``str``: ``\\d`` is ``str.isdecimal``,
``\\w`` is ``str.isalnum`` or ``_``, ``\\s`` is ``str.isspace`` (their ASCII
forms under ``(?a)``), ``.`` is everything but a newline (everything under
``(?s)``). Under ``(?i)`` a set that holds a cased character may also read any
other cased character, which covers every case folding ``re`` knows.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

import attrs

#: Ranges longer than this are not scanned character by character; a question about them answers "maybe".
_SCAN_LIMIT = 4096

_ASCII_DIGIT = ((0x30, 0x39),)
_ASCII_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_ASCII_SPACE = ((0x09, 0x0D), (0x20, 0x20))  # what re's (?a)\s reads: \t \n \v \f \r and space


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _is_cased(ch: str) -> bool:
    """A character ``(?i)`` may match other than itself has a case mapping other than itself."""
    return ch.lower() != ch or ch.upper() != ch or ch.casefold() != ch


#: The Unicode categories a class can name, as predicates on one character.
_CATEGORY: dict[str, Callable[[str], bool]] = {
    "digit": str.isdecimal,
    "word": _is_word,
    "space": str.isspace,
    "cased": _is_cased,
}
for _name, _test in list(_CATEGORY.items()):
    _CATEGORY["not_" + _name] = lambda ch, _test=_test: not _test(ch)  # type: ignore[misc]

#: Pairs of categories that share no character (checked over every code point by tests/grammar).
DISJOINT_CATEGORIES = frozenset(
    frozenset(pair)
    for pair in (
        ("digit", "space"), ("word", "space"), ("digit", "not_digit"), ("word", "not_word"),
        ("space", "not_space"), ("digit", "not_word"), ("cased", "space"), ("cased", "digit"),
        ("cased", "not_cased"),
    )
)



@attrs.frozen
class Part:
    """One piece of a set: a range ``lo..hi`` of code points, a category, or everything but some ranges."""

    kind: str  # "range", "category" or "except"
    lo: int = 0
    hi: int = -1
    category: str = ""
    ranges: tuple[tuple[int, int], ...] = ()

    def __contains__(self, code: int) -> bool:
        if self.kind == "range":
            return self.lo <= code <= self.hi
        if self.kind == "category":
            return _CATEGORY[self.category](chr(code))
        return not any(lo <= code <= hi for lo, hi in self.ranges)


def char_range(lo: int, hi: int) -> Part:
    return Part("range", lo, hi)


def category(name: str) -> Part:
    return Part("category", category=name)


def everything_except(ranges: Iterable[tuple[int, int]]) -> Part:
    return Part("except", ranges=tuple(sorted(ranges)))


@attrs.frozen
class CharSet:
    """The union of ``parts``, or everything outside it when ``negated`` (``[^...]``)."""

    parts: tuple[Part, ...]
    negated: bool = False
    #: The range parts merged into disjoint spans, sorted (starts, ends): a member test bisects them, so a
    #: class of thousands of characters answers in log time, not one comparison per character.
    _spans: tuple[tuple[int, ...], tuple[int, ...]] = attrs.field(init=False, eq=False, repr=False)
    #: The parts that are not ranges (categories, everything-except), tested one by one.
    _others: tuple[Part, ...] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_spans", _merged_spans(p for p in self.parts if p.kind == "range"))
        object.__setattr__(self, "_others", tuple(p for p in self.parts if p.kind != "range"))

    def __contains__(self, code: int) -> bool:
        starts, ends = self._spans
        i = bisect.bisect_right(starts, code) - 1
        inside = (i >= 0 and code <= ends[i]) or any(code in part for part in self._others)
        return inside != self.negated

    @property
    def is_everything(self) -> bool:
        return covers_everything([self])


def _merged_spans(ranges: Iterable[Part]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The code points of range parts as disjoint sorted spans: their starts and their ends.

    >>> _merged_spans([char_range(5, 9), char_range(0, 2), char_range(3, 4), char_range(20, 20)])
    ((0, 20), (9, 20))
    """
    starts: list[int] = []
    ends: list[int] = []
    for part in sorted(ranges, key=lambda p: p.lo):
        if part.lo > part.hi:
            continue
        if ends and part.lo <= ends[-1] + 1:
            ends[-1] = max(ends[-1], part.hi)
        else:
            starts.append(part.lo)
            ends.append(part.hi)
    return tuple(starts), tuple(ends)


#: Every character: ``[\\s\\S]``, ``(?s).``.
ANYTHING = CharSet((everything_except(()),))


def named_category(name: str, ascii_only: bool) -> Part:
    """``\\d``, ``\\w``, ``\\s`` (``name`` ``digit``/``word``/``space``, or ``not_...``) as a part."""
    if not ascii_only:
        return category(name)
    negated = name.startswith("not_")
    ranges = {"digit": _ASCII_DIGIT, "word": _ASCII_WORD, "space": _ASCII_SPACE}[name.removeprefix("not_")]
    if negated:
        return everything_except(ranges)
    return Part("except", ranges=_complement(ranges))


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out, start = [], 0
    for lo, hi in sorted(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return tuple(out)


def ignoring_case(charset: CharSet) -> CharSet:
    """``charset`` under ``(?i)``: a positive set that may hold a cased character may read any cased one.

    A negated set is kept as it is: ignoring case only takes more characters out of it, and a
    larger set than the real one errs the safe way.
    """
    if charset.negated or not any(_may_hold(part, "cased") for part in charset.parts):
        return charset
    return CharSet((*charset.parts, category("cased")))


def _may_hold(part: Part, name: str) -> bool:
    """Might ``part`` hold a character of category ``name``? ("maybe" is True)."""
    return _parts_meet(part, category(name))


def _range_may_hold(lo: int, hi: int, test: Callable[[str], bool]) -> bool:
    if hi - lo > _SCAN_LIMIT:
        return True
    return any(test(chr(code)) for code in range(lo, hi + 1))


def _parts_meet(a: Part, b: Part) -> bool:
    """Might parts ``a`` and ``b`` share a character? ("maybe" is True)."""
    if a.kind == "except" or b.kind == "except":
        other, exc = (b, a) if a.kind == "except" else (a, b)
        if other.kind == "range":
            return not _range_inside(other.lo, other.hi, exc.ranges)
        if other.kind == "except":
            return True
        return True  # a category is never only a few ranges
    if a.kind == "range" and b.kind == "range":
        return a.lo <= b.hi and b.lo <= a.hi
    if a.kind == "category" and b.kind == "category":
        if frozenset((a.category, b.category)) in DISJOINT_CATEGORIES:
            return False
        return not (_inside_category(a.category, _negation(b.category))
                    or _inside_category(b.category, _negation(a.category)))
    rng, cat = (a, b) if a.kind == "range" else (b, a)
    return _range_may_hold(rng.lo, rng.hi, _CATEGORY[cat.category])


def _negation(name: str) -> str:
    return name.removeprefix("not_") if name.startswith("not_") else "not_" + name


def _inside_category(small: str, big: str) -> bool:
    """Is category ``small`` inside category ``big``? (``\\d`` is inside ``\\w``; ``\\s`` inside ``\\W``.)"""
    if small == big or (small, big) == ("digit", "word"):
        return True
    return big.startswith("not_") and frozenset((small, big[4:])) in DISJOINT_CATEGORIES


def _range_inside(lo: int, hi: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    """Is ``lo..hi`` inside the union of ``ranges``?"""
    position = lo
    for r_lo, r_hi in ranges:  # sorted
        if r_lo <= position <= r_hi:
            position = r_hi + 1
            if position > hi:
                return True
    return False


def _part_inside(part: Part, union: tuple[Part, ...]) -> bool:
    """Is every character of ``part`` in the union of ``union``? ("not sure" is False)."""
    if part.kind == "range":
        if part.hi - part.lo > _SCAN_LIMIT:
            return any(u.kind == "range" and u.lo <= part.lo and part.hi <= u.hi for u in union) or any(
                u.kind == "except" and _range_inside_complement(part.lo, part.hi, u.ranges) for u in union)
        return all(any(code in u for u in union) for code in range(part.lo, part.hi + 1))
    if part.kind == "category":
        test = _CATEGORY[part.category]
        return any(u.kind == "category" and _inside_category(part.category, u.category) for u in union) or any(
            u.kind == "except" and not any(_range_may_hold(lo, hi, test) for lo, hi in u.ranges) for u in union)
    # everything but some ranges: inside the union when the union also covers those ranges' complement
    return any(u.kind == "except" and all(_range_inside(lo, hi, part.ranges) for lo, hi in u.ranges) for u in union)


def _range_inside_complement(lo: int, hi: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return not any(r_lo <= hi and lo <= r_hi for r_lo, r_hi in ranges)


def meet(a: CharSet, b: CharSet) -> bool:
    """Might ``a`` and ``b`` share a character? True when unsure.

    >>> digits, dot = CharSet((category("digit"),)), CharSet((char_range(46, 46),))
    >>> meet(digits, dot), meet(digits, CharSet((category("word"),))), meet(dot, CharSet(dot.parts, negated=True))
    (False, True, False)
    """
    if a.negated and b.negated:
        return True
    if a.negated or b.negated:
        neg, pos = (a, b) if a.negated else (b, a)
        return not all(_part_inside(part, neg.parts) for part in pos.parts)
    return any(_parts_meet(x, y) for x in a.parts for y in b.parts)


def covers_everything(sets: Iterable[CharSet]) -> bool:
    """Does the union of ``sets`` hold every character? False when unsure.

    >>> covers_everything([CharSet((category("space"), category("not_space")))]), covers_everything([ANYTHING])
    (True, True)
    >>> covers_everything([CharSet((everything_except([(10, 10)]),))])
    False
    """
    sets = list(sets)
    positive = tuple(part for s in sets if not s.negated for part in s.parts)
    for s in sets:
        if s.negated and all(_part_inside(part, positive) for part in s.parts):
            return True
    names = {p.category for p in positive if p.kind == "category"}
    if any(_negation(name) in names for name in names):
        return True
    return any(p.kind == "except" and all(_part_inside(char_range(lo, hi), positive) for lo, hi in p.ranges)
               for p in positive)
