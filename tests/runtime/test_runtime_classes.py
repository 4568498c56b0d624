"""The attrs classes of generated modules, built from their data rows on first use (ek.runtime.classes)."""

from __future__ import annotations


def test_repr_of_a_class_holding_an_int_past_the_str_limit_does_not_raise() -> None:
    """attrs' ``__repr__`` raised on an ``any`` argument holding an int past Python's 4300-digit limit; the classes'
    own writes it as ``<int of N bits>``, and every other value as attrs would."""
    from ek.grammar import parse
    from ek.runtime import compile_grammar

    module = compile_grammar(parse("grammar b 1\ntool t {\n    a: any\n    b: list[str]?\n}\n", filename="b.ek"))
    assert repr(module.T.from_args({"a": 10**5000})) == "T(a=<int of 16610 bits>, b=None)"
    assert repr(module.T.from_args({"a": {"k": [1.5, None]}, "b": ["x"]})) == "T(a={'k': [1.5, None]}, b=('x',))"
