"""BFCL's own AST checker, when ``bfcl-eval`` is installed: a development-time oracle, never a dependency.

Importing ``bfcl_eval``'s checker normally pulls in every model handler (and
their SDKs) through its model table, which it consults only to rename dotted
function names for some models. When that import fails, the checker module
is loaded on its own with a stand-in table that says "no renaming".
"""

from __future__ import annotations

import importlib
import importlib.util
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
