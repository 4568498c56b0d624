"""``ek import`` and ``ek export`` run for real as subprocesses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ekcli import run_ek as ek

from ek.grammar import load, parse

ROOT = Path(__file__).resolve().parents[2]


def test_export_then_import_through_files(tmp_path: Path) -> None:
    exported = ek("export", "--to", "anthropic", "schemas/travel-v2.ek")
    assert exported.returncode == 0, exported.stderr
    assert "math.hypot" in exported.stderr and "API will refuse" in exported.stderr
    tools = json.loads(exported.stdout)
    assert [t["name"] for t in tools][:2] == ["search_flights", "book_flight"]
    source = tmp_path / "tools.json"
    source.write_text(exported.stdout)
    out = tmp_path / "travel-v2.ek"
    imported = ek("import", "--from", "anthropic", str(source), "--name", "travel", "--version", "2", "-o", str(out))
    assert imported.returncode == 0, imported.stderr
    assert imported.stderr == ""
    original = load(ROOT / "schemas" / "travel-v2.ek")
    assert load(out).tools == original.tools


def test_import_prints_ek_and_reports_losses_on_stderr(tmp_path: Path) -> None:
    source = tmp_path / "weather.json"
    source.write_text(json.dumps({"tools": [{"name": "get_weather", "description": "Weather now.", "inputSchema": {
        "type": "object", "properties": {"city": {"type": "string", "minLength": 1},
                                         "units": {"oneOf": [{"const": "c"}, {"type": "integer"}]}},
        "required": ["city"]}}]}))
    result = ek("import", "--from", "mcp", str(source))
    assert result.returncode == 0
    grammar = parse(result.stdout)
    assert grammar.key == "weather@1"
    assert result.stderr.strip() == (f"{source}: $.tools[0].inputSchema.properties.units.oneOf: warning: "
                                     "oneOf of enum(c) | int cannot be expressed (.ek has no union type); widened to any")
    strict = ek("import", "--from", "mcp", str(source), "--strict")
    assert strict.returncode == 1


def test_import_reads_bfcl_json_lines_and_stdin() -> None:
    text = (ROOT / "tests" / "data" / "bfcl" / "BFCL_v4_simple_python.json").read_text()
    result = ek("import", "--from", "bfcl", "-", "--name", "simple", stdin=text)
    assert result.returncode == 0, result.stderr
    grammar = parse(result.stdout)
    assert grammar.tool("calculate_triangle_area") is not None


def test_bad_inputs_give_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = ek("import", "--from", "openai", str(bad))
    assert result.returncode == 2
    assert f"{bad}:1:2: not JSON" in result.stderr
    missing = ek("export", "--to", "openai", str(tmp_path / "missing.ek"))
    assert missing.returncode == 2
    assert "cannot read schema" in missing.stderr
    wrong = ek("export", "--to", "yaml", "schemas/travel-v1.ek")
    assert wrong.returncode == 2 and "invalid choice" in wrong.stderr


def test_hostile_json_file_is_a_clear_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = ek("import", "--from", "openai", str(deep))
    assert result.returncode == 2
    assert "nests too deeply" in result.stderr
    assert "Traceback" not in result.stderr


def test_duplicate_keys_in_a_tool_file_are_an_error_not_a_silent_pick(tmp_path: Path) -> None:
    # json.loads keeps the last "a": the string property would vanish without a word.
    dup = tmp_path / "dup.json"
    dup.write_text('[{"name": "f", "input_schema": {"type": "object", "properties": {\n'
                   '  "a": {"type": "string"}, "a": {"type": "integer"}}}}]')
    result = ek("import", "--from", "anthropic", str(dup))
    assert result.returncode == 2, result.stdout
    assert f"{dup}:2:28: duplicate key 'a'" in result.stderr


def test_unreadable_files_and_outputs_are_named_without_a_traceback(tmp_path: Path) -> None:
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'[{"name": "caf\xe9"}]')
    result = ek("import", "--from", "anthropic", str(latin))
    assert result.returncode == 2 and f"{latin}: not UTF-8" in result.stderr, result.stderr
    for command in (("import", "--from", "bfcl", "tests/data/bfcl/BFCL_v4_simple_python.json"),
                    ("export", "--to", "openai", "schemas/travel-v1.ek")):
        out = ek(*command, "-o", str(tmp_path / "no" / "such" / "dir.out"))
        assert out.returncode == 2, out.stderr
        assert "Traceback" not in out.stderr and "cannot write" in out.stderr, out.stderr


def test_grammar_names_are_checked_and_file_names_made_usable(tmp_path: Path) -> None:
    bad = ek("import", "--from", "bfcl", "--name", "my tools", "tests/data/bfcl/BFCL_v4_simple_python.json")
    assert bad.returncode == 2 and "--name" in bad.stderr and "spaces" in bad.stderr
    escaped = ek("import", "--from", "bfcl", "--name", "a\x1b[2Jb", "tests/data/bfcl/BFCL_v4_simple_python.json")
    assert escaped.returncode == 2 and "--name 'a\\x1b[2Jb'" in escaped.stderr
    assert "control characters" in escaped.stderr and "\x1b" not in escaped.stderr
    spaced = tmp_path / "my tools@v2.json"
    spaced.write_text('[{"name": "f", "parameters": {"type": "dict", "properties": {}}}]')
    out = tmp_path / "out.ek"
    result = ek("import", "--from", "bfcl", str(spaced), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith("grammar my_tools_v2 1\n")
    assert ek("lint", str(out)).returncode == 0


def test_a_tool_file_starting_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows tools save JSON with a BOM; it was reported as 'not JSON: Expecting value' at 1:1."""
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object",
                                                                          "properties": {"x": {"type": "string"}}}}}]
    path = tmp_path / "tools.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(tools).encode("utf-8"))
    proc = ek("import", "--from", "openai", path)
    assert proc.returncode == 0, proc.stderr
    assert parse(proc.stdout).tool("t") is not None
    proc = ek("import", "--from", "openai", "-", stdin="\ufeff" + json.dumps(tools))
    assert proc.returncode == 0 and parse(proc.stdout).tool("t") is not None, proc.stderr


