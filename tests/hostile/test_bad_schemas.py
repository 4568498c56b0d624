"""No traceback for a bad schema: ``ek lint``, ``gen``, ``export`` and ``import`` each answer a hostile schema
with a located diagnostic and a non-zero exit, and never let a Python warning through.

Every case runs the real CLI. The hostile parts: floats with hundreds of digits, regex counts past what
``re`` takes, lone surrogates, control characters in names, huge lengths, regexes ``re`` warns about.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from ekcli import run_ek

HEAD = "grammar g 1\n"
BIG = "1" + "0" * 400  # an int no float holds

#: name -> (schema text, the diagnostic's FILE:LINE:COL suffix, a phrase of its message)
BAD_EK: dict[str, tuple[str, str, str]] = {
    "float default of 400 digits": (HEAD + f"tool t {{\n    x: float = {BIG}\n}}\n", ":3:16:", "too large for a float"),
    "weight of 400 digits": (HEAD + f"tool t weight {BIG} {{\n    x: str\n}}\n", ":2:15:", "too large for a float"),
    "importance of 400 digits": (HEAD + f"tool t {{\n    x: str importance {BIG}\n}}\n", ":3:23:",
                                 "too large for a float"),
    "tolerance of 400 digits": (HEAD + f"tool t {{\n    x: float compare tol({BIG})\n}}\n", ":3:22:",
                                "too large for a float"),
    "regex count past re's": (HEAD + "tool t {\n    x: str /a{99999999999}/\n}\n", ":3:12:",
                              "the repetition number is too large"),
    "regex re warns about": (HEAD + "tool t {\n    x: str /[[:alpha:]]+/\n}\n", ":3:12:", "Possible nested set"),
    "backtracking regex": (HEAD + "tool t {\n    x: str /(x+x+)+y/\n}\n", ":3:12:", "exponential time"),
    "lone surrogate in a doc": (HEAD + 'tool t {\n    "doc \\ud800"\n    x: str\n}\n', ":3:10:",
                                "lone UTF-16 surrogate"),
    "lone surrogate in a default": (HEAD + 'tool t {\n    x: str = "\\udc00"\n}\n', ":3:15:", "lone UTF-16 surrogate"),
    "lone surrogate in a name": (HEAD + 'tool "a\\ud83d" {\n    x: str\n}\n', ":2:8:", "lone UTF-16 surrogate"),
    "NUL in a tool name": (HEAD + 'tool "a\\0b" {\n    x: str\n}\n', ":2:6:", "control character U+0000"),
    "ESC in an argument name": (HEAD + 'tool t {\n    "a\\u001b[31m": str\n}\n', ":3:5:",
                                "control character U+001B"),
    "raw ESC in the text": (HEAD + "tool a\x1b[2Jb {\n    x: str\n}\n", ":2:7:", "unexpected character '\\x1b'"),
    "number past int's digits": (HEAD + "tool t {\n    x: int = 1" + "0" * 4400 + "\n}\n", ":3:14:", "too large"),
}

#: Hostile schemas that are fine: each command succeeds, and the generated module imports.
GOOD_EK: dict[str, str] = {
    "huge maxLength": HEAD + "tool t {\n    x: str [0..9" + "9" * 40 + "]\n}\n",
    "float range bound of 400 digits": HEAD + f"tool t {{\n    x: float [0..{BIG}] = 2.5\n}}\n",
    "surrogate pair escape": HEAD + 'tool t {\n    "smile \\ud83d\\ude00"\n    x: str = "\\ud83d\\ude00"\n}\n',
    "control characters in a doc": HEAD + 'tool t {\n    "bell \\u0007 esc \\u001b[2J nul \\0 \\"\\"\\" end"\n'
                                          '    x: str "\u2028 and \\\\"\n}\n',
    "2 MB doc": HEAD + 'tool t {\n    "' + "d" * 2_000_000 + '"\n    x: str\n}\n',
}


def _clean(stderr: str) -> None:
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr[-2000:]
    assert "\x1b" not in stderr  # schema text cannot reach the terminal as control sequences


@pytest.mark.parametrize("case", sorted(BAD_EK))
def test_lint_gen_and_export_report_a_bad_schema_where_it_is(case: str, tmp_path: Path) -> None:
    text, where, phrase = BAD_EK[case]
    schema = tmp_path / "bad.ek"
    schema.write_text(text, encoding="utf-8")
    for args in (["lint"], ["gen", "-o", str(tmp_path / "out")], ["export", "--to", "openai"]):
        done = run_ek(*args, schema)
        assert done.returncode != 0, (args, done.stderr)
        _clean(done.stderr)
        assert re.search(rf"bad\.ek{where} error: .*{re.escape(phrase)}", done.stderr), (args, done.stderr[:500])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", sorted(GOOD_EK))
def test_a_hostile_but_valid_schema_lints_generates_a_module_that_imports_and_exports(case: str,
                                                                                      tmp_path: Path) -> None:
    schema = tmp_path / "good.ek"
    schema.write_text(GOOD_EK[case], encoding="utf-8")
    for args in (["lint"], ["gen", "-o", str(tmp_path / "out")], ["export", "--to", "jsonschema"]):
        done = run_ek(*args, schema)
        assert done.returncode == 0, (args, done.stderr[-1000:])
        _clean(done.stderr)
    json.loads(done.stdout)
    spec = importlib.util.spec_from_file_location("hostile_good", tmp_path / "out" / "g_v1.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile_good"] = module
    try:
        spec.loader.exec_module(module)
        value = 2.5 if "float" in case else "ok"
        assert module.validate("t", {"x": value}) == []
        assert [v.path for v in module.validate("t", {"x": [value]})] == ["$.x"]
    finally:
        del sys.modules["hostile_good"]


def _nested_list(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def _tool(properties: dict, **extra: object) -> dict:
    return {"title": "t", "type": "object", "properties": properties, **extra}


#: name -> (JSON text, expected exit status, the diagnostic: a JSON path or FILE:LINE:COL, and a phrase)
BAD_JSON: dict[str, tuple[str, int, str, str]] = {
    "number default of 400 digits": (json.dumps(_tool({"x": {"type": "number", "default": int(BIG)}})), 0,
                                     "$.properties.x.default: warning:", "too large for a float"),
    "maximum of 400 digits": (json.dumps(_tool({"x": {"type": "number", "maximum": int(BIG), "default": 2}})), 0,
                              "", ""),
    "importance of 400 digits": (json.dumps(_tool({"x": {"type": "string", "x-ek-importance": int(BIG)}})), 0,
                                 "$.properties.x['x-ek-importance']: warning:", "positive number"),
    "an int of 5000 digits": ('{"title": "t", "type": "object", "properties": {"x": {"type": "integer", '
                              '"default": 1' + "0" * 5000 + "}}}", 2, "bad.json:1:85:", "5001 digits"),
    "regex count past re's": (json.dumps(_tool({"x": {"type": "string", "pattern": "a{99999999999}"}})), 0,
                              "$.properties.x.pattern: warning:", "not a regex"),
    "regex re warns about": (json.dumps(_tool({"x": {"type": "string", "pattern": "[[:alpha:]]"}})), 0,
                             "$.properties.x.pattern: warning:", "not a regex"),
    "backtracking regex": (json.dumps(_tool({"x": {"type": "string", "pattern": "^(a|aa)+$"}})), 0,
                           "$.properties.x.pattern: warning:", "exponential time"),
    "lone surrogate in a description": (json.dumps(_tool({"x": {"type": "string", "description": "\ud800"}})), 2,
                                        "bad.json: $.properties.x.description:", "lone UTF-16 surrogate"),
    "lone surrogate in a property name": (json.dumps(_tool({"\udc00": {"type": "string"}})), 2,
                                          "bad.json: $.properties['\\\\udc00']:", "lone UTF-16 surrogate"),
    "lone surrogate in a pattern": (json.dumps(_tool({"x": {"type": "string", "pattern": "\ud800"}})), 2,
                                    "bad.json: $.properties.x.pattern:", "lone UTF-16 surrogate"),
    "NUL in a property name": (json.dumps(_tool({"a\u0000b": {"type": "string"}})), 1,
                               "$.properties['a\\x00b']: error:", "control character U+0000"),
    "ESC in a tool name": (json.dumps(_tool({"x": {"type": "string"}}) | {"title": "t\u001b[31m"}), 1,
                           "$: error:", "control character U+001B"),
    "huge maxLength": (json.dumps(_tool({"x": {"type": "string", "maxLength": 10**40}})), 0, "", ""),
    "default nested 500 deep": (json.dumps(_tool({"x": {"type": "array", "default": _nested_list(500)}})), 0,
                                "$.properties.x.default: warning:", "SCHEMA_MAX_NESTING"),
}


@pytest.mark.parametrize("case", sorted(BAD_JSON))
def test_import_reports_a_bad_json_schema_at_its_json_path(case: str, tmp_path: Path) -> None:
    text, status, where, phrase = BAD_JSON[case]
    source = tmp_path / "bad.json"
    source.write_text(text, encoding="utf-8")
    done = run_ek("import", "--from", "jsonschema", source)
    assert done.returncode == status, done.stderr
    _clean(done.stderr)
    if where:
        assert where in done.stderr and phrase in done.stderr, done.stderr[-1000:]
    if status != 2:  # what was imported lints, and exports again
        imported = tmp_path / "imported.ek"
        imported.write_text(done.stdout, encoding="utf-8")
        for args in (["lint"], ["export", "--to", "jsonschema"]):
            again = run_ek(*args, imported)
            assert again.returncode == 0, (args, again.stderr)
            _clean(again.stderr)
