"""One JSON Schema (or BFCL parameter description) -> ek's typed model, reporting what does not fit.

Handles the keywords the DSL can say: ``type`` (JSON Schema, BFCL and
Java/JavaScript names), ``enum`` and ``const`` of text and integers,
``minimum``/``maximum`` (and integer ``exclusiveMinimum``/``exclusiveMaximum``,
which become inclusive bounds exactly), ``minLength``/``maxLength``,
``minItems``/``maxItems``, ``pattern`` (search semantics translated to the
DSL's full match), ``format`` (date, date-time; email, uuid, uri as the
regexes of :mod:`ek.interop.formats`), ``items``, ``properties``/``required``,
``default``, ``description``, local ``$ref`` (as named types), ``anyOf``/``oneOf``
where the union is a type .ek has (else widened to the common type, named in
the warning), null as "optional argument" (OpenAI strict mode) and the
``x-ek-*`` keys ``ek export`` writes. Everything else is an
:class:`~ek.interop.issues.Issue`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ek.grammar.checker import compare_misfit
from ek.grammar.fits import violations
from ek.grammar.model import (
    NO_CONSTRAINTS,
    NO_DEFAULT,
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    TypeAlias,
    TypeNode,
    cost_weight_problem,
    kind_of,
    nested_importance_message,
)
from ek.grammar.names import is_own_safe_identifier, safe_identifier, unfit_character
from ek.grammar.regexes import compile_pattern, pattern_problem, starts_with_repeat
from ek.grammar.strings import escape_unshown, is_finite, reads_as_zero, to_float
from ek.interop.formats import FORMAT_PATTERNS, format_of
from ek.interop.issues import Issues, child
from ek.limits import IMPORT_MAX_DEPTH, SCHEMA_MAX_DEFAULT_VALUES, SCHEMA_MAX_ENUM_MEMBERS, SCHEMA_MAX_NESTING
from ek.parsing.values import int_too_long

_STR = {"string", "String", "char", "str"}
_INT = {"integer", "int", "byte", "short", "long", "Bigint"}
_FLOAT = {"number", "float", "double"}
_BOOL = {"boolean", "Boolean", "bool"}
_LIST = {"array", "list", "tuple", "Array", "ArrayList", "Queue", "Stack", "Set"}
_OBJECT = {"object", "dict", "HashMap", "Hashtable"}
_ANY = {"any", "Any"}

#: Keywords read here; anything else found in a schema is reported.
_HANDLED = {
    "type", "description", "enum", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "minItems", "maxItems", "pattern", "format", "items", "properties", "required",
    "$ref", "$defs", "definitions", "additionalProperties", "x-ek-importance", "x-ek-compare", "const",
    "$schema", "optional", "oneOf", "anyOf", "allOf", "not", "if", "then", "else",
}
_IGNORED_QUIETLY = {"$schema"}  # says which draft; nothing to keep
_BARE = re.compile(r"[^\W\d]\w*")
_PRIMITIVE_NAMES = {"str", "int", "float", "bool", "date", "datetime", "any", "enum", "list"}

#: What a step of a ``$ref`` pointer lands on (:meth:`Converter._resolve`): a schema, a list of schemas, a map of
#: names to schemas, or anything else (a text, a number, a keyword's other value).
_SCHEMA, _SCHEMAS, _MAP, _OTHER = "schema", "schemas", "map", "other"
#: The keywords of a schema whose value holds schemas, and how (JSON Schema 2020-12 and draft 7's ``definitions``
#: and list-form ``items``); any other keyword's value is no schema.
_HOLDS = {
    **dict.fromkeys(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"), _MAP),
    **dict.fromkeys(("anyOf", "oneOf", "allOf", "prefixItems"), _SCHEMAS),
    **dict.fromkeys(("items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
                     "propertyNames", "unevaluatedItems", "unevaluatedProperties"), _SCHEMA),
}


MAX_DEPTH = IMPORT_MAX_DEPTH  # deeper is reported and read as ``any``


#: The warning for ``"enum": []``: JSON Schema's "no value is valid", which no .ek type says.
_EMPTY_ENUM = "an empty enum allows no value, which .ek cannot express; read as its type"

def imported_cost(value: Any, path: str, what: str, issues: Issues) -> float:
    """An ``x-ek-weight`` or ``x-ek-importance`` (``what``: ``weight`` or ``importance``) at ``path``: the number,
    or 1 with a warning where the DSL would refuse it (:func:`ek.grammar.model.cost_weight_problem`)."""
    number = to_float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    problem = f"{what} must be a positive number" if number is None else cost_weight_problem(number, what)
    if problem is None:
        return number  # type: ignore[return-value]  # (a number: no problem)
    issues.warn(path, f"{problem}, got {value!r}; 1 used")
    return 1.0


class Converter:
    """Converts schemas of one document, sharing its ``$defs`` as named types."""

    def __init__(self, root: Mapping[str, Any], root_path: str, issues: Issues, *, strict: bool = False) -> None:
        self.root = root
        self.root_path = root_path
        self.issues = issues
        self.strict = strict  # OpenAI strict mode: a required property that may be null is an optional one
        self.aliases: dict[str, TypeAlias] = {}
        self._alias_names: dict[str, str] = {}  # $ref -> alias name
        self._in_progress: list[str] = []
        self._depth = 0

    # --- fields ------------------------------------------------------------------
    def fields(self, schema: Mapping[str, Any], path: str, *, nested: bool = False) -> tuple[FieldSpec, ...]:
        """The properties of an object schema as fields, in order (``nested``: of an object value, not a tool)."""
        props = schema.get("properties") or {}
        if type(props) is not dict and not isinstance(props, Mapping):  # (a dict is one: no ABC check for it)
            self.issues.error(child(path, "properties"), "'properties' must be an object; no fields read")
            return ()
        required = schema.get("required") or []
        if not isinstance(required, list):
            self.issues.warn(child(path, "required"), "'required' must be a list; every field made optional")
            required = []
        for k, name in enumerate(required):
            if type(name) is not str:  # a list or an object is no property's name (nor a key to look up)
                self.issues.warn(child(child(path, "required"), k), f"a required entry must be a property's name "
                                 f"(a string), got {type(name).__name__}; ignored")
            elif name not in props:
                self.issues.warn(child(path, "required"), f"required property {name!r} is not defined; ignored")
        required_names = frozenset(name for name in required if type(name) is str)  # one lookup per property
        out: list[FieldSpec] = []
        safe_names: dict[str, str] = {}
        props_path = None  # worked out at the first property the general path reads (only issues show it)
        plain_ok = self._depth < MAX_DEPTH  # what type_of checks before its own fast path
        lists_ok = self._depth + 1 < MAX_DEPTH  # ... and before its items' (a list's are one level down)
        for name, sub in props.items():
            if plain_ok and type(name) is str:
                plain = _plain_field(name, sub, name in required_names, lists_ok)
                if plain is not None and name not in safe_names:
                    safe_names[name] = name
                    out.append(plain)
                    continue
            if props_path is None:
                props_path = child(path, "properties")
            if type(name) is not str:  # only a schema built in Python has one: JSON keys are text
                self.issues.error(child(props_path, repr(name)), f"a property name must be a string, got "
                                                                 f"{type(name).__name__}; property skipped")
                continue
            fpath = child(props_path, name)
            if not name:
                self.issues.error(fpath, "an empty property name cannot be expressed; property skipped")
                continue
            if unfit_character(name) is not None:
                self.issues.error(fpath, f"a property name cannot hold the control character {unfit_character(name)}; "
                                         "property skipped")
                continue
            safe = safe_identifier(name)
            if safe in safe_names:
                self.issues.error(fpath, f"property {name!r} collides with {safe_names[safe]!r} once made a "
                                         f"Python identifier ({safe!r}); property skipped")
                continue
            safe_names[safe] = name
            if not isinstance(sub, Mapping):
                self.issues.warn(fpath, f"a property schema must be an object, got {type(sub).__name__}; read as any")
                sub = {}
            out.append(self.field(name, sub, name in required_names, fpath, nested=nested))
        return tuple(out)

    def field(self, name: str, schema: Mapping[str, Any], required: bool, path: str, *,
              nested: bool = False) -> FieldSpec:
        nulls: list[str] = []
        type_node, constraints = self.type_of(schema, path, nulls)
        if nulls:  # an optional argument accepts null as "omitted": the property's null is kept by '?'
            if required and not self.strict:
                self.issues.warn(nulls[0], "a required property that may be null cannot be expressed (.ek reads "
                                           "null as omitted); made optional")
            required = False
        if schema.get("optional") is True and required:
            required = False
        elif "optional" in schema and not isinstance(schema.get("optional"), bool):
            self.issues.warn(child(path, "optional"), "'optional' is not a boolean; ignored")
        default = NO_DEFAULT
        if "default" in schema:
            default = self.default(schema["default"], type_node, constraints, child(path, "default"))
            if default is not NO_DEFAULT and required:
                self.issues.warn(child(path, "default"), "a required property with a default cannot be expressed "
                                                         "(a default makes an argument optional); default dropped")
                default = NO_DEFAULT
        importance = 1.0
        if "x-ek-importance" in schema and nested:
            self.issues.warn(child(path, "x-ek-importance"), nested_importance_message(name) + "; dropped")
        elif "x-ek-importance" in schema:
            importance = imported_cost(schema["x-ek-importance"], child(path, "x-ek-importance"), "importance",
                                       self.issues)
        compare = None
        if "x-ek-compare" in schema:
            compare = self.compare(schema["x-ek-compare"], type_node, child(path, "x-ek-compare"))
        doc = schema.get("description")
        if doc is not None and not isinstance(doc, str):
            self.issues.warn(child(path, "description"), "description is not a string; dropped")
            doc = None
        return FieldSpec(name, type_node, constraints, required and default is NO_DEFAULT, default, importance,
                         compare, doc or None)

    def compare(self, text: object, type_node: TypeNode, path: str) -> ComparePolicy | None:
        base = self.base(type_node)
        match = re.fullmatch(r"(fold|exact|bfcl|unordered|ignore)|tol\(([0-9.eE+-]+)\)", text) \
            if isinstance(text, str) else None
        if match is None:
            self.issues.warn(path, f"unknown compare policy {text!r}; dropped")
            return None
        if match.group(1):
            policy = ComparePolicy(match.group(1))
        else:
            try:
                tolerance = float(match.group(2))
            except ValueError:
                tolerance = -1.0
            if not tolerance >= 0 or not math.isfinite(tolerance):
                self.issues.warn(path, f"compare {text!r} needs a non-negative tolerance; dropped")
                return None
            if reads_as_zero(match.group(2)):
                self.issues.warn(path, f"compare {text!r}: the tolerance is too small for a float (it would read "
                                       "as 0); dropped")
                return None
            policy = ComparePolicy("tol", tolerance)
        misfit = compare_misfit(policy.kind, base)
        if misfit is not None:
            self.issues.warn(path, f"{misfit}; dropped")
            return None
        return policy

    # --- types -------------------------------------------------------------------
    def type_of(self, schema: Mapping[str, Any], path: str,
                nulls: list[str] | None = None) -> tuple[TypeNode, Constraints]:
        """A type node and its constraints; unsupported keywords are reported.

        ``nulls`` is given for an argument's own schema, which may allow null (an optional argument
        accepts it): the path of each ``null`` met is added there instead of being reported.
        """
        if self._depth < MAX_DEPTH:
            plain = _plain_type(schema)
            if plain is not None:
                return plain, NO_CONSTRAINTS
        if self._depth >= MAX_DEPTH:
            self.issues.error(path, f"schema nests deeper than {MAX_DEPTH} levels; read as any")
            return PrimitiveType("any"), NO_CONSTRAINTS
        members = schema.get("enum")
        if isinstance(members, list) and len(members) > SCHEMA_MAX_ENUM_MEMBERS:
            self.issues.warn(child(path, "enum"), f"an enum of {len(members)} members is more than ek reads "
                                                  f"({SCHEMA_MAX_ENUM_MEMBERS}); read as its type")
            schema = {k: v for k, v in schema.items() if k != "enum"}
        self._depth += 1
        try:
            return self._type_of(schema, path, nulls)
        finally:
            self._depth -= 1

    def _null(self, path: str, nulls: list[str] | None, message: str) -> None:
        """A ``null`` the schema allows: kept by the argument's ``?`` when ``nulls`` collects, else reported."""
        if nulls is not None:
            nulls.append(path)
        else:
            self.issues.warn(path, message)

    def _type_of(self, schema: Mapping[str, Any], path: str, nulls: list[str] | None) -> tuple[TypeNode, Constraints]:
        for key in schema:
            if type(key) is not str:  # only a schema built in Python has one: JSON keys are text
                self.issues.warn(child(path, repr(key)), f"a keyword must be a string, got {type(key).__name__}; "
                                                         "dropped")
            elif key not in _HANDLED and not key.startswith("x-ek-") and key not in ("title", "examples"):
                self.issues.warn(child(path, key), f"keyword {key!r} cannot be expressed in .ek; dropped")
            elif key in ("title", "examples"):
                self.issues.warn(child(path, key), f"{key!r} has no place in .ek; dropped")
        for key in ("oneOf", "anyOf", "allOf", "not", "if"):
            if key in schema:
                return self._combinator(schema, key, path, nulls)
        if "$ref" in schema:
            return self._ref(schema, path)
        if "const" in schema:
            value = schema["const"]
            if value == "":  # an enum member cannot be empty, but "the string of length 0" says exactly this
                return PrimitiveType("str"), Constraints(0, 0)
            if isinstance(value, str) or _integral(value):
                return EnumType((value if isinstance(value, str) else int(value),)), NO_CONSTRAINTS
            self.issues.warn(child(path, "const"), f"const {value!r:.40} cannot be expressed (.ek enums hold text "
                                                    f"and integers); read as its type")
        kind = self._kind_name(schema, path, nulls)
        self._inapplicable(schema, kind, path)
        if kind == "str":
            return self._string(schema, path, nulls)
        if kind == "int" or kind == "float":
            constraints = self._range(schema, kind, path)
            if "enum" in schema:
                return self._number_enum(schema["enum"], kind, constraints, child(path, "enum"), nulls)
            return PrimitiveType(kind), constraints
        if kind == "mixed":
            return self._mixed_enum(schema["enum"], child(path, "enum"), nulls)
        if kind == "bool":
            members = schema.get("enum")
            if isinstance(members, list) and None in members:
                self._null(child(path, "enum"), nulls, "null is not a value .ek types allow; the enum is read "
                                                       "without it")
            if "enum" in schema and not (isinstance(members, list) and {m for m in members if m is not None} == {
                    True, False} and all(isinstance(m, bool) for m in members if m is not None)):
                self.issues.warn(child(path, "enum"), f"an enum of bool values {members!r:.40} cannot be expressed; "
                                                       f"widened to bool")
            return PrimitiveType("bool"), NO_CONSTRAINTS
        if kind == "list":
            items = schema.get("items")
            if isinstance(items, list):
                self.issues.warn(child(path, "items"), "tuple-style 'items' (a list of schemas) cannot be "
                                                        "expressed; items read as any")
                item: TypeNode = PrimitiveType("any")
            elif isinstance(items, Mapping):
                for key in ("description", "default"):
                    if key in items:
                        self.issues.warn(child(child(path, "items"), key), f"a {key} of list items has no place "
                                                                            f"in .ek; dropped")
                item, item_constraints = self.type_of(items, child(path, "items"))
                if not item_constraints.is_empty:
                    item = self._alias_for_constraints(item, item_constraints, child(path, "items"))
            elif items is False:  # no item is valid: only the empty list, which .ek says as a length range
                return ListType(PrimitiveType("any")), self._checked_range(
                    self._lengths(schema, "minItems", "maxItems", path).min, 0, path)
            else:
                if items is not None and items is not True:  # (true: any item, as no 'items' says)
                    self.issues.warn(child(path, "items"), f"'items' must be a schema, got {type(items).__name__}; "
                                                           "items read as any")
                item = PrimitiveType("any")
            return ListType(item), self._lengths(schema, "minItems", "maxItems", path)
        if kind == "object":
            extra = schema.get("additionalProperties")
            if "properties" not in schema:
                if extra is False:
                    return ObjectType(()), NO_CONSTRAINTS
                self.issues.warn(path, "an object without 'properties' (a free-form map) is read as any")
                return PrimitiveType("any"), NO_CONSTRAINTS
            if extra not in (None, False):
                self.issues.warn(child(path, "additionalProperties"),
                                 "extra properties cannot be allowed in .ek (objects are closed); dropped")
            return ObjectType(self.fields(schema, path, nested=True)), NO_CONSTRAINTS
        return PrimitiveType(kind), NO_CONSTRAINTS

    def _kind_name(self, schema: Mapping[str, Any], path: str, nulls: list[str] | None = None) -> str:
        raw = schema.get("type")
        if isinstance(raw, list):
            names = [t for t in raw if t != "null"]
            if "null" in raw:
                self._null(child(path, "type"), nulls, "null is not a value .ek types allow; the type is read "
                                                       "without it")
            if set(names) == {"integer", "number"}:
                return "float"  # every integer is a number: the union is exactly "number"
            if len(names) > 1 and "enum" in schema:
                return self._enum_kind(schema["enum"], path)  # the members say which of the types are used
            if len(names) != 1:
                if names:
                    self.issues.warn(child(path, "type"), f"a union of types {names} cannot be expressed (.ek has "
                                                           f"no union type); widened to any")
                elif not raw:
                    self.issues.warn(child(path, "type"), "an empty list of types allows no value, which .ek cannot "
                                                           "express; read as any")
                return "any"
            raw = names[0]
        if raw is None:
            if "properties" in schema:
                return "object"
            if "items" in schema:
                return "list"
            if "enum" in schema:
                return self._enum_kind(schema["enum"], path)
            return "any"
        if not isinstance(raw, str):
            self.issues.warn(child(path, "type"), f"type must be a string, got {raw!r}; read as any")
            return "any"
        for spellings, kind in ((_STR, "str"), (_INT, "int"), (_FLOAT, "float"), (_BOOL, "bool"),
                                (_LIST, "list"), (_OBJECT, "object"), (_ANY, "any")):
            if raw in spellings:
                return kind
        if raw == "null":
            self.issues.warn(child(path, "type"), "type null cannot be expressed; read as any")
        else:
            self.issues.warn(child(path, "type"), f"unknown type {raw!r}; read as any")
        return "any"

    def _enum_kind(self, members: object, path: str) -> str:
        """The type an enum without ``type`` implies: that of its (non-null) members, ``any`` if they mix."""
        if not isinstance(members, list):
            return "str"  # _string reports the malformed enum
        kinds = {_json_kind(m) for m in members if m is not None}
        if kinds <= {"str"}:
            return "str"
        if kinds in ({"int"}, {"bool"}):
            return kinds.pop()
        if kinds <= {"int", "float"}:
            return "float"
        if kinds == {"str", "int"}:
            return "mixed"
        self.issues.warn(child(path, "enum"), f"enum {members!r:.80} mixes types {sorted(kinds)} (.ek enums hold "
                                               f"text and integers); widened to any")
        return "any"

    def _number_enum(self, members: object, kind: str, constraints: Constraints, path: str,
                     nulls: list[str] | None) -> tuple[TypeNode, Constraints]:
        """An enum on ``integer``/``number``: ``enum(1, 2)`` when every member is an integer, else the type."""
        if not isinstance(members, list):
            self.issues.warn(path, f"enum {members!r:.40} is not a list; read as {kind}")
            return PrimitiveType(kind), constraints
        if None in members:
            self._null(path, nulls, "null is not a value .ek types allow; the enum is read without it")
            members = [m for m in members if m is not None]
        if any(isinstance(m, bool) or not isinstance(m, (int, float)) for m in members):
            self.issues.warn(path, f"enum {members!r:.60} holds values that are not numbers, which type {kind} "
                                   f"never accepts; widened to {kind}")
            return PrimitiveType(kind), constraints
        if not members or not all(_integral(m) for m in members):
            self.issues.warn(path, _EMPTY_ENUM if not members else f"an enum of {kind} values {members!r:.60} cannot "
                                   f"be expressed (.ek enums hold text and integers); widened to {kind}")
            return PrimitiveType(kind), constraints
        values = [int(m) for m in members]
        inside, outside = [], []
        for m in values:  # one pass: a member tested against a list of the others was quadratic in the enum
            fits = ((constraints.min is None or m >= constraints.min)
                    and (constraints.max is None or m <= constraints.max))
            (inside if fits else outside).append(m)
        if outside:  # the range is redundant when every member is inside it
            if not inside:
                self.issues.warn(path, f"no member of enum {values!r:.60} is inside the range; read as {kind}")
                return PrimitiveType(kind), constraints
            self.issues.warn(path, f"enum members {outside!r:.60} are outside the range and can never be valid; "
                                   f"dropped")
        return self._enum_of(inside, path), NO_CONSTRAINTS

    def _mixed_enum(self, members: list[Any], path: str, nulls: list[str] | None) -> tuple[TypeNode, Constraints]:
        """An enum of text and integers, as ``enum(auto, 0)``."""
        if None in members:
            self._null(path, nulls, "null is not a value .ek types allow; the enum is read without it")
        if "" in members:
            self.issues.warn(path, "an empty enum member cannot be expressed in .ek; dropped")
        return self._enum_of([m for m in members if m is not None and m != ""], path), NO_CONSTRAINTS

    def _enum_of(self, members: list[str | int], path: str) -> EnumType:
        unique = tuple(dict.fromkeys(members))
        if len(unique) != len(members):
            self.issues.warn(path, "repeated enum members merged")
        return EnumType(unique)

    def _inapplicable(self, schema: Mapping[str, Any], kind: str, path: str) -> None:
        """Report keywords of other types (``pattern`` on an integer, ``format: int32``): dropped, never silently."""
        applies = _APPLIES.get(kind, frozenset())
        for key in schema:
            if key in _TYPED_KEYWORDS and key not in applies:
                if key == "format":
                    message = f"format {schema[key]!r:.40} cannot be expressed on a {kind}; dropped"
                else:
                    message = f"keyword {key!r} does not apply to a {kind}; dropped"
                self.issues.warn(child(path, key), message)

    def _string(self, schema: Mapping[str, Any], path: str,
                nulls: list[str] | None = None) -> tuple[TypeNode, Constraints]:
        constraints = self._lengths(schema, "minLength", "maxLength", path)
        pattern = schema.get("pattern")
        if pattern is not None:
            converted = _full_match_pattern(pattern)
            problem = pattern_problem(converted) if converted is not None else None
            if converted is None:
                self.issues.warn(child(path, "pattern"), f"pattern {pattern!r:.80} is not a regex .ek can hold; "
                                                         "dropped")
            elif problem is not None:  # it would be matched against model output: it must run in linear time
                anywhere = f" (matched anywhere in the value: /{converted:.80}/)" if converted.startswith(_ANYWHERE) \
                    else ""
                self.issues.warn(child(path, "pattern"), f"pattern {pattern!r:.80}{anywhere} {problem}; dropped")
            else:
                constraints = Constraints(constraints.min, constraints.max, converted)
        if "enum" in schema:
            members = schema["enum"]
            if isinstance(members, list) and None in members:
                self._null(child(path, "enum"), nulls, "null is not a value .ek types allow; the enum is read "
                                                       "without it")
                members = [m for m in members if m is not None]
            if isinstance(members, list) and "" in members:
                self.issues.warn(child(path, "enum"), "an empty enum member cannot be expressed in .ek; dropped"
                                 + ("" if any(m != "" for m in members) else ", read as str"))
                members = [m for m in members if m != ""]
                if not members:
                    return PrimitiveType("str"), constraints
            if isinstance(members, list) and members and all(isinstance(m, str) for m in members):
                unique = tuple(dict.fromkeys(members))
                if len(unique) != len(members):
                    self.issues.warn(child(path, "enum"), "repeated enum members merged")
                if not constraints.is_empty:
                    self.issues.warn(path, "length and pattern constraints on an enum cannot be expressed; dropped")
                if "format" in schema:  # the members are the values: a format adds nothing .ek could check
                    self.issues.warn(child(path, "format"), f"format {schema['format']!r:.40} beside an enum cannot be "
                                                            f"expressed; dropped (the members are kept)")
                return EnumType(unique), NO_CONSTRAINTS
            self.issues.warn(child(path, "enum"), _EMPTY_ENUM if members == [] else
                             f"enum {members!r:.80} is not a list of strings; read as its type")
        fmt = schema.get("format")
        if fmt in ("date", "date-time"):
            if not constraints.is_empty:
                self.issues.warn(path, f"constraints on a {fmt} cannot be expressed; dropped")
            return PrimitiveType("date" if fmt == "date" else "datetime"), NO_CONSTRAINTS
        if isinstance(fmt, str) and fmt in FORMAT_PATTERNS:
            if constraints.pattern is None:
                return PrimitiveType("str"), Constraints(constraints.min, constraints.max, FORMAT_PATTERNS[fmt])
            self.issues.warn(child(path, "format"), f"format {fmt!r} beside a pattern cannot be expressed (a .ek "
                                                    f"type holds one regex); the pattern is kept, the format dropped")
        elif fmt is not None:
            self.issues.warn(child(path, "format"), f"format {fmt!r:.40} cannot be expressed; read as str")
        return PrimitiveType("str"), constraints

    def _range(self, schema: Mapping[str, Any], kind: str, path: str) -> Constraints:
        lo = self._bound(schema, "minimum", kind, path)
        hi = self._bound(schema, "maximum", kind, path)
        for key, is_low in (("exclusiveMinimum", True), ("exclusiveMaximum", False)):
            if key not in schema:
                continue
            value = schema[key]
            if isinstance(value, bool):  # draft 4: a flag on minimum/maximum
                bound = lo if is_low else hi
                if not value or bound is None:
                    continue
            else:
                bound = value if isinstance(value, (int, float)) and is_finite(value) else None
            if kind == "int" and bound is not None:
                exact = math.floor(bound) + 1 if is_low else math.ceil(bound) - 1
                if is_low:
                    lo = exact if lo is None or isinstance(schema[key], bool) else max(lo, exact)
                else:
                    hi = exact if hi is None or isinstance(schema[key], bool) else min(hi, exact)
            else:
                self.issues.warn(child(path, key), f"{key} on a {kind} cannot be expressed (ranges are "
                                                   f"inclusive); dropped")
        return self._checked_range(lo, hi, path)

    def _bound(self, schema: Mapping[str, Any], key: str, kind: str, path: str) -> int | float | None:
        value = schema.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not is_finite(value):
            self.issues.warn(child(path, key), f"{key} must be a finite number, got {value!r:.40}; dropped")
            return None
        if kind == "int" and isinstance(value, float):
            if value.is_integer():
                return int(value)
            return math.ceil(value) if key == "minimum" else math.floor(value)
        return value

    def _lengths(self, schema: Mapping[str, Any], low: str, high: str, path: str) -> Constraints:
        bounds = []
        for key in (low, high):
            value = schema.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                self.issues.warn(child(path, key), f"{key} must be a non-negative integer, got {value!r}; dropped")
                value = None
            bounds.append(value)
        return self._checked_range(bounds[0], bounds[1], path)

    def _checked_range(self, lo: Any, hi: Any, path: str) -> Constraints:
        if lo is not None and hi is not None and lo > hi:
            self.issues.warn(path, f"inverted range [{lo}..{hi}] accepts nothing; dropped")
            return NO_CONSTRAINTS
        return Constraints(lo, hi) if lo is not None or hi is not None else NO_CONSTRAINTS

    def _combinator(self, schema: Mapping[str, Any], key: str, path: str,
                    nulls: list[str] | None) -> tuple[TypeNode, Constraints]:
        branches = schema.get(key)
        where = child(path, key)
        if key in ("anyOf", "oneOf") and isinstance(branches, list) and branches and all(
                isinstance(b, Mapping) for b in branches):
            # Keywords beside anyOf apply to every branch ({"type": "string", "anyOf": [{"format": ...}, ...]}).
            shared = {k: v for k, v in schema.items() if k in _HANDLED and k not in _NOT_SHARED}
            kept = [(i, {**shared, **b}) for i, b in enumerate(branches) if b.get("type") != "null"]
            if len(kept) < len(branches):
                self._null(where, nulls, "null is not a value .ek types allow; read without the null branch")
            if len(kept) == 1:
                i, branch = kept[0]
                return self.type_of(branch, child(where, i), nulls)
            if kept:
                return self._union(key, kept, where, nulls)
        if key == "allOf" and isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], Mapping):
            return self.type_of({**{k: v for k, v in schema.items() if k != "allOf"}, **branches[0]},
                                child(where, 0), nulls)
        what = {"allOf": "an intersection (allOf of several schemas)", "not": "a negation (not)",
                "if": "a conditional (if/then/else)"}.get(key, f"an empty or malformed {key}")
        self.issues.warn(where, f"{what} cannot be expressed in .ek; widened to any")
        return PrimitiveType("any"), NO_CONSTRAINTS

    def _union(self, key: str, branches: list[tuple[int, Mapping[str, Any]]], where: str,
               nulls: list[str] | None) -> tuple[TypeNode, Constraints]:
        """``anyOf``/``oneOf`` of several schemas: exact where .ek can say it, else the common type, reported.

        Exact: branches that are all the same type; string enums and consts (one enum of all their
        members); integer and number (``float``). Otherwise the branches' common type (``str`` for text
        of any kind, ``float`` for numbers, ``list[T]`` for lists of one item type, ``any`` for the rest)
        with a warning naming the branches and what they were widened to.
        """
        real, scratch = self.issues, Issues()
        saved = dict(self.aliases), dict(self._alias_names)
        self.issues = scratch  # the branches' own issues matter only if their meaning is kept
        try:
            read = [self.type_of(b, child(where, i), nulls) for i, b in branches]
        finally:
            self.issues = real
        bases = [(self.base(t), c) for t, c in read]
        names = " | ".join(_describe(t, c) for t, c in read)
        if all(r == read[0] for r in read):
            result: tuple[TypeNode, Constraints] | None = read[0]
        elif all(isinstance(t, EnumType) and c.is_empty for t, c in bases):
            members = [m for t, _ in bases for m in t.members]  # type: ignore[union-attr]
            unique = tuple(dict.fromkeys(members))
            if key == "oneOf" and len(unique) != len(members):
                real.warn(where, "a value in several oneOf branches is valid in none; read as in any of them")
            result = EnumType(unique), NO_CONSTRAINTS
        elif all(kind_of(t) in ("int", "float") and c.is_empty for t, c in bases):
            result = PrimitiveType("float"), NO_CONSTRAINTS
        else:
            result = None
        if result is not None:
            self.issues.items.extend(scratch.items)
            if result is not read[0]:
                self.aliases, self._alias_names = saved  # merged enums name no type: keep none of the branches'
            return result
        kinds = {kind_of(t) for t, _ in bases}
        widened: tuple[TypeNode, Constraints]
        if kinds <= {"str", "enum", "date", "datetime"}:
            widened = PrimitiveType("str"), NO_CONSTRAINTS
        elif kinds <= {"int", "float"}:
            widened = PrimitiveType("int" if kinds == {"int"} else "float"), NO_CONSTRAINTS
        elif kinds == {"bool"}:
            widened = PrimitiveType("bool"), NO_CONSTRAINTS
        elif kinds == {"list"} and len({t.item for t, _ in bases}) == 1:  # type: ignore[union-attr]
            widened = ListType(bases[0][0].item), NO_CONSTRAINTS  # type: ignore[union-attr]
        else:
            widened = PrimitiveType("any"), NO_CONSTRAINTS
        if isinstance(widened[0], ListType):
            self.issues.items.extend(scratch.items)  # the items' type, and its issues, are kept
        else:
            self.aliases, self._alias_names = saved  # types met only in the dropped branches are not kept
        real.warn(where, f"{key} of {names} cannot be expressed (.ek has no union type); widened to "
                         f"{_describe(*widened)}")
        return widened

    # --- $ref ----------------------------------------------------------------------
    def _ref(self, schema: Mapping[str, Any], path: str) -> tuple[TypeNode, Constraints]:
        ref = schema["$ref"]
        target = self._resolve(ref) if isinstance(ref, str) else None
        if target is None:
            why = "is the whole document, which a type of it cannot hold" if ref == "#" else \
                "does not point at a schema of this document (a #/$defs/NAME, or any subschema)"
            self.issues.warn(child(path, "$ref"), f"$ref {ref!r} {why}; read as any")
            return PrimitiveType("any"), NO_CONSTRAINTS
        if ref in self._in_progress:
            cycle = " -> ".join(self._in_progress[self._in_progress.index(ref):] + [ref])
            self.issues.warn(child(path, "$ref"), f"recursive $ref cycle {cycle} cannot be expressed "
                                                   f"(type aliases may not recurse); read as any")
            return PrimitiveType("any"), NO_CONSTRAINTS
        name = self._alias_names.get(ref)
        if name is None:
            name = self._alias_name(_pointer_parts(ref)[-1], path)
            self._alias_names[ref] = name
            self._in_progress.append(ref)
            try:
                def_path = self.root_path
                for part in _pointer_parts(ref):
                    def_path = child(def_path, part)
                type_node, constraints = self.type_of(target, def_path)
            finally:
                self._in_progress.pop()
            doc = target.get("description") if isinstance(target.get("description"), str) else None
            self.aliases[name] = TypeAlias(name, type_node, constraints, doc or None)
        siblings = {k: v for k, v in schema.items() if k not in ("$ref", "description", "default")
                    and not k.startswith("x-ek-")}
        constraints = NO_CONSTRAINTS
        if siblings:
            kind = kind_of(self.base(NamedType(name)))
            if kind == "str":
                constraints = self._string({"type": "string", **siblings}, path)[1]
            elif kind in ("int", "float"):
                constraints = self._range(siblings, kind, path)
            elif kind == "list":
                constraints = self._lengths(siblings, "minItems", "maxItems", path)
            else:
                self.issues.warn(path, f"keywords {sorted(siblings)} beside $ref cannot be expressed; dropped")
        return NamedType(name), constraints

    def _resolve(self, ref: str) -> Mapping[str, Any] | None:
        """The schema a local ``$ref`` (a JSON pointer, ``#/...``) points at, or None: a pointer that leaves the
        document, finds nothing, or stops on something that is not a schema (``#/properties`` is the map of
        the properties, ``#/anyOf`` a list of schemas, ``#/description`` a text; their items are schemas)."""
        if not ref.startswith("#/"):
            return None
        node: Any = self.root
        holds = _SCHEMA
        for part in _pointer_parts(ref):
            if isinstance(node, Mapping) and part in node:
                holds = _SCHEMA if holds is _MAP else _HOLDS.get(part, _OTHER) if holds is _SCHEMA else _OTHER
                node = node[part]
                if holds is _SCHEMA and type(node) is list and part == "items":  # draft 7's list of item schemas
                    holds = _SCHEMAS
            elif type(node) is list and part.isdigit() and part.isascii() and int(part) < len(node) \
                    and (part == "0" or part[0] != "0"):
                holds = _SCHEMA if holds is _SCHEMAS else _OTHER
                node = node[int(part)]
            else:
                return None
            if holds is _OTHER:
                return None
        return node if holds is _SCHEMA and isinstance(node, Mapping) else None

    def _alias_name(self, raw: str, path: str) -> str:
        name = raw if _BARE.fullmatch(raw) and raw not in _PRIMITIVE_NAMES else safe_identifier(raw)
        if name in _PRIMITIVE_NAMES:
            name += "_"
        base, n = name, 2
        while name in self.aliases or name in self._alias_names.values():
            name = f"{base}_{n}"
            n += 1
        if name != raw:
            self.issues.warn(path, f"$defs name {raw!r} is not a usable .ek type name; named {name!r}")
        return name

    def _alias_for_constraints(self, item: TypeNode, constraints: Constraints, path: str) -> TypeNode:
        """List items cannot carry constraints inline in .ek: give them a named type."""
        name = self._alias_name(_item_alias_name(path), path)
        self.aliases[name] = TypeAlias(name, item, constraints)
        self._alias_names[f"#generated/{name}"] = name
        self.issues.warn(path, f"constraints on list items are kept in a new named type {name!r}")
        return NamedType(name)

    def base(self, node: TypeNode) -> TypeNode:
        seen = set()
        while isinstance(node, NamedType) and node.name in self.aliases and node.name not in seen:
            seen.add(node.name)
            node = self.aliases[node.name].type
        return node

    # --- defaults --------------------------------------------------------------------
    def default(self, value: Any, type_node: TypeNode, constraints: Constraints, path: str) -> Any:
        values = _values_in(value)
        if values > SCHEMA_MAX_DEFAULT_VALUES:
            self.issues.warn(path, f"a default of {values} values is more than ek reads ({SCHEMA_MAX_DEFAULT_VALUES}); "
                                   "dropped")
            return NO_DEFAULT
        depth = _depth_of(value)
        if depth > SCHEMA_MAX_NESTING:
            self.issues.warn(path, f"a default nested {depth} levels deep is more than ek reads (SCHEMA_MAX_NESTING, "
                                   f"{SCHEMA_MAX_NESTING}); dropped")
            return NO_DEFAULT
        problem = self._misfit(value, type_node, constraints)
        if problem:
            self.issues.warn(path, f"default {value!r:.60} {problem}; dropped")
            return NO_DEFAULT
        if value is not None and kind_of(self.base(type_node)) == "float" and isinstance(value, int):
            number = to_float(value)
            if number is None:
                self.issues.warn(path, f"default {value!r:.40}... is too large for a float; dropped")
                return NO_DEFAULT
            return number
        return value

    def _misfit(self, value: Any, node: TypeNode, constraints: Constraints) -> str | None:
        """Why a default does not fit (the rules of :mod:`ek.grammar.fits`, as lint applies them), or None."""
        if value is None:
            return None
        if not _plain(value):
            return "is not a JSON value .ek can hold (NaN and infinities are not)"
        try:
            problems = violations(value, node, constraints, self._follow_named)
        except (KeyError, ValueError):
            return "cannot be checked against a recursive type"
        if not problems:
            return None
        path, reason = problems[0]
        return f"does not fit: {reason}" if path == "$" else f"does not fit at {path}: {reason}"

    def _follow_named(self, node: TypeNode, constraints: Constraints) -> tuple[TypeNode, Constraints]:
        """Follow this document's named types (``$ref``) as they are built."""
        merged = constraints
        hops = 0
        while isinstance(node, NamedType):
            alias = self.aliases.get(node.name)
            if alias is None or hops > len(self.aliases):
                raise KeyError(node.name)
            merged = alias.constraints.merged(merged)
            node = alias.type
            hops += 1
        return node, merged


