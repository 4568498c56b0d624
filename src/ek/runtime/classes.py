"""The attrs classes of a generated module (generator 5 on), built from plain data on first use.

A module of generator 4 carried one factory function of source per class (``_build`` and ``to_args``
written out field by field): 40% of a thousand-tool module's text, compiled by ``ek gen`` and at the
first import, for classes most users of the module never touch. From generator 5 a module carries
each class as a row of plain data (:func:`lazy_classes`), and the class is made here, the first time it
is asked for, with the same name, fields, annotations, defaults, docstring and methods.

A row is ``[docstring, real tool name or None, validator name or None, fields]``; a field is
``[attribute, key, annotation, conversion, required]`` plus the default when it has one (not None).
A conversion says how a validated JSON value becomes the attribute and back: ``None`` (as it is),
``"ClassName"`` (an object: that class's ``_build`` / ``to_args``), ``["L", conversion]`` (a list: a
tuple of converted items / a list). Names are the generator's identifiers and are only looked up, never
run; annotations are strings, as ``from __future__ import annotations`` leaves them (``typing.get_type_hints``
reads them in the module's namespace).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from ek.grammar.reprs import safe_repr
from ek.runtime.support import lazy_attributes
from ek.runtime.violation import ArgumentsError

_Conversion = Any  # None | str | list: see the module docstring
_SCALARS = (type(None), bool, int, float, str)


def _rows(table: str | Mapping[str, Any]) -> dict[str, Any]:
    """The class table: JSON text as ``ek gen`` writes it, or the same data as a literal (a grammar whose
    defaults JSON cannot hold exactly, such as a tuple, is written that way)."""
    return json.loads(table) if isinstance(table, str) else dict(table)


def _classes_in(conversion: _Conversion) -> list[str]:
    """The class names a conversion builds."""
    while isinstance(conversion, list):
        conversion = conversion[1]
    return [conversion] if isinstance(conversion, str) else []


def _builder(conversion: _Conversion, cls_of: Callable[[str], type]) -> Callable[[Any], Any] | None:
    """A function turning a validated JSON value into the attribute value, or None when it is the value itself."""
    if conversion is None:
        return None
    if isinstance(conversion, str):
        build: Callable[[Any], Any] = cls_of(conversion)._build  # type: ignore[attr-defined]
        return build
    inner = _builder(conversion[1], cls_of)
    if inner is None:
        return tuple
    return lambda items: tuple(map(inner, items))


def _unbuilder(conversion: _Conversion) -> Callable[[Any], Any] | None:
    """A function turning an attribute value back into plain JSON data, or None when it is that already."""
    if conversion is None:
        return None
    if isinstance(conversion, str):
        return _to_args
    inner = _unbuilder(conversion[1])
    if inner is None:
        return list
    return lambda items: [inner(item) for item in items]


def _to_args(obj: Any) -> Any:
    return obj.to_args()


def _copy(value: Any) -> Any:
    """A fresh copy of a default read from the table (lists and dicts), so instances never share one."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def build_class(name: str, row: list[Any], namespace: Mapping[str, Any], cls_of: Callable[[str], type]) -> type:
    """The frozen attrs class ``name`` of a generated module, from its row (see the module docstring).

    ``namespace``: the module's globals (its ``__name__``, its validators); ``cls_of``: the module's other
    classes by name (built on demand). The class behaves as the one generator 4 wrote out in source:
    ``from_args`` validates then builds, ``_build`` builds from validated data, ``to_args`` goes back.
    """
    import attrs

    doc, tool, validator_name, fields = row
    annotations: dict[str, str] = {}
    body: dict[str, Any] = {"__module__": namespace.get("__name__"), "__qualname__": name, "__doc__": doc}
    if tool is not None:
        annotations["TOOL_NAME"] = "ClassVar[str]"
        body["TOOL_NAME"] = tool
    plan = []
    for field in fields:
        attr, key, annotation, conversion, required = field[:5]
        annotations[attr] = annotation
        convert = _builder(conversion, cls_of)
        default = field[5] if len(field) > 5 else None
        if default is not None:
            if convert is None and isinstance(default, _SCALARS):
                body[attr] = default
                make_default: Callable[[], Any] | None = lambda default=default: default
            else:
                def make_default(default: Any = default, convert: Callable[[Any], Any] | None = convert) -> Any:
                    return _copy(default) if convert is None else convert(_copy(default))
                body[attr] = attrs.field(factory=make_default)
        else:
            make_default = None
            if not required:
                body[attr] = None
        plan.append((attr, key, required, convert, make_default, _unbuilder(conversion)))
    body["__annotations__"] = annotations

    def _build(cls: type, args: Mapping[str, Any]) -> Any:
        values = {}
        for attr, key, required, convert, make_default, _ in plan:
            if required:
                value = args[key]
            else:
                value = args.get(key)
                if value is None:
                    values[attr] = None if make_default is None else make_default()
                    continue
            values[attr] = value if convert is None else convert(value)
        return cls(**values)

    def to_args(self: Any) -> dict[str, Any]:
        """Back to plain data keyed by the schema's real names (unset optional arguments left out)."""
        out: dict[str, Any] = {}
        for attr, key, required, _, _, unconvert in plan:
            value = getattr(self, attr)
            if required or value is not None:
                out[key] = value if unconvert is None else unconvert(value)
        return out

    body["_build"] = classmethod(_build)
    body["to_args"] = to_args
    if validator_name is not None:
        check = namespace[validator_name]

        def from_args(cls: type, args: Mapping[str, Any]) -> Any:
            """Validate ``args`` (keyed by the schema's real names) and build; raises ArgumentsError."""
            errs = check(args)
            if errs:
                raise ArgumentsError(cls.TOOL_NAME, errs)  # type: ignore[attr-defined]
            return cls._build(args)  # type: ignore[attr-defined]

        body["from_args"] = classmethod(from_args)
    for method in ("_build", "to_args", "from_args"):
        function = body.get(method)
        if function is not None:
            inner = getattr(function, "__func__", function)
            inner.__name__, inner.__qualname__ = method, f"{name}.{method}"
    body["__repr__"] = _repr
    cls: type = attrs.frozen(kw_only=True, repr=False)(type(name, (), body))
    return cls


