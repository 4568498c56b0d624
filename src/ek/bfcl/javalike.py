"""Java and JavaScript argument values: source-code strings -> Python values, as BFCL's checker sees them.

In BFCL's Java/JavaScript categories every argument value is a string of
source code (``"5"``, ``"new ArrayList<>(Arrays.asList(\\"a\\"))"``,
``"[1, 2]"``). A string that does not read as the declared type stays a
string (BFCL's rule), so it can still match a variable name in the answers.
Collections are split at top-level commas, respecting quotes and brackets
(BFCL splits on every comma, so ``"a,b"`` inside a list breaks there; ek does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ek.bfcl.typemap import JAVA, NESTED_JAVALIKE
from ek.calls import Step
from ek.parsing import ParseError, parse_calls
from ek.parsing.limits import DEFAULT_LIMITS, Limits, check_text

_INT = re.compile(r"-?\d+")
_JAVA_FLOAT = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]")
_JAVA_DOUBLE = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?")
_JAVA_LONG = re.compile(r"-?\d+[lL]")
_JS_FLOAT = re.compile(r"-?\d+(\.\d+)?")
_BIGINT = re.compile(r"-?\d+n")
_QUOTED = re.compile(r"""^(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')$""", re.S)


def _scan(text: str, start: int, opens: str, closes: str) -> Iterator[tuple[int, str, int]]:
    """``(index, character, bracket depth after it)`` of each character of ``text`` from ``start`` that is not
    inside a quoted string (a backslash escapes the next character there); a closing bracket never takes the
    depth below zero."""
    depth, quote, i = 0, "", start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        else:
            if c in opens:
                depth += 1
            elif c in closes:
                depth = max(depth - 1, 0)
            yield i, c, depth
        i += 1


def split_top_level(text: str, sep: str = ",", *, angles: bool = True) -> list[str]:
    """Split at ``sep`` outside quotes and brackets (``<>`` too, for Java generics); empty pieces dropped.

    >>> split_top_level('"a,b", f(1, 2), [3, 4], Map<K, V>')
    ['"a,b"', 'f(1, 2)', '[3, 4]', 'Map<K, V>']
    """
    opens, closes = ("([{<", ")]}>") if angles else ("([{", ")]}")
    parts: list[str] = []
    begin = 0
    for i, c, depth in _scan(text, 0, opens, closes):
        if c == sep and depth == 0:
            parts.append(text[begin:i].strip())
            begin = i + 1
    parts.append(text[begin:].strip())
    return [p for p in parts if p]


def enclosed(text: str, start: int = 0) -> bool:
    """Whether the bracket at ``text[start]`` closes at the last character (quotes respected): the text from
    there is one collection, not several side by side (``"[1, 2], [3, 4]"`` starts and ends with brackets
    that are not a pair).

    >>> enclosed("[1, [2], ']']"), enclosed("[1, 2], [3, 4]"), enclosed("new int[]{1, 2}", 9)
    (True, False, True)
    """
    closes = ")]}"
    for i, c, depth in _scan(text, start, "([{", closes):
        if depth == 0 and c in closes:
            return i == len(text) - 1
    return False


def _unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def java_value(text: str) -> Any:
    """A Java literal of unknown type: string, char, boolean, null, number, else the text itself."""
    text = text.strip()
    if _QUOTED.match(text):
        return _unquote(text)
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if _INT.fullmatch(text):
        return int(text)
    if _JAVA_LONG.fullmatch(text):
        return int(text[:-1])
    if _JAVA_FLOAT.fullmatch(text):
        return float(text[:-1])
    if _JAVA_DOUBLE.fullmatch(text):
        return float(text)
    return text


def js_value(text: str) -> Any:
    """A JavaScript literal of unknown type, else the text itself."""
    text = text.strip()
    if _QUOTED.match(text):
        return _unquote(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "undefined"):
        return None
    if _INT.fullmatch(text):
        return int(text)
    if _JS_FLOAT.fullmatch(text):
        return float(text)
    if _BIGINT.fullmatch(text):
        return int(text[:-1])
    if text.startswith("[") and enclosed(text):
        return [js_value(p) for p in split_top_level(text[1:-1])]
    if text.startswith("{") and enclosed(text):
        return _js_object(text)
    return text


def _js_object(text: str) -> Any:
    out: dict[str, Any] = {}
    for entry in split_top_level(text.strip()[1:-1]):
        key, colon, value = (s.strip() for s in entry.partition(":"))
        if not colon:
            return text
        out[_unquote(key) if _QUOTED.match(key) else key] = js_value(value)
    return out


def _number(text: str, pattern: re.Pattern[str]) -> str | None:
    """A scalar's source text as the number ``pattern`` reads, as BFCL's converters test it, else None.

    BFCL tests ``re.match("^<pattern>$", value)`` on the value as given: no whitespace is stripped (a decoded
    ``" 5"`` stays text), but Python's ``$`` also matches before one line break that ends the text, so
    ``"5\n"`` reads as 5. The number's text is returned without that line break.

    >>> _number("5", _INT), _number("5\\n", _INT), _number(" 5", _INT), _number("5\\n\\n", _INT)
    ('5', '5', None, None)
    """
    body = text[:-1] if text.endswith("\n") else text
    return body if pattern.fullmatch(body) else None


def convert_java(text: str, type_name: str, item_type: str | None = None) -> Any:
    """A Java argument string as a value of ``type_name`` (the text itself if it does not read as one).

    Scalars are read from the text as given, as BFCL does (:func:`_number`): a function-calling model's
    ``"mapController\\n"`` for a ``String`` keeps its line break, and ``" 5"`` is no ``integer``. A
    collection is read from the text stripped (BFCL searches the text for it).

    >>> convert_java("5", "integer"), convert_java("2.5f", "float"), convert_java("7L", "long")
    (5, 2.5, 7)
    >>> convert_java('new ArrayList<>(Arrays.asList("a,b", "c"))', "ArrayList", "String")
    ['a,b', 'c']
    >>> convert_java("new int[]{1, 2}", "Array", "integer")
    [1, 2]
    """
    if type_name in ("byte", "short", "integer"):
        number = _number(text, _INT)
        return text if number is None else int(number)
    if type_name == "long":
        number = _number(text, _JAVA_LONG)
        return text if number is None else int(number[:-1])
    if type_name == "float":
        number = _number(text, _JAVA_FLOAT)
        return text if number is None else float(number[:-1])
    if type_name == "double":
        number = _number(text, _JAVA_DOUBLE)
        return text if number is None else float(number)
    if type_name == "boolean":
        return text == "true" if text in ("true", "false") else text
    if type_name in ("Array", "ArrayList", "Queue", "Stack"):
        items = _java_collection_items(text.strip())
        if items is None:
            return text
        return [_java_item(i, item_type) for i in items]
    if type_name in ("HashMap", "Hashtable"):
        converted = _java_map(text.strip())
        return text if type(converted) is str else converted
    return text  # String, char, any: the text as written


def _java_item(text: str, item_type: str | None) -> Any:
    if item_type in ("String", "char"):  # an item is source code: its quotes are not part of the value
        return _unquote(text) if _QUOTED.match(text) else text
    return convert_java(text, item_type) if item_type else java_value(text)


def _java_collection_items(text: str) -> list[str] | None:
    match = re.fullmatch(r"new\s+\w+(?:<[^>]*>)?\s*\[\s*\]\s*\{(.*)\}", text, re.S)
    if match:  # (one initializer: ``new int[]{1}, {2}`` is not one array)
        return split_top_level(match.group(1)) if enclosed(text, match.start(1) - 1) else None
    for pattern in (r"new\s+ArrayList<[^>]*>\s*\(\s*(?:Arrays\.asList|List\.of)\((.*)\)\s*\)",
                    r"(?:Arrays\.asList|List\.of)\((.*)\)"):
        match = re.fullmatch(pattern, text, re.S)
        if match:
            return split_top_level(match.group(1)) if enclosed(text[:match.end(1) + 1], match.start(1) - 1) else None
    match = re.fullmatch(r"new\s+ArrayList<[^>]*>\s*\(\s*\)\s*\{\{(.*)\}\}", text, re.S)
    if match:
        return [m.group(1) for s in split_top_level(match.group(1), ";")
                if (m := re.fullmatch(r"add\((.*)\)", s.strip(), re.S))]
    if re.fullmatch(r"new\s+ArrayList<[^>]*>\s*\(\s*\)", text):
        return []
    return None


def _java_map(text: str) -> Any:
    """A ``HashMap`` written as Java source: ``new HashMap<...>() {{ put(k, v); ... }}`` (double-brace
    initializer), ``Map.of(k, v, ...)``, or empty: ``new HashMap<...>()`` with no initializer, or an empty
    body (``{}``, ``{{ }}``), as BFCL reads them (its ``parse_hashmap``); else the text itself."""
    if re.fullmatch(r"new\s+HashMap<[^>]*>\s*\(\s*\)(?:\s*\{\s*\})?", text):
        return {}
    match = re.fullmatch(r"new\s+HashMap<[^>]*>\s*\(\s*\)\s*\{\{(.*)\}\}", text, re.S)
    if match:
        entries = [m.group(1) for s in split_top_level(match.group(1), ";")
                   if (m := re.fullmatch(r"put\((.*)\)", s.strip(), re.S))]
    else:
        match = re.fullmatch(r"Map\.of\((.*)\)", text, re.S)
        if not match:
            return text
        flat = split_top_level(match.group(1))
        entries = [f"{k}, {v}" for k, v in zip(flat[::2], flat[1::2])]
    out: dict[Any, Any] = {}
    for entry in entries:
        parts = split_top_level(entry)
        if len(parts) != 2:
            return text
        out[java_value(parts[0])] = java_value(parts[1])
    return out


def convert_js(text: str, type_name: str, item_type: str | None = None) -> Any:
    """A JavaScript argument string as a value of ``type_name`` (the text itself if it does not read as one).

    Scalars are read from the text as given, collections from the text stripped, as in :func:`convert_java`.

    >>> convert_js("'hi'", "String"), convert_js("10n", "Bigint"), convert_js("[1, 'a']", "array")
    ('hi', 10, [1, 'a'])
    """
    if type_name == "String":
        return _unquote(text) if _QUOTED.match(text) else text
    if type_name == "integer":
        number = _number(text, _INT)
        return text if number is None else int(number)
    if type_name == "float":
        number = _number(text, _JS_FLOAT)
        return text if number is None else float(number)
    if type_name == "Bigint":
        number = _number(text, _BIGINT)
        return text if number is None else int(number[:-1])
    if type_name == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if type_name != "array" and type_name != "dict":
        return text  # any: the text as written
    text = text.strip()  # a collection: BFCL reads it stripped
    if type_name == "array":
        match = re.fullmatch(r"\[(.*)\]|new\s+Array\((.*)\)", text, re.S)
        if not match or not enclosed(text, match.start(1) - 1 if match.group(1) is not None else match.start(2) - 1):
            return text  # not one array (``"[1, 2], [3, 4]"``: two, side by side): the text as written
        body = match.group(1) if match.group(1) is not None else match.group(2)
        return [js_value(p) for p in split_top_level(body)]
    return _js_object(text) if text.startswith("{") and enclosed(text) else text


def source_value(text: str, detail: Mapping[str, Any], language: str) -> Any:
    """A Java or JavaScript argument's source text as a value of the type its BFCL property schema
    (``detail``) declares, as BFCL's checker converts it before comparing: :func:`convert_java` or
    :func:`convert_js`, with the item type of the collection types whose items BFCL checks.

    >>> source_value("new int[]{1, 2}", {"type": "Array", "items": {"type": "integer"}}, "java")
    [1, 2]
    >>> source_value("true", {"type": "Boolean"}, "javascript"), source_value("x", {"type": 7}, "java")
    (True, 'x')
    """
    type_name = detail.get("type", "any")
    if type(type_name) is not str:  # not a BFCL type: nothing to convert to
        return text
    items = detail.get("items")
    item_type = items.get("type") if isinstance(items, Mapping) else None
    convert = convert_java if language == JAVA else convert_js
    return convert(text, type_name, item_type if type_name in NESTED_JAVALIKE else None)


def typed_calls(steps: Sequence[Step], functions: Sequence[Mapping[str, Any]], language: str) -> list[Step]:
    """The calls of a Java or JavaScript output with every argument written as source text converted by its
    declared type (:func:`source_value`), so they compare with BFCL's answers as in BFCL's checker.

    Left as they are: a call of a function the entry does not offer, an argument it does not declare (both
    are mistakes the scorer reports as such), and a value that is not text. BFCL's checker rejects the
    last (``type_error:java``/``js``: it expects source code); ek takes a function-calling model's typed
    JSON value (``["-v", "-p"]`` for a ``String[]``) as the value it is (docs/bfcl.md).

    >>> functions = [{"name": "Map.put", "parameters": {"properties": {"n": {"type": "long"}}}}]
    >>> typed_calls([Step("Map.put", {"n": "7L", "extra": "1"})], functions, "java")
    [Step(name='Map.put', args={'n': 7, 'extra': '1'})]
    """
    declared: dict[str, Mapping[str, Any]] = {}
    for function in functions:
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if isinstance(properties, Mapping):
            declared.setdefault(function["name"], properties)
    typed = []
    for step in steps:
        properties = declared.get(step.name)
        if properties is None:
            typed.append(step)
            continue
        args = {name: source_value(value, detail, language)
                if type(value) is str and isinstance(detail := properties.get(name), Mapping) else value
                for name, value in step.args.items()}
        typed.append(Step(step.name, args))
    return typed


#: Text whose first token is ``{``, or ``[`` then ``{`` (a Markdown fence before it allowed): JSON calls.
_JSON_CALLS = re.compile(r"\s*(?:```[A-Za-z]*\s*)?(?:\[\s*)?\{")
_CALL = re.compile(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\((.*)\)", re.S)
_KEYWORD = re.compile(r"([A-Za-z_$][\w$]*)\s*=(?!=)(.*)", re.S)


def decode_calls(text: str, language: str, limits: Limits = DEFAULT_LIMITS) -> list[Step]:
    """``[Name.method(arg=<source>, ...), ...]`` as steps whose values are the argument source strings.

    Nothing is evaluated: each value is the text of its expression (a top-level string literal
    loses its quotes, as in BFCL's decoder), to be converted by the declared type when checked.

    >>> decode_calls('[Geo.create(controller=mapController, ids=new int[]{1, 2}, name="a, b")]', "java")
    [Step(name='Geo.create', args={'controller': 'mapController', 'ids': 'new int[]{1, 2}', 'name': 'a, b'})]
    >>> decode_calls("[f(cb=(x) => x > 1, n=5)]", "javascript")
    [Step(name='f', args={'cb': '(x) => x > 1', 'n': '5'})]
    """
    fmt = language
    check_text(text, limits, fmt)
    if _JSON_CALLS.match(text):
        # No Java or JavaScript call starts with "{": JSON calls, as locally served function-calling models answer
        # ([{"name": "f", "arguments": {...}}], which BFCL's handlers for them read) and as Python categories read
        # them; each value as given (a string is source text, converted by its type when checked).
        return parse_calls(text, "bfcl", max_size=limits.max_size, max_depth=limits.max_depth)
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    angles = language == "java"
    steps = []
    for item in split_top_level(body, angles=angles):
        match = _CALL.fullmatch(item)
        if match is None:
            raise ParseError(f"expected a call like name(arg=value), got {item[:60]!r}", None, fmt)
        args: dict[str, str] = {}
        for part in split_top_level(match.group(2), angles=angles):
            keyword = _KEYWORD.fullmatch(part)
            if keyword is None:
                raise ParseError(f"argument {part[:60]!r} of {match.group(1)!r} is not written name=value", None, fmt)
            name, value = keyword.group(1), keyword.group(2).strip()
            if name in args:
                raise ParseError(f"argument {name!r} repeated in the call to {match.group(1)!r}", None, fmt)
            args[name] = _unquote(value) if _QUOTED.match(value) else value
        steps.append(Step(match.group(1), args))
    return steps