def test_an_output_that_is_the_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    """`ek export s.ek -o s.ek` replaced the schema with JSON (and `ek import t.json -o t.json` the tool file with
    .ek text), exit 0: the one copy of the input was gone. Through a symlink and through stdin's redirect too."""
    schema = tmp_path / "s.ek"
    schema.write_text((ROOT / "schemas" / "travel-v1.ek").read_text())
    (tmp_path / "link.ek").symlink_to(schema)
    tools = tmp_path / "t.json"
    tools.write_text(ek("export", "--to", "openai", schema).stdout)
    before = schema.read_text(), tools.read_text()
    runs = [ek("export", "--to", "openai", schema, "-o", schema),
            ek("export", "--to", "openai", schema, "-o", tmp_path / "link.ek"),
            ek("import", "--from", "openai", tools, "-o", tools),
            ek("import", "--from", "openai", "-", "-o", tools, stdin_file=tools)]
    for proc in runs:
        assert proc.returncode == 2, proc.stderr
        assert "is also the input" in proc.stderr and "Traceback" not in proc.stderr
    assert "(stdin)" in runs[-1].stderr
    assert (schema.read_text(), tools.read_text()) == before


def test_export_reads_the_schema_from_stdin_for_every_target(tmp_path: Path) -> None:
    """`ek export - --to openai` looked for a file named '-' ("-:1:1: error: cannot read schema"), exit 2, while
    `ek fmt -` and `ek import -` read stdin. Now every target reads it, and its diagnostics name <stdin>."""
    schema = ROOT / "schemas" / "travel-v2.ek"
    text = schema.read_text()
    said = {}
    for target in ("openai", "anthropic", "mcp", "jsonschema"):
        from_file, from_stdin = ek("export", "--to", target, schema), ek("export", "-", "--to", target, stdin=text)
        assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stderr
        assert from_stdin.stdout == from_file.stdout
        assert from_stdin.stderr == from_file.stderr.replace(str(schema), "<stdin>")  # its issues, named <stdin>
        said[target] = from_stdin.stderr
    assert said["anthropic"].startswith("<stdin>: $[5].name: warning:") and "API will refuse" in said["anthropic"]
    broken = ek("export", "-", "--to", "openai", stdin="grammar g 1\ntool t {\n    a: nope\n}\n")
    assert broken.returncode == 2 and broken.stdout == "" and broken.stderr.startswith("<stdin>:3:"), broken.stderr
    assert "Traceback" not in broken.stderr
    out = tmp_path / "s.ek"
    out.write_text(text)
    over = ek("export", "-", "--to", "openai", "-o", out, stdin_file=out)  # stdin's redirect is the input
    assert over.returncode == 2 and "is also the input (stdin)" in over.stderr and out.read_text() == text
    written = ek("export", "-", "--to", "openai", "-o", tmp_path / "t.json", stdin=text)
    assert written.returncode == 0 and json.loads((tmp_path / "t.json").read_text())[0]["type"] == "function"


