"""Gold-side value markers: several acceptable values, and arguments that may be omitted.

BFCL's possible answers list every acceptable value of an argument, with
``""`` meaning "may be left out". In ek that is ``OneOf(v1, v2, ...)`` and
``OMITTABLE``:

>>> OneOf("celsius", OMITTABLE)
OneOf('celsius', OMITTABLE)
>>> Omittable("celsius") == OneOf("celsius", OMITTABLE)
True
"""

from __future__ import annotations

from typing import Any

from ek.sentinel import Sentinel

#: The types of JSON's scalars, exactly (``type(v) in``: no subclass): a value of one holds no marker, so the
#: readers and checks of gold values give it back at once.
JSON_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


class _Omittable(Sentinel):
    """Marker: the gold argument may be absent from the prediction."""

    NAME = "OMITTABLE"


#: Use as a gold value (alone or inside :class:`OneOf`): leaving the argument out is correct.
OMITTABLE: Any = _Omittable()


class OneOf:
    """A gold value that accepts any one of several alternatives (BFCL "possible answers").

    Alternatives are kept in order; ``OMITTABLE`` among them means the argument
    may also be omitted. Nested ``OneOf`` values are flattened.
    """

    __slots__ = ("alternatives",)

    alternatives: tuple[Any, ...]

    def __init__(self, *alternatives: Any) -> None:
        if not alternatives:
            raise ValueError("OneOf needs at least one acceptable value")
        flat: list[Any] = []
        for alt in alternatives:
            flat.extend(alt.alternatives if isinstance(alt, OneOf) else (alt,))
        object.__setattr__(self, "alternatives", tuple(flat))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("OneOf is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (OneOf, self.alternatives)

    @property
    def omittable(self) -> bool:
        """True when leaving the argument out is acceptable."""
        return any(alt is OMITTABLE for alt in self.alternatives)

    @property
    def values(self) -> tuple[Any, ...]:
        """The acceptable present values (without ``OMITTABLE``)."""
        return tuple(alt for alt in self.alternatives if alt is not OMITTABLE)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OneOf) and self.alternatives == other.alternatives

    def __hash__(self) -> int:
        return hash(("OneOf", tuple(map(repr, self.alternatives))))

    def __repr__(self) -> str:
        return f"OneOf({', '.join(map(repr, self.alternatives))})"


def Omittable(value: Any) -> OneOf:  # noqa: N802 - reads as a type at call sites
    """``value``, or nothing at all: shorthand for ``OneOf(value, OMITTABLE)``."""
    return OneOf(value, OMITTABLE)


def is_omittable(gold_value: Any) -> bool:
    """True when a gold value accepts the argument being left out."""
    return gold_value is OMITTABLE or (isinstance(gold_value, OneOf) and gold_value.omittable)
