"""BFCL's parameter type names and what each means for values, per language.

Python categories use ``string integer float boolean array tuple dict any``;
Java and JavaScript categories add their own names (``String``, ``long``,
``ArrayList``, ``HashMap``, ``Bigint`` ...), whose model-side values are
source-code strings converted before checking (see :mod:`ek.bfcl.javalike`).
"""

from __future__ import annotations

PYTHON = "python"
JAVA = "java"
JAVASCRIPT = "javascript"

#: Python type of a value of each BFCL type (``any`` is checked as a string, as BFCL does).
PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "number": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "object": dict,
    "any": str,
}

#: Java type name -> Python type of the converted value.
JAVA_TYPES: dict[str, type] = {
    "byte": int, "short": int, "integer": int, "long": int,
    "float": float, "double": float,
    "boolean": bool, "char": str, "String": str, "any": str,
    "Array": list, "ArrayList": list, "Queue": list, "Stack": list, "Set": set,
    "HashMap": dict, "Hashtable": dict,
}

#: JavaScript type name -> Python type of the converted value.
JAVASCRIPT_TYPES: dict[str, type] = {
    "String": str, "integer": int, "float": float, "Bigint": int, "Boolean": bool,
    "dict": dict, "array": list, "any": str,
}

#: Types whose items BFCL type-checks (one level deep).
NESTED_PYTHON = frozenset({"array", "tuple"})
NESTED_JAVALIKE = frozenset({"Array", "ArrayList", "array"})


def language_of(category: str) -> str:
    """``java``, ``javascript`` or ``python``, from a BFCL category name (BFCL's own rule).

    >>> language_of("simple_javascript"), language_of("simple_java"), language_of("live_multiple")
    ('javascript', 'java', 'python')
    """
    if "javascript" in category:
        return JAVASCRIPT
    if "java" in category:
        return JAVA
    return PYTHON


def source_language(entry_id: str) -> str | None:
    """``java`` or ``javascript`` for the id of an entry of those categories, whose argument values are
    source text (the category is the id less its number, as BFCL's checker reads it); None for any other.

    >>> source_language("simple_java_12"), source_language("simple_javascript_3"), source_language("multiple_4")
    ('java', 'javascript', None)
    """
    if "java" not in entry_id:  # most ids: no category of theirs names Java
        return None
    language = language_of(entry_id.rsplit("_", 1)[0])
    return None if language == PYTHON else language


def types_for(language: str) -> dict[str, type]:
    return {PYTHON: PYTHON_TYPES, JAVA: JAVA_TYPES, JAVASCRIPT: JAVASCRIPT_TYPES}[language]
