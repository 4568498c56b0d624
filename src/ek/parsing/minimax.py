"""MiniMax-M2's native tool calls (M2, M2.1, M2.5, M2.7): ``<invoke>`` elements in ``<minimax:tool_call>`` blocks.

MiniMax's chat template (``chat_template.jinja`` of MiniMaxAI/MiniMax-M2, copied into llama.cpp as
``models/templates/MiniMax-M2.jinja``) writes all the calls of a turn in one block, one ``<invoke>`` a call and
one ``<parameter>`` a line, a string as it is and any other value as JSON (``tojson``)::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    </minimax:tool_call>

The model thinks first (``<think>...</think>``, or only ``</think>`` when the prompt opened it) and may write prose
before and after a block. Tags are found with ``str.find`` (linear, no regex); values are typed as Qwen3-Coder's
and GLM's are (:func:`ek.parsing.native.typed_text`), after the whitespace around them is dropped (vLLM's parser
and MiniMax's own guide strip it). The reader is :mod:`ek.parsing.invoke`'s, shared with Step-3, dots.llm and
MiniCPM, in the :data:`ek.parsing.invoke.MINIMAX_M2` dialect. MiniMax-M3 (``minimax-m3``: every tag after the
token ``]<]minimax[>[``, values nesting as elements) is read there too, in :data:`ek.parsing.invoke.MINIMAX_M3`.
"""

from __future__ import annotations

import attrs

from ek.calls import Step
from ek.parsing.invoke import MINIMAX_M2, read_invokes
from ek.parsing.limits import Limits
from ek.parsing.registry import TypeHint

CALLS_OPEN, CALLS_CLOSE = str(MINIMAX_M2.block_open), str(MINIMAX_M2.block_close)
INVOKE_OPEN, INVOKE_CLOSE = MINIMAX_M2.invoke_open, MINIMAX_M2.invoke_close
PARAM_OPEN, PARAM_CLOSE = MINIMAX_M2.param_open, MINIMAX_M2.param_close
#: What makes a text MiniMax's, for ``auto``: the block's tags (single tokens of MiniMax's vocabulary).
MARKERS = MINIMAX_M2.markers


def read_minimax_m2(text: str, limits: Limits, types: TypeHint | None = None,
                    fmt: str = "minimax-m2") -> list[Step]:
    """Every ``<minimax:tool_call>`` block after a leading ``<think>``, in order; text with none is no calls.

    Each block holds ``<invoke name="TOOL">`` elements (whitespace between tags skipped), each holding
    ``<parameter name="KEY">VALUE</parameter>`` elements. A value is stripped of surrounding whitespace, then
    typed by ``types`` when given, else it is the JSON value when its text parses as JSON, else the text.
    Prose around the blocks is skipped; a ``</minimax:tool_call>`` or ``<invoke name=`` in it is an error.

    >>> read_minimax_m2('Sure.\\n<minimax:tool_call>\\n<invoke name="get_weather">\\n'
    ...                 '<parameter name="city">Paris</parameter>\\n<parameter name="days">3</parameter>\\n'
    ...                 '</invoke>\\n</minimax:tool_call>', Limits())
    [Step(name='get_weather', args={'city': 'Paris', 'days': 3})]
    >>> read_minimax_m2('<minimax:tool_call><invoke name="f"><parameter name="x">1', Limits())
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: minimax-m2: line 1, column 37: parameter 'x' is not closed by </parameter> \
(output cut short?)
    """
    return read_invokes(text, limits, types, MINIMAX_M2 if fmt == MINIMAX_M2.fmt else attrs.evolve(MINIMAX_M2, fmt=fmt))
