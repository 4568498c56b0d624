"""Hostile schemas: importing the generated module runs nothing from the schema, and every
string (docs, names, enum members, patterns, defaults) survives exactly as data."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from handbuilt import import_source

import ek.grammar
from ek.codegen import generate, write_modules
from ek.codegen.emitter import render_tool_validator
from ek.grammar.model import (
    ComparePolicy,
    Constraints,
    EnumType,
    FieldSpec,
    GraphGrammar,
    ListType,
    NamedType,
    ObjectType,
    PrimitiveType,
    ToolSpec,
    TypeAlias,
)
from ek.runtime import GrammarValidator, Violation


def payloads(marker: Path) -> list[str]:
    """Texts that would run code (creating ``marker``) if pasted into source or templates."""
    touch = f'import os; os.system("touch {marker}")'
    return [
        f'"""; {touch}; """',
        f"'''; {touch}; '''",
        f'"\n{touch}\n"',
        f"\\\n{touch}",
        "ends with a backslash \\",
        f"{{{{ {touch} }}}} {{% for x in y %}}{{% endfor %}} {{# c #}}",
        f"\r{touch}\x0b\x0c\t\u2028\u2029\x1b[31m",
        f"# {touch}\n{touch}",
        f"\\N{{LATIN SMALL LETTER A}} \\x41 \\u0041 {touch}",
    ]


NAMES = [
    "os.system",
    "__init__",
    "__class__",
    "__import__",
    "class",
    "self",
    "cls",
    "args",
    "errs",
    "n0",
    "v0",
    "a0",
    "out",
    "to_args",
    "from_args",
    "TOOL_NAME",
    "_V",
    "import os",
    'x"); __import__("os").system("true',
    "ｓearch",  # fullwidth s: a look-alike of "search"
    "search",
    "\u0430b",  # Cyrillic a
    "ab",
]


def hostile_grammar(marker: Path) -> GraphGrammar:
    docs = payloads(marker)
    members = ("it's", 'say "hi"', "back\\slash", "{{ x }}", "{% raw %}", "'''", '"""', "new\nline")
    fields = tuple(
        FieldSpec(
            name,
            PrimitiveType("str"),
            required=False,
            default=docs[i % len(docs)],
            doc=docs[(i + 1) % len(docs)],
        )
        for i, name in enumerate(NAMES)
    )
    nested = ObjectType((FieldSpec('"""', EnumType(members), doc=docs[0]), FieldSpec("{{x}}", ListType(NamedType("__class__")))))
    tools = tuple(
        ToolSpec(name, fields if i % 3 == 0 else (FieldSpec("mode", EnumType(members), default="it's", required=False),), doc=docs[i % len(docs)], weight=1 + i)
        for i, name in enumerate(NAMES)
    ) + (
        ToolSpec(
            "nested",
            (
                FieldSpec("obj", nested, importance=2.5, compare=ComparePolicy("tol", 0.5)),
                FieldSpec("pat", PrimitiveType("str"), Constraints(pattern=r"""['"]{2}\d\n?"""), required=False),
            ),
        ),
    )
    return GraphGrammar(
        '__import__("os")',
        3,
        tools=tools,
        types=(TypeAlias("__class__", PrimitiveType("int"), Constraints(0, 10), doc=docs[1]),),
        source_sha256="f" * 64,
    )