def plain_fields(schema: dict[str, Any]) -> tuple[FieldSpec, ...] | None:
    """Fast path of a tool's :meth:`Converter.fields` (its arguments object, at depth 0): the fields, or None
    unless every property takes :func:`_plain_field` (most BFCL functions: 92% of the one-run file's).

    Taken when ``properties`` is a ``dict`` (or absent), ``required`` a ``list`` (or absent) of names each
    among the properties, and every property a plain field. It skips the converter (its state, the JSON
    paths, the per-name checks and the general path's safe-name table), which on exactly these schemas
    reports nothing and builds the same fields in the same order: each property is its own safe name (so
    no two collide, the names of a dict being distinct), and nothing is required that is not defined.
    tests/interop/test_interop_fast_paths.py holds it to the general path.
    """
    props = schema.get("properties") or {}
    required = schema.get("required") or []
    if type(props) is not dict or type(required) is not list:
        return None
    for name in required:
        if type(name) is not str or name not in props:
            return None
    required_names = frozenset(required)  # one lookup per property, not a scan of the list
    out = []
    lists = _TOOL_LISTS_OK
    for name, sub in props.items():
        plain = _plain_field(name, sub, name in required_names, lists) if type(name) is str else None
        if plain is None:
            return None
        out.append(plain)
    return tuple(out)


