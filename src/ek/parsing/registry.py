"""The one table of output formats: built-in and user-registered formats, looked up by name.

Every name ``format=`` accepts (in :func:`ek.parsing.parse_calls`, ``ek score
--format``, a corpus line's ``format`` field, ``assert_calls`` and the
rewards) is a :class:`Format` here. The built-in formats are registered by
:mod:`ek.parsing.api` at import; a team with its own chat template adds one
with :func:`register_format`, or ships it in a package under the
``ek.formats`` entry-point group (name = format name, object = its parse
function, with an optional ``detect`` attribute), loaded the first time a
name is not found or ``auto`` runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from ek.calls import Step
from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits
from ek.parsing.values import plain_args

#: ``types(tool, argument)`` -> the argument's declared type name, or None when unknown.
TypeHint = Callable[[str, str], "str | None"]

#: The entry-point group installed packages register formats under.
ENTRY_POINT_GROUP = "ek.formats"


@attrs.frozen
class Reading:
    """What a format's reader is given besides the output: limits, the type hint, its own name."""

    limits: Limits
    types: TypeHint | None = None
    name: str = "auto"


@attrs.frozen
class Format:
    """A named output format.

    ``read(output, reading)`` returns the steps; ``detect(output)`` says whether ``auto`` should read
    an output as this format (None: never picked by ``auto``); ``builtin`` marks ek's own formats,
    whose detection ``auto`` does itself by markers and keys.
    """

    name: str
    read: Callable[[Any, Reading], list[Step]]
    detect: Callable[[Any], bool] | None = None
    builtin: bool = False
    summary: str = ""


_FORMATS: dict[str, Format] = {}
#: The registered (non-built-in) formats with a ``detect``, kept as :func:`add` and :func:`unregister_format` change
#: the table (``auto`` asks for them on every output: a walk over forty built-ins each time cost it a microsecond).
_DETECTING: tuple[Format, ...] = ()
_entry_points_loaded = False


def add(fmt: Format, *, replace: bool = False) -> None:
    """Put ``fmt`` in the table; a name already taken needs ``replace=True`` (built-ins never)."""
    old = _FORMATS.get(fmt.name)
    if old is not None and (old.builtin or not replace):
        raise ValueError(f"format {fmt.name!r} is already registered"
                         + ("" if old.builtin else "; pass replace=True to replace it"))
    _FORMATS[fmt.name] = fmt
    _update_detecting()


def _update_detecting() -> None:
    global _DETECTING
    _DETECTING = tuple(f for f in _FORMATS.values() if not f.builtin and f.detect is not None)


def register_format(name: str, parse: Callable[[Any], Iterable[Any]],
                    detect: Callable[[Any], bool] | None = None, *, replace: bool = False) -> None:
    """Add an output format ``name``, read by ``parse`` (and picked by ``auto`` when ``detect`` says so).

    ``parse(output)`` gets the output as given (text, bytes decoded as UTF-8, or a decoded object) and
    returns its calls: :class:`ek.Step` objects, ``(name, args)`` pairs or ``{"name", "arguments"}``
    dicts. ek checks every value (JSON-like, within the size and depth limits), so a parser cannot
    hand the scorer something a model could not have written. A ``ParseError`` or ``ValueError`` it
    raises becomes this format's parse error; ``detect(output) -> bool`` lets ``auto`` recognise the
    format (if two formats claim one output, ``auto`` reports both instead of choosing).

    >>> def pipes(text):
    ...     return [(name, {"q": arg}) for name, arg in (line.split("|") for line in text.splitlines())]
    >>> register_format("pipes", pipes, detect=lambda out: isinstance(out, str) and out.startswith("@"))
    >>> from ek.parsing import parse_calls
    >>> parse_calls("search|cats", format="pipes")
    [Step(name='search', args={'q': 'cats'})]
    >>> unregister_format("pipes")
    """
    if not isinstance(name, str) or not name or name != name.strip():
        raise ValueError(f"a format name must be a non-empty string without surrounding spaces, got {name!r}")
    if not callable(parse):
        raise TypeError(f"parse must be callable, got {type(parse).__name__}")
    if detect is not None and not callable(detect):
        raise TypeError(f"detect must be callable or None, got {type(detect).__name__}")
    add(Format(name, _user_reader(name, parse), detect, summary=getattr(parse, "__doc__", None) or ""),
        replace=replace)


def unregister_format(name: str) -> None:
    """Remove a user-registered format (built-in formats stay)."""
    fmt = _FORMATS.get(name)
    if fmt is None:
        raise ValueError(f"no format {name!r} is registered")
    if fmt.builtin:
        raise ValueError(f"{name!r} is a built-in format")
    del _FORMATS[name]
    _update_detecting()


def _user_reader(name: str, parse: Callable[[Any], Iterable[Any]]) -> Callable[[Any, Reading], list[Step]]:
    def read(output: Any, reading: Reading) -> list[Step]:
        try:
            calls = parse(output)
            items = list(calls) if calls is not None else []
        except ParseError as error:
            raise error.moved(error.position, name) from None
        except ValueError as error:
            raise ParseError(str(error) or type(error).__name__, None, name) from None
        return [_user_step(item, f"$[{i}]", reading.limits, name) for i, item in enumerate(items)]

    return read


def _user_step(item: Any, path: str, limits: Limits, fmt: str) -> Step:
    if isinstance(item, Step):
        name, args = item.name, item.args
    elif isinstance(item, tuple) and len(item) == 2:
        name, args = item
    elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
        name = item["name"]
        args = item.get("arguments", item.get("args", item.get("parameters", {})))
    else:
        raise ParseError(f"the {fmt} parser returned {type(item).__name__}, not a call (a Step, a (name, args) "
                         "pair or a {'name', 'arguments'} dict)", path, fmt)
    if not isinstance(name, str) or not name:
        raise ParseError(f"the tool name must be a non-empty string, got {name!r}", path, fmt)
    return Step(name, plain_args(args if args is not None else {}, f"{path}.arguments", limits, fmt))


def get(name: str) -> Format:
    """The format called ``name``; an unknown name is a ``ValueError`` listing the known ones."""
    fmt = _FORMATS.get(name)
    if fmt is None:
        load_entry_points()
        fmt = _FORMATS.get(name)
    if fmt is None:
        raise ValueError(f"unknown format {name!r}; choose one of: {', '.join(names())}")
    return fmt


def names() -> tuple[str, ...]:
    """Every registered format name: the built-in ones in their order, then the registered ones."""
    return tuple(_FORMATS)


def user_formats() -> tuple[Format, ...]:
    """Registered (non-built-in) formats that ``auto`` may pick, entry points loaded first."""
    if not _entry_points_loaded:
        load_entry_points()
    return _DETECTING


def load_entry_points() -> None:
    """Register every ``ek.formats`` entry point once; a broken one is skipped with a warning."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    import warnings
    from importlib import metadata  # here, not at the top: 10-20 ms of imports a run in a named format never needs

    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in _FORMATS:
            continue
        try:
            parse = entry.load()
            register_format(entry.name, getattr(parse, "parse", parse), getattr(parse, "detect", None))
        except Exception as exc:  # a broken plug-in must not stop ek; it says which one and why
            warnings.warn(f"ek.formats entry point {entry.name!r} ({entry.value}) could not be loaded: {exc}",
                          RuntimeWarning, stacklevel=2)