def _repr(self: Any) -> str:
    """attrs' ``Name(field=value, ...)``, each value by :func:`ek.grammar.reprs.safe_repr`: an ``any`` argument may
    hold an int past Python's 4300-digit limit, which ``repr`` refuses (attrs' own ``__repr__`` raised)."""
    fields = ", ".join(f"{a.name}={safe_repr(getattr(self, a.name))}" for a in type(self).__attrs_attrs__)
    return f"{type(self).__name__}({fields})"


def lazy_classes(namespace: dict[str, Any], table: str | Mapping[str, Any],
                 **values: Callable[[], Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of a generated module (generator 5 on).

    Each class is built the first time it is asked for (``module.Name``, ``from module import Name``,
    pickle), with the classes its fields hold (so ``typing.get_type_hints`` finds them); ``TOOLS`` (real
    tool name -> class, in the grammar's order) builds every tool's class; each of ``values``
    (``GRAMMAR``) is made once. The table is read when first needed. Whatever is built is kept in
    ``namespace``, so it is the same object every time; ``dir()`` lists it all. Thread-safe.
    """
    lock = threading.RLock()
    rows: dict[str, Any] = {}

    def table_rows() -> dict[str, Any]:
        if not rows:
            rows.update(_rows(table))
        return rows

    def load(name: str) -> type:
        cls = namespace.get(name)
        if cls is None:
            row = table_rows()[name]
            cls = build_class(name, row, namespace, load)
            namespace[name] = cls
            for field in row[3]:  # the classes its annotations name, for typing.get_type_hints
                for other in _classes_in(field[3]):
                    load(other)
        return cls  # type: ignore[no-any-return]

    def tool_classes() -> dict[str, str]:
        return {row[1]: cls for cls, row in table_rows().items() if row[1] is not None}

    return lazy_attributes(namespace, load, table_rows, tool_classes, values, lock)