#: Whether a tool's property may be a :func:`_plain_list` (its items one level down, inside the depth limit):
#: what :meth:`Converter.fields` works out at depth 0.
_TOOL_LISTS_OK = 1 < MAX_DEPTH


def _plain_field(name: str, schema: Any, required: bool, lists: bool) -> FieldSpec | None:
    """Fast path of one property of :meth:`Converter.fields` (and its :meth:`Converter.field`), or None.

    Taken for the shapes of most of BFCL's parameters: a name that is its own safe identifier, a ``dict``
    schema of a :func:`_plain_type` shape (at most ``type``, ``description``, ``default``, ``optional`` and
    a text ``enum``) or, when ``lists`` (the caller's depth leaves room for the items), of a
    :func:`_plain_list` shape; its description text if any; ``optional`` a boolean if there (``true`` makes
    a required property optional, as ``field`` reads it); a default only on an optional property, and only
    one that :func:`_plain_default` takes. It skips the property's JSON path (only an issue would show it),
    the name checks, ``field``'s reads of keywords the shape cannot hold and the default's check against
    the type. Safe because on exactly these properties the general path reports nothing and builds this
    same field: the name is not empty, holds no unfit character and its safe form is itself (the caller
    checks it is not taken yet), the type has no constraint and no null, ``optional`` is no other value
    (which is reported), the default fits the type (a required property with a default is reported: left
    to the general path), and no ``x-ek-importance`` or ``x-ek-compare`` key is there to read. The caller
    checks the depth as
    ``type_of`` does. tests/interop/test_interop_fast_paths.py holds it to the general path on every
    function of BFCL's data and on generated schemas around these shapes.
    """
    if type(schema) is not dict:
        return None
    node = _plain_type(schema)
    if node is None and lists:
        node = _plain_list(schema)
    if node is None or not is_own_safe_identifier(name):  # an ASCII identifier: not empty, nothing unfit
        return None
    doc = schema.get("description")
    if doc is not None and type(doc) is not str:
        return None
    if "optional" in schema:  # (BFCL's own spelling, on some functions: the general path reads it in field)
        optional = schema["optional"]
        if type(optional) is not bool:
            return None  # reported ("not a boolean") by the general path
        if optional:
            required = False
    default = NO_DEFAULT
    if "default" in schema:
        if required:
            return None
        default = _plain_default(schema["default"], node)
        if default is _NOT_PLAIN:
            return None
    return FieldSpec(name, node, NO_CONSTRAINTS, required, default, 1.0, None, doc or None)


