"""verl's own code, run without importing verl: named top-level definitions of one of its installed files.

verl's package imports torch and tensordict at import time, which the tests do not install; the reward
managers' scoring logic needs neither. :func:`verl_defs` reads the installed file (``pip install --no-deps
verl==0.9.1``), keeps the named functions and classes as verl wrote them, and runs them in a namespace
holding the names they use, so a test calls verl's code rather than a copy of it. The namespace has no
``__name__``: no module can be imported to find them, so Ray (cloudpickle) sends them by value, as it sends
verl's own to its workers.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

import pytest


def verl_file(relative: str) -> Path:
    """The installed verl's file ``relative`` (to the package folder); the test is skipped without verl."""
    spec = importlib.util.find_spec("verl")
    if spec is None or spec.origin is None:
        pytest.skip("verl is not installed (pip install --no-deps 'verl==0.9.1' to run this test; verl 0.9.1 "
                    "runs on Python below 3.13)")
    return Path(spec.origin).parent / relative


def verl_defs(relative: str, names: tuple[str, ...], namespace: dict[str, Any]) -> dict[str, Any]:
    """The definitions ``names`` of verl's ``relative`` file, run in ``namespace`` (returned, with them added)."""
    path = verl_file(relative)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kept = [node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names]
    missing = set(names) - {node.name for node in kept}
    assert not missing, f"verl's {relative} no longer defines {sorted(missing)}: check what it does now"
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102 - verl's code
    return namespace


def keyword_names_of_call(relative: str, function: str, callee: str) -> set[str]:
    """The keyword names of the call to ``callee`` (``self.compute_score``) inside ``function`` of verl's file."""
    tree = ast.parse(verl_file(relative).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and ast.unparse(call.func) == callee:
                    return {kw.arg if kw.arg is not None else "**" + ast.unparse(kw.value) for kw in call.keywords}
    raise AssertionError(f"verl's {relative} has no call to {callee} in {function}: check what it does now")
