"""Reading tool calls out of model outputs, safely: text is parsed, never executed.

``parse_calls`` takes Python call text, OpenAI ``tool_calls``, Anthropic
``tool_use`` blocks, ``{"name", "arguments"}`` objects, BFCL's
``[{"func": {...}}]``, Hermes/Qwen ``<tool_call>`` chat text (a leading
``<think>`` skipped), the native formats of Llama, Mistral, Qwen3-Coder,
DeepSeek (V3 to V4.1's DSML), Granite, Phi-4, gpt-oss (Harmony), Kimi-K2,
GLM-4.5/4.7 and its key/value kin (Tencent Hy3/Hy4, K2 Horizon, Solar Open 2), Kimi-K3 (XTML), MiniMax-M2, Step-3,
dots.llm, MiniCPM 4/5 and MiniMax-M3 (one ``invoke`` reader), Gemma 4 and FunctionGemma, PLaMo 3, the families that
wrap JSON or Python calls in tokens of their own (Jamba, Hunyuan-A13B, Nemotron, LFM2, openPangu, Apertus, Cohere
Command, Qwen2.5-Coder, OLMo 3), Gemini, Bedrock, LangChain and Ollama objects and whole transcripts, and MCP
``tools/call`` requests, as text, bytes or decoded objects, within size and nesting limits. ``register_format``
adds a format. Anything else is a :class:`ParseError` with position and reason. ``coerce_call``/``parse_call_list``
read gold calls given as data.
See ``docs/parsing.md``.
"""

from ek.parsing.api import FORMATS, parse_calls, read_plain_bfcl
from ek.parsing.coerce import coerce_call, parse_call_list
from ek.parsing.errors import ParseError, Position
from ek.parsing.limits import DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE, Limits
from ek.parsing.registry import get as get_format
from ek.parsing.registry import names as format_names
from ek.parsing.registry import register_format, unregister_format
from ek.parsing.render import RENDERERS, render, to_anthropic, to_bfcl, to_hermes, to_json, to_openai, to_python

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_SIZE",
    "FORMATS",
    "Limits",
    "ParseError",
    "Position",
    "RENDERERS",
    "coerce_call",
    "format_names",
    "get_format",
    "register_format",
    "render",
    "unregister_format",
    "parse_call_list",
    "parse_calls",
    "read_plain_bfcl",
    "to_anthropic",
    "to_bfcl",
    "to_hermes",
    "to_json",
    "to_openai",
    "to_python",
]