#: What :func:`_plain_default` gives for a default it leaves to the general path.
_NOT_PLAIN = object()


def _plain_default(value: Any, node: TypeNode) -> Any:
    """Fast path of :meth:`Converter.default` for a scalar default of a :func:`_plain_type` node: the default
    as the general path keeps it, or :data:`_NOT_PLAIN` for any other (it may be reported, or converted).

    Taken for ``null``, and for a value of exactly the type's own Python type: ``str`` for ``str`` or a text
    enum holding it, ``int`` for ``int``, ``bool`` for ``bool``, a finite ``float`` or an ``int`` (made a
    float, when it is not too large for one) for ``float``, and any of those for ``any``. It skips the count
    of the default's values (one), the JSON check and :func:`~ek.grammar.fits.violations`, which find
    nothing wrong with such a value (no constraint to break: the node has none), and the base-type walk
    (the node is no named type).
    """
    if value is None:
        return None
    kind = type(value)
    if type(node) is EnumType:
        return value if kind is str and value in node.members else _NOT_PLAIN
    if type(node) is not PrimitiveType:
        return _NOT_PLAIN
    name = node.name
    if name == "float" or name == "any":
        if kind is float:
            return value if math.isfinite(value) else _NOT_PLAIN
        if kind is int and name == "float":
            number = to_float(value)
            return _NOT_PLAIN if number is None else number
        if name == "float":
            return _NOT_PLAIN
        return value if kind is str or (kind is int and not int_too_long(value)) or kind is bool else _NOT_PLAIN
    if (name == "str" and kind is str) or (name == "bool" and kind is bool):
        return value
    if name == "int" and kind is int:
        return _NOT_PLAIN if int_too_long(value) else value  # (too long to print: import_tools refuses it)
    return _NOT_PLAIN


