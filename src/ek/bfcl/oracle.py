"""BFCL's own AST checker, when ``bfcl-eval`` is installed: a development-time oracle, never a dependency.

Importing ``bfcl_eval``'s checker normally pulls in every model handler (and
their SDKs) through its model table, which it consults only to rename dotted
function names for some models. When that import fails, the checker module
is loaded on its own with a stand-in table that says "no renaming".
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
import types
from collections.abc import Callable
from typing import Any

#: ``(functions, decoded_output, ground_truth, category) -> {"valid": ..., "error_type": ...}``
OracleChecker = Callable[[list[Any], list[Any], list[Any], str], dict[str, Any]]


class _NoRename:
    underscore_to_dot = False


class _Table(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> _NoRename:
        return _NoRename()


def load_bfcl_checker() -> OracleChecker | None:
    """BFCL's ``ast_checker`` wrapped to take a category name, or ``None`` if bfcl-eval is absent."""
    try:
        enums = importlib.import_module("bfcl_eval.constants.enums")
    except ImportError:
        return None
    try:
        module: Any = importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker")
    except ImportError:
        module = _load_isolated()
    if module is None:
        return None
    language = enums.Language

    def run(functions: list[Any], decoded: list[Any], ground_truth: list[Any], category: str) -> dict[str, Any]:
        lang = language.JAVASCRIPT if "javascript" in category else language.JAVA if "java" in category \
            else language.PYTHON
        result: dict[str, Any] = module.ast_checker(functions, decoded, ground_truth, lang, category, "ek_oracle")
        return result

    return run


def _load_isolated() -> Any:
    spec = importlib.util.find_spec("bfcl_eval.eval_checker.ast_eval.ast_checker")
    if spec is None or spec.origin is None:
        return None
    stand_in = types.ModuleType("bfcl_eval.constants.model_config")
    stand_in.MODEL_CONFIG_MAPPING = _Table()  # type: ignore[attr-defined]
    key = "bfcl_eval.constants.model_config"
    saved = sys.modules.get(key)
    sys.modules[key] = stand_in
    try:
        isolated = importlib.util.spec_from_file_location("_ek_bfcl_ast_checker", spec.origin)
        assert isolated is not None and isolated.loader is not None
        module = importlib.util.module_from_spec(isolated)
        isolated.loader.exec_module(module)
        return module
    except ImportError:
        return None
    finally:
        if saved is None:
            sys.modules.pop(key, None)
        else:
            sys.modules[key] = saved


#: BFCL's prompting decoder: model text -> decoded ``[{"func": {...}}]`` (raises on text it cannot read).
OracleDecoder = Callable[[str], list[Any]]

_DECODER_FUNCTIONS = ("ast_parse", "resolve_ast_call", "resolve_ast_by_type", "default_decode_ast_prompting")


def load_bfcl_decoder() -> OracleDecoder | None:
    """BFCL's ``default_decode_ast_prompting`` for Python text, or ``None`` if bfcl-eval is absent.

    Its module imports every model handler's dependencies, so the four
    functions the decoder is made of are compiled from its source on their
    own. Like BFCL, the decoder ``eval``s arithmetic: give it trusted text only.
    """
    decode = _decoder()
    if decode is None:
        return None

    def run(text: str) -> list[Any]:
        result: list[Any] = decode(text)
        return result

    return run


def load_bfcl_variation_decoder() -> Callable[[str, str, bool], list[Any]] | None:
    """BFCL's decoder of a format-sensitivity output: ``(text, return_format, has_tool_call_tag) -> decoded``
    (``return_format``: ``python``, ``json``, ``verbose_xml`` or ``concise_xml``), or ``None`` if bfcl-eval is
    absent. It ``literal_eval``s XML array and dict values and parses XML with ``xml.etree``: trusted text only."""
    decode = _decoder()
    if decode is None:
        return None
    enums = importlib.import_module("bfcl_eval.constants.enums")

    def run(text: str, return_format: str, has_tool_call_tag: bool) -> list[Any]:
        result: list[Any] = decode(text, enums.ReturnFormat(return_format), has_tool_call_tag)
        return result

    return run


def _decoder() -> Callable[..., list[Any]] | None:
    """``default_decode_ast_prompting`` and the functions it calls, compiled from BFCL's source on their own
    (with its JSON and XML parsers, whose modules import nothing of BFCL's)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or spec.origin is None:
        return None
    try:
        enums = importlib.import_module("bfcl_eval.constants.enums")
        xml_parser = importlib.import_module("bfcl_eval.model_handler.parser.xml_parser")
        json_parser = importlib.import_module("bfcl_eval.model_handler.parser.json_parser")
        path = spec.origin.rsplit("/", 1)[0] + "/model_handler/utils.py"
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
    except (ImportError, OSError, SyntaxError):
        return None
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in _DECODER_FUNCTIONS]
    if len(functions) != len(_DECODER_FUNCTIONS):
        return None
    namespace: dict[str, Any] = {
        "ast": ast, "re": re, "ReturnFormat": enums.ReturnFormat,
        "parse_verbose_xml_function_call": xml_parser.parse_verbose_xml_function_call,
        "parse_concise_xml_function_call": xml_parser.parse_concise_xml_function_call,
        "parse_json_function_call": json_parser.parse_json_function_call,
    }
    exec(compile(ast.Module(body=list(functions), type_ignores=[]), path, "exec"), namespace)  # noqa: S102
    decode: Callable[..., list[Any]] = namespace["default_decode_ast_prompting"]
    return decode