def test_codegen_hostile_module_runs_nothing_and_keeps_text(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    grammar = hostile_grammar(marker)
    source = generate(grammar)
    module = import_source(source, tmp_path, "hostile_v3")
    assert not marker.exists()
    assert module.GRAMMAR == grammar
    assert module.GRAMMAR_NAME == grammar.name
    assert list(module.TOOLS) == [t.name for t in grammar.tools]
    for tool in grammar.tools:
        cls = module.TOOLS[tool.name]
        assert cls.__doc__ == (tool.doc if tool.doc is not None else f"Arguments of the tool {tool.name!r}.")
        assert cls.TOOL_NAME == tool.name
        required = [f"$.{f.name}" for f in tool.fields if f.required]
        assert [v.path for v in module.validate(tool.name, {})] == required
    wide = grammar.tools[0]
    built = module.TOOLS[wide.name].from_args({})
    assert built.to_args() == {f.name: f.default for f in wide.fields}  # defaults survive byte for byte
    assert module.validate("nested", {"obj": {'"""': "new\nline", "{{x}}": [1, 2]}, "pat": "''7\n"}) == []
    assert module.validate("nested", {"obj": {'"""': "nope", "{{x}}": [11]}, "pat": "''7\n\n"}) == [
        Violation('$.obj["\\"\\"\\""]', "expected one of \"it's\", 'say \"hi\"', 'back\\\\slash', '{{ x }}', "
                  "'{% raw %}', \"'''\", '\"\"\"', 'new\\nline', got 'nope'"),
        Violation('$.obj["{{x}}"][0]', "must be in [0..10], got 11"),
        Violation("$.pat", "must fully match /['\"]{2}\\d\\n?/, got \"''7\\n\\n\""),
    ]


def test_codegen_hostile_grammar_compiled_tool_by_tool_runs_nothing_and_agrees(tmp_path: Path) -> None:
    """The scorer's per-tool validators (ek.runtime.GrammarValidator) come from the same emitter:
    compiling each hostile tool runs nothing, its source is as safe, and verdicts match the module."""
    marker = tmp_path / "pwned"
    grammar = hostile_grammar(marker)
    module = import_source(generate(grammar), tmp_path, "hostile_lazy_v3")
    lazy = GrammarValidator(grammar)
    calls = [(t.name, args) for t in grammar.tools for args in ({}, {"zz": 1}, [], {f.name: None for f in t.fields})]
    calls.append(("nested", {"obj": {'"""': "nope", "{{x}}": [11]}, "pat": "''7\n\n"}))
    for name, args in calls:
        assert lazy(name, args) == module.validate(name, args)
    assert not marker.exists()
    for tool in grammar.tools:
        tree = ast.parse(render_tool_validator(grammar, tool))
        calls_made = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert not {c for c in calls_made if c in {"eval", "exec", "compile", "__import__", "getattr", "open"}}
        assert [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] == ["validate_args"]


def test_codegen_hostile_source_imports_only_known_modules_and_defines_only_safe_names(tmp_path: Path) -> None:
    source = generate(hostile_grammar(tmp_path / "pwned"))
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported <= {"__future__", "re", "collections.abc", "typing", "attrs", "ek.runtime.classes", "ek.runtime.support", "ek.runtime.tables",
                        "ek.runtime.violation"}
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert all(name.isascii() and name.isidentifier() and not name.startswith("__") for name in defined)
    calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not {c for c in calls if c in {"eval", "exec", "compile", "__import__", "getattr", "open"}}
    # docstrings are single literals, so no schema text can close them
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            first = node.body[0]
            assert isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)


def test_codegen_hostile_schema_text_through_the_real_parser(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        "grammar evil 1\n"
        f'tool "os.system" {{\n    """\\"\\"\\"; import os; os.system(\'touch {marker}\') # {{{{ x }}}} {{% if %}}"""\n'
        '    "class": str?\n'
        '    "__init__": enum("it\'s", "{{ y }}")?\n'
        "}\n"
    )
    schema = tmp_path / "evil.ek"
    schema.write_text(text, encoding="utf-8")
    try:
        grammar = ek.grammar.load(schema)
    except ek.grammar.SchemaError as err:  # pragma: no cover - tells which construct the DSL refused
        pytest.fail(f"the DSL refused the hostile schema: {err}")
    (path,) = write_modules([grammar], tmp_path / "gen")
    probe = f"import sys; sys.path.insert(0, {str(path.parent)!r}); import evil_v1 as m; print(repr(m.TOOLS['os.system'].__doc__))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    tool = grammar.tool("os.system")
    assert tool is not None and tool.doc is not None
    assert eval(run.stdout) == tool.doc
    assert "os.system('touch" in tool.doc