#: What may sit in a schema :func:`_plain_list` reads.
_PLAIN_LIST_KEYS = frozenset({"type", "description", "items", "optional"})  # (optional: read by _plain_field)


def _plain_list(schema: dict[str, Any]) -> TypeNode | None:
    """Fast path of :meth:`Converter.type_of` for a list of a plain type, or None: a list ``type`` spelling
    (``array``, ``list``, ``tuple``, ...) with at most ``description`` and ``optional`` beside it and
    ``items``, a ``dict`` of a :func:`_plain_type` shape without ``description`` or ``default`` (both
    reported on items).

    It skips the keyword walks and dispatch of the list and of its items, and the empty length reads.
    Safe because on exactly these shapes the general path reports nothing and returns the list of what
    ``_plain_type`` gives for the items, unconstrained (the caller checks that the items' depth is inside
    the limit, as ``type_of`` would for them).
    """
    kind = schema.get("type")
    if type(kind) is not str or kind not in _LIST:
        return None
    items = schema.get("items")
    if type(items) is not dict or "description" in items or "default" in items:
        return None
    for key in schema:
        if key not in _PLAIN_LIST_KEYS:
            return None
    item = _plain_type(items)
    return None if item is None else ListType(item)


#: The type node of each primitive ``type`` spelling, for :func:`_plain_type` (frozen: one node serves all).
_PLAIN_NODES: dict[str, TypeNode] = {
    spelling: PrimitiveType(kind)
    for spellings, kind in ((_STR, "str"), (_INT, "int"), (_FLOAT, "float"), (_BOOL, "bool"), (_ANY, "any"))
    for spelling in spellings
}
#: What may sit beside ``type`` in a schema :func:`_plain_type` reads (``default`` and ``optional`` are read by
#: ``field``, and by :func:`_plain_field`; ``type_of`` reads neither, and reports neither).
_PLAIN_KEYS = frozenset({"type", "description", "default", "optional"})
_PLAIN_ENUM_KEYS = _PLAIN_KEYS | {"enum"}


