"""The parameter order of BFCL's multi-turn API functions, read from BFCL's own source with ``ast``, never run.

A few of BFCL's multi-turn ground-truth calls pass an argument by position
(``sort('final_report.pdf')``, ``cd('temp')``): BFCL executes them against its
simulated APIs, where Python binds the value to the method's first parameter.
ek matches arguments by name, so it needs that same binding, and takes it from
where BFCL's execution takes it: the method signatures in
``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/*.py``. The files
are parsed with :func:`ast.parse` and only the ``def`` lines are read; nothing
in them is imported or executed. (The function docs shown to the model,
``data/multi_turn_func_doc``, are not used: at least one lists its parameters
in another order than the method takes them, ``purchase_insurance``.)

The folder is found beside the BFCL data files given (the layout of both the
``bfcl-eval`` package and the gorilla repository), else in the installed
``bfcl-eval`` package, else where the user points (``--bfcl-source``).
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from ek.boundedread import open_input, read_at_most
from ek.limits import BFCL_SOURCE_MAX_BYTES

#: Where BFCL keeps the source of its multi-turn APIs, inside the ``bfcl_eval`` package folder.
SOURCE_SUBDIR = Path("eval_checker", "multi_turn_eval", "func_source_code")


class SignatureError(ValueError):
    """BFCL's API source cannot be read: a missing folder, a file too large or not Python."""


@attrs.frozen
class Signatures:
    """Each public API method's positional parameters, by method name, as BFCL's classes declare them.

    A name two classes declare with different parameters is ambiguous (the memory backends share
    method names): binding a positional argument to it is refused rather than guessed.
    """

    source: str
    by_name: Mapping[str, tuple[tuple[str, ...], ...]]

    def params(self, name: str) -> tuple[str, ...] | None:
        """``name``'s parameters in order; None when no class declares it, or classes disagree."""
        found = self.by_name.get(name)
        return found[0] if found is not None and len(found) == 1 else None

    def why_not(self, name: str) -> str:
        """Why :meth:`params` gives no order for ``name``, in words."""
        found = self.by_name.get(name)
        if not found:
            return f"no API class in {self.source} declares {name!r}"
        shown = "; ".join(f"({', '.join(p)})" for p in found)
        return f"API classes in {self.source} declare {name!r} with different parameters: {shown}"


def read_signatures(folder: str | Path) -> Signatures:
    """The signatures of every public method of every class in the ``*.py`` files of ``folder``.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "fs.py").write_text("class FS:\\n    def sort(self, file_name: str, reverse=False): ...\\n")
    >>> read_signatures(d).params("sort")
    ('file_name', 'reverse')
    """
    root = Path(folder)
    if not root.is_dir():
        raise SignatureError(f"{root}: not a folder of BFCL's API source")
    collected: dict[str, list[tuple[str, ...]]] = {}
    files = sorted(root.glob("*.py"))
    if not files:
        raise SignatureError(f"{root}: no Python files (expected BFCL's {SOURCE_SUBDIR.as_posix()})")
    for path in files:
        for name, params in _methods(path):
            known = collected.setdefault(name, [])
            if params not in known:
                known.append(params)
    return Signatures(str(root), {name: tuple(found) for name, found in collected.items()})


def _methods(path: Path) -> Iterable[tuple[str, tuple[str, ...]]]:
    size = path.stat().st_size
    if size > BFCL_SOURCE_MAX_BYTES:
        raise SignatureError(f"{path}: {size:,} bytes, more than BFCL's API source could be "
                             f"({BFCL_SOURCE_MAX_BYTES:,})")
    try:
        with open_input(path) as handle:
            source = read_at_most(handle, BFCL_SOURCE_MAX_BYTES, str(path))
        tree = ast.parse(source, filename=str(path))
    except OSError as exc:
        raise SignatureError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise SignatureError(f"{path}: not Python source BFCL ships: {exc}") from None
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not item.name.startswith("_"):
                yield item.name, _positional_params(item.args)


def _positional_params(args: ast.arguments) -> tuple[str, ...]:
    """The parameters a positional argument can bind to, ``self`` left out (static methods keep all)."""
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    return tuple(names[1:] if names and names[0] in ("self", "cls") else names)


def find_source(hints: Sequence[str | Path | None] = ()) -> Path | None:
    """BFCL's API source folder: beside one of the BFCL data files in ``hints``, else in the installed package.

    A data file sits in ``bfcl_eval/data/`` (questions) or ``bfcl_eval/data/possible_answer/`` (answers),
    in the ``bfcl-eval`` package and the gorilla repository alike, so the source is under a parent.
    """
    for hint in hints:
        if hint is None:
            continue
        for parent in Path(hint).resolve().parents:
            candidate = parent / SOURCE_SUBDIR
            if candidate.is_dir():
                return candidate
    spec = importlib.util.find_spec("bfcl_eval")  # locates the package; imports nothing
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / SOURCE_SUBDIR
            if candidate.is_dir():
                return candidate
    return None


def load_signatures(source: str | Path | Signatures | None = None,
                    hints: Sequence[str | Path | None] = ()) -> Signatures | None:
    """The signatures in ``source`` (a folder the user named: errors propagate as :class:`SignatureError`;
    or signatures already read from it, given back as they are), else in the folder :func:`find_source`
    finds from ``hints``; None when there is none, or it is unreadable (then positional ground truth is an
    error line saying how to point ek at the source)."""
    if isinstance(source, Signatures):
        return source
    if source is not None:
        return read_signatures(source)
    found = find_source(hints)
    if found is None:
        return None
    try:
        return read_signatures(found)
    except SignatureError:
        return None


__all__ = ["SOURCE_SUBDIR", "SignatureError", "Signatures", "find_source", "load_signatures", "read_signatures"]