def test_export_indent_is_bounded() -> None:
    """`--indent 1000000` wrote a gigabyte for the travel schema and `--indent 1000000000` died of a MemoryError
    traceback; a negative indent was taken as 'newlines, no indent'. Now 0 to EXPORT_MAX_INDENT, else exit 2."""
    from ek.limits import EXPORT_MAX_INDENT

    schema = ROOT / "schemas" / "travel-v1.ek"
    for bad in ("1000000000", str(EXPORT_MAX_INDENT + 1), "-1", "two"):
        proc = ek("export", "--to", "openai", schema, "--indent", bad)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert f"--indent: expected a whole number from 0 to {EXPORT_MAX_INDENT}" in proc.stderr
    widest = ek("export", "--to", "openai", schema, "--indent", str(EXPORT_MAX_INDENT))
    assert widest.returncode == 0 and "\n" + " " * EXPORT_MAX_INDENT + "{" in widest.stdout
    assert "\n" not in ek("export", "--to", "openai", schema, "--indent", "0").stdout.rstrip("\n")


def test_a_file_name_in_a_warning_cannot_drive_the_terminal(tmp_path: Path) -> None:
    schema = tmp_path / "g\x1b[31m\u202e.ek"
    schema.write_text("grammar g 1\ntool f { a: any }\n", encoding="utf-8")
    exported = ek("export", "--to", "openai", "--openai-strict", str(schema))
    assert exported.returncode == 0, exported.stderr
    assert "strict" in exported.stderr and "g\\x1b[31m\\u202e.ek" in exported.stderr
    tools = tmp_path / "t\x1b[31m.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string", "format": "no-such-format"}}}}}]), encoding="utf-8")
    imported = ek("import", "--from", "openai", str(tools))
    assert "t\\x1b[31m.json" in imported.stderr, imported.stderr
    for stderr in (exported.stderr, imported.stderr):
        assert "\x1b" not in stderr and "\u202e" not in stderr


def test_import_names_stdin_as_the_schema_commands_do() -> None:
    """`ek import -` named stdin '-' when it could not be read ("-: not UTF-8: ...") and '<stdin>' when it was not
    JSON; both name it <stdin> now (ek.boundedread.STDIN_NAME, the one spelling)."""
    not_utf8 = subprocess.run([sys.executable, "-m", "ek", "import", "--from", "openai", "-"], input=b"\xff[]",
                              capture_output=True, check=False, timeout=60)
    assert not_utf8.returncode == 2
    assert not_utf8.stderr.decode() == "ek import: error: <stdin>: not UTF-8: invalid start byte at byte 0\n"
    not_json = ek("import", "--from", "openai", "-", stdin="{")
    assert not_json.returncode == 2 and not_json.stderr.startswith("ek import: error: <stdin>:1:2: not JSON")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_import_with_a_closed_stdin_is_a_clear_error() -> None:
    """`ek import --from openai - <&-` died of an AttributeError traceback (Python's sys.stdin is None then)."""
    proc = subprocess.run(["bash", "-c", '"$1" -m ek import --from openai - <&-', "-", sys.executable],
                          capture_output=True, text=True, check=False, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr == "ek import: error: <stdin>: cannot read: standard input is closed\n"