def _plain_type(schema: Mapping[str, Any]) -> TypeNode | None:
    """Fast path of :meth:`Converter.type_of` for the two shapes most of BFCL's parameters have, or None.

    - a primitive ``type`` spelling (``string``, ``integer``, ``float``, ``boolean``, ``any``, ...) with at
      most ``description``, ``default`` and ``optional`` beside it: that primitive, unconstrained;
    - a text ``type`` with an ``enum`` of distinct non-empty strings (at most the members ek reads): that enum.

    It skips the general path's keyword walk, its ``_kind_name``/``_inapplicable`` dispatch and the empty
    length/range/pattern reads. Safe because on exactly these shapes that path reports nothing and returns
    the same: every key is handled and applies to the kind, no bound or pattern makes a constraint, and
    the enum has no null, empty or repeated member to report (the caller checks the depth first, and
    ``field`` still reads ``default``, ``optional`` and ``description``). tests/interop/test_interop_fast_paths.py
    holds it to the general path on every function of BFCL's data and on generated near misses.
    """
    kind = schema.get("type")
    if type(kind) is not str:
        return None
    node = _PLAIN_NODES.get(kind)
    if node is None:
        return None
    if "enum" not in schema:
        for key in schema:
            if key not in _PLAIN_KEYS:
                return None
        return node
    members = schema["enum"]
    if kind not in _STR or type(members) is not list or not members or len(members) > SCHEMA_MAX_ENUM_MEMBERS:
        return None
    for key in schema:
        if key not in _PLAIN_ENUM_KEYS:
            return None
    for member in members:
        if type(member) is not str or not member:
            return None
    unique = tuple(dict.fromkeys(members))
    return EnumType(unique) if len(unique) == len(members) else None


