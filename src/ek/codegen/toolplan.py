"""A one-tool validator module as a plan (:class:`ToolValidatorPlan`) and the name of the function it defines.

Apart from the emitter that makes plans, so the runtime that compiles them (:mod:`ek.runtime.shapecode`) and the
scorer that imports it do not load the emitter and jinja2 until a validator is compiled.
"""

from __future__ import annotations

import attrs

#: The function a one-tool validator module defines (``validate_args(args)``).
TOOL_VALIDATOR_NAME = "validate_args"


@attrs.frozen
class ToolValidatorPlan:
    """:func:`ek.codegen.emitter.render_tool_validator`'s module as a *shape* and what fills it: ``skeleton``
    is its text with each string literal made a marker ``\x00<k>\x00`` (``strings[k]`` the string it writes)
    and its origin comment ``\x00O\x00`` (``origin``). Tools alike but for their names and messages share a skeleton,
    which :mod:`ek.runtime.shapecode` compiles once. Markers cannot occur in the text otherwise (``repr``
    writes a NUL byte as ``\x00``), and every string was checked to be writable (no lone surrogate)."""

    skeleton: str
    strings: tuple[str, ...]
    origin: str

    def text(self) -> str:
        """The module's source: each marker replaced by the ``repr`` of its string (what ``py_literal`` writes
        for a ``str``), and the origin comment."""
        parts = self.skeleton.split("\x00")
        strings, origin = self.strings, self.origin
        parts[1::2] = [origin if marker == "O" else repr(strings[int(marker)]) for marker in parts[1::2]]
        return "".join(parts)
