"""What a validator reports: a located violation, and the error ``from_args`` raises.

Validators build violations on their error paths, so building one must be
cheap: generated code stores the message's pieces, ``(head, value)`` where
``head`` is a :class:`Head` ``(path, text, render)`` made once per check when
the module is imported (or ``(path, text, render, value)`` when the path holds
a list index), and ``reason`` is only formatted when it is read. To everything
outside, a violation is the pair ``(path, reason)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Self, SupportsIndex

# How a reason shows a value: owned by ek.grammar.reprs, so ek.grammar.fits writes the same text; generated
# modules import ``short_repr`` from here.
from ek.grammar.reprs import safe_repr as safe_repr
from ek.grammar.reprs import short_repr as short_repr

_tuple_len = tuple.__len__
_tuple_getitem = tuple.__getitem__


class _ViolationMeta(type):
    """Gives ``Violation(path, reason)`` its public signature; generated code skips it (see ``make_violation``)."""

    def __call__(cls, path: str, reason: str) -> Violation:
        if not isinstance(path, str) or not isinstance(reason, str):
            raise TypeError(f"Violation(path, reason) takes two strings, got {type(path).__name__} "
                            f"and {type(reason).__name__}")
        return type.__call__(cls, (path, reason))  # type: ignore[no-any-return]


class Head(tuple):  # type: ignore[type-arg]
    """The fixed part of a violation whose reason shows the value: ``(path, text, render)``.

    A generated module builds one per check at import (``_H3 = _VH(("$.origin", "must fully match
    /[A-Z]{3}/, got ", _repr80))``); its error path then builds ``(head, value)``, two slots to fill
    instead of four (a third of what building the violation costs besides the object itself).
    """

    __slots__ = ()


def _path_text(path: str | tuple[object, ...]) -> str:
    """A path given as pieces (``("$.names[", 2, "]")``, built in a list loop) joined into text, or the
    path of a :class:`Head`."""
    if type(path) is str:
        return path
    if type(path) is Head:
        return _tuple_getitem(path, 0)  # type: ignore[no-any-return]
    return "".join(map(str, path))


class Violation(tuple, metaclass=_ViolationMeta):  # type: ignore[type-arg]
    """One broken rule: a JSON-path-like ``path`` (``$.passenger_names[2]``) and a ``reason``.

    It behaves as the pair ``(path, reason)``: it unpacks, indexes, compares,
    hashes and JSON-encodes like that tuple, whatever its internal layout. (C
    code that reads a tuple's slots directly, such as ``"%s: %s" % v``, sees
    that layout: use ``str(v)`` or the attributes.)

    >>> v = Violation("$.passengers", "must be in [1..9], got 12")
    >>> str(v), v == ("$.passengers", "must be in [1..9], got 12")
    ('$.passengers: must be in [1..9], got 12', True)
    >>> lazy = make_violation((("$.names[", 2, "]"), "expected str, got ", type_name, 7))
    >>> lazy
    Violation(path='$.names[2]', reason='expected str, got int')
    >>> path, reason = lazy
    >>> make_violation((Head(("$.passengers", "must be in [1..9], got ", short_repr)), 12))
    Violation(path='$.passengers', reason='must be in [1..9], got 12')
    """

    __slots__ = ()
    _fields = ("path", "reason")

    if TYPE_CHECKING:  # the public signature; at run time the metaclass provides it

        def __new__(cls, path: str, reason: str) -> Self: ...

    @property
    def path(self) -> str:
        return _path_text(_tuple_getitem(self, 0))

    @property
    def reason(self) -> str:
        if _tuple_len(self) == 2:
            head = _tuple_getitem(self, 0)
            if type(head) is Head:
                return _tuple_getitem(head, 1) + _tuple_getitem(head, 2)(_tuple_getitem(self, 1))  # type: ignore[no-any-return]
            return _tuple_getitem(self, 1)  # type: ignore[no-any-return]
        render = _tuple_getitem(self, 2)
        return _tuple_getitem(self, 1) + render(_tuple_getitem(self, 3))  # type: ignore[no-any-return]

    def _pair(self) -> tuple[str, str]:
        return (self.path, self.reason)

    def _asdict(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}

    def _replace(self, **changes: str) -> Violation:
        return Violation(**(self._asdict() | changes))

    def __iter__(self) -> Iterator[str]:
        return iter(self._pair())

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        return self._pair()[index]

    def __contains__(self, item: object) -> bool:
        return item in self._pair()

    def count(self, value: Any) -> int:
        return self._pair().count(value)

    def index(self, value: Any, *args: Any) -> int:
        return self._pair().index(value, *args)

    def __hash__(self) -> int:
        return hash(self._pair())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, tuple) and self._pair() == tuple(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: tuple[Any, ...]) -> bool:
        return self._pair() < tuple(other)

    def __le__(self, other: tuple[Any, ...]) -> bool:
        return self._pair() <= tuple(other)

    def __gt__(self, other: tuple[Any, ...]) -> bool:
        return self._pair() > tuple(other)

    def __ge__(self, other: tuple[Any, ...]) -> bool:
        return self._pair() >= tuple(other)

    def __add__(self, other: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._pair() + other

    def __mul__(self, n: SupportsIndex) -> tuple[Any, ...]:
        return self._pair() * n

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Violation, self._pair())

    def __repr__(self) -> str:
        return f"Violation(path={self.path!r}, reason={self.reason!r})"

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


#: ``make_violation((path, reason))``, ``make_violation((head, value))`` (a :class:`Head`) or
#: ``make_violation((path, text, render, value))``, whose reason is ``text + render(value)``, formatted
#: when read. A path may be a tuple of pieces, joined when read. C-speed: it calls the type without
#: ``Violation(path, reason)``'s checks.
make_violation: Callable[[tuple[Any, ...]], Violation] = type.__dict__["__call__"].__get__(Violation, type)


def type_name(value: object) -> str:
    """The name of ``value``'s type, for ``expected str, got int``."""
    return type(value).__name__


class ArgumentsError(ValueError):
    """Arguments that do not fit a tool's schema; ``violations`` lists every problem.

    >>> err = ArgumentsError("get_weather", [Violation("$.location", "missing required argument")])
    >>> print(err)
    invalid arguments for tool 'get_weather': $.location: missing required argument
    """

    def __init__(self, tool: str, violations: list[Violation]) -> None:
        self.tool = tool
        self.violations = list(violations)
        listed = "; ".join(str(v) for v in self.violations)
        super().__init__(f"invalid arguments for tool {tool!r}: {listed}")