# Keywords that belong to one kind of value; on another kind they are reported as dropped.
_APPLIES: dict[str, frozenset[str]] = {
    "str": frozenset({"enum", "minLength", "maxLength", "pattern", "format"}),
    "int": frozenset({"enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "float": frozenset({"enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}),
    "bool": frozenset({"enum"}),
    "list": frozenset({"items", "minItems", "maxItems"}),
    "object": frozenset({"properties", "required", "additionalProperties"}),
    "any": frozenset({"enum"}),
    "mixed": frozenset({"enum"}),  # an enum of text and integers
}
_TYPED_KEYWORDS = frozenset().union(*_APPLIES.values())

#: Keywords beside ``anyOf``/``oneOf`` that belong to the property, not to each branch.
_NOT_SHARED = frozenset({"anyOf", "oneOf", "description", "default", "$schema", "$defs", "definitions", "optional"})


def _describe(node: TypeNode, constraints: Constraints) -> str:
    """A type as a warning names it: ``int [1..5]``, ``enum(a, b)``, ``str /[a-z]+/``, ``{x, y}``."""
    text = str(node)
    if constraints.min is not None or constraints.max is not None:
        lo = "" if constraints.min is None else constraints.min
        hi = "" if constraints.max is None else constraints.max
        text += f" [{lo}..{hi}]"
    if format_of(constraints.pattern) is not None:
        text += f" (format {format_of(constraints.pattern)})"
    elif constraints.pattern is not None:
        text += f" /{constraints.pattern:.40}/"
    return text


def _json_kind(value: object) -> str:
    """``str``, ``int``, ``float``, ``bool`` or ``other`` for an enum member."""
    if isinstance(value, bool):
        return "bool"
    for kind in (str, int, float):
        if isinstance(value, kind):
            return kind.__name__
    return "other"


def _integral(value: object) -> bool:
    """An integer, or a float with an integral value (JSON does not tell ``2`` from ``2.0``); never a bool.

    >>> _integral(2), _integral(2.0), _integral(2.5), _integral(True), _integral(float("inf"))
    (True, True, False, False, False)
    """
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value) and value.is_integer())


def _item_alias_name(path: str) -> str:
    """A type name for constrained list items: the property's name plus ``_item`` per list level.

    >>> _item_alias_name("$[0].parameters.properties.m.items.items"), _item_alias_name("$.p['max-n'].items")
    ('m_item_item', 'max_n_item')
    """
    rest, levels = path, 0
    while rest.endswith(".items"):
        rest, levels = rest[: -len(".items")], levels + 1
    last = re.split(r"[.\[]", rest)[-1].strip("]'\"")
    base = safe_identifier(last) if any(c.isalnum() for c in last) else "list"
    return base + "_item" * max(levels, 1)


def _values_in(value: Any) -> int:
    """Values in a JSON value, counted through lists and objects (as lint counts a default)."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
    return count


def _depth_of(value: Any) -> int:
    """Levels of lists and objects in a JSON value (iteratively: it may nest past the recursion limit).

    >>> _depth_of(1), _depth_of([]), _depth_of({"a": [[1]], "b": 2})
    (0, 1, 3)
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        else:
            continue
        deepest = max(deepest, depth + 1)
    return deepest


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


#: How a search pattern (JSON Schema's ``pattern`` matches anywhere) is written as a full match.
_ANYWHERE = "[\\s\\S]*(?:"

#: A pattern's first item when it is one character repeated: ``\d+``, ``[a-z]{2,}``, ``x*?`` (not possessive).
_LEADING_REPEAT = re.compile(r"(\\[dDwWsS.\-/@#:,]|\[(?:\\.|[^\]\\\[])+\]|[^\\\[\](){}?*+|^$])"
                             r"(?:\*|\+|\{(\d{1,4})(?:,\d{0,4})?\})\??(?![+*?{])")


def _pointer_parts(ref: str) -> list[str]:
    """The keys of a local ``$ref`` (``#/...``): a URI fragment, so percent-decoded first (``#/$defs/a%20b`` is
    ``a b``), then split into a JSON pointer's parts, each with ``~1`` and ``~0`` read as ``/`` and ``~``
    (RFC 6901, sections 4 and 6).

    >>> _pointer_parts("#/$defs/a%20b"), _pointer_parts("#/%24defs/caf%C3%A9"), _pointer_parts("#/$defs/a~1b~0c")
    (['$defs', 'a b'], ['$defs', 'café'], ['$defs', 'a/b~c'])
    """
    return [part.replace("~1", "/").replace("~0", "~") for part in unquote(ref[2:]).split("/")]


def _full_match_pattern(pattern: object) -> str | None:
    """A JSON Schema ``pattern`` (matches anywhere) as a full-match regex, or None if unusable.

    >>> _full_match_pattern("^[A-Z]{3}$"), _full_match_pattern("^(?:a|b)$"), _full_match_pattern("ab")
    ('[A-Z]{3}', 'a|b', '[\\\\s\\\\S]*(?:ab)[\\\\s\\\\S]*')
    >>> _full_match_pattern("\\\\d+-\\\\d+")  # a value holds digits, '-', digits iff it holds a digit, '-', digits
    '[\\\\s\\\\S]*(?:\\\\d-\\\\d+)[\\\\s\\\\S]*'
    """
    if not isinstance(pattern, str) or not pattern:
        return None
    pattern = escape_unshown(pattern)
    try:
        compile_pattern(pattern)
    except (re.error, OverflowError, RecursionError, ValueError):  # a bad regex, a count past re's, ...
        return None
    body: str | None = None
    if pattern.startswith("^(?:") and pattern.endswith(")$") and _balanced(pattern[4:-2]):
        body = pattern[4:-2]
    elif pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$") and "|" not in pattern:
        body = pattern[1:-1]
    if body is None:
        body = f"{_ANYWHERE}{_fewest_leading(pattern)})[\\s\\S]*"
    if not body:
        return None
    try:
        compile_pattern(body)
    except (re.error, OverflowError, RecursionError, ValueError):
        return None
    return body


def _fewest_leading(pattern: str) -> str:
    """``pattern`` with a leading repeated character cut to its fewest repeats, which a search finds in the
    same values (a value holds ``\\d+-`` iff it holds ``\\d-``) and which cannot backtrack against the
    ``[\\s\\S]*`` before it. Unchanged unless ``re`` reads the pattern's first item exactly so."""
    match = _LEADING_REPEAT.match(pattern)
    if match is None or "|" in pattern:
        return pattern
    atom = match.group(1)
    plus = match.group(0)[len(atom)] == "+"
    fewest = int(match.group(2)) if match.group(2) is not None else int(plus)
    cut = ("" if fewest == 0 else atom if fewest == 1 else f"{atom}{{{fewest}}}") + pattern[match.end():]
    if not cut or not starts_with_repeat(pattern, atom, fewest):
        return pattern
    return cut


def _balanced(text: str) -> bool:
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = text.find("]", i + 2)
            if end == -1:
                return False
            i = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0
