"""Memory in proportion to the input: peak RSS of the real CLI on large schemas, measured in a child process.

What blew up, and is held here: the lexer's regexes kept backtracking state per character of a string or
of a run of blank lines (a 2 MB doc string took 520 MB to lint); a megabyte-long regex was parsed by ``re``
before anything refused it (250 MB); ``ek gen`` compiled a 76 MB module in one go to check it (7.7 GB for
30,000 tools) and a 200,000-member enum into one statement (580 MB). Bounds are generous (several times
what is used now) and far below what each shape took before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ek.codegen import GenerationError, emitter, generate
from ek.grammar import parse

HEAD = "grammar g 1\n"
MIB = 1024 * 1024

_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run([sys.executable, '-m', 'ek', *sys.argv[1:]], stdout=subprocess.DEVNULL,"
    " stderr=subprocess.PIPE, text=True)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
)


def peak_mib(*args: str | Path, cwd: Path) -> tuple[float, int]:
    """Peak resident memory (MiB) and exit status of ``ek ARGS``, run as the only child of a fresh process."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600, check=True)
    kib, status = done.stdout.split()
    return int(kib) / 1024, int(status)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_2mb_doc_string_lints_generates_formats_and_exports_under_300_mib(tmp_path: Path) -> None:
    schema = _write(tmp_path, "doc.ek", HEAD + 'tool t {\n    "' + "d" * 2_000_000 + '"\n    x: str\n}\n')
    long_doc = _write(tmp_path, "long.ek", HEAD + 'tool t {\n    """' + ("word " * 20 + "\n") * 20_000 + '"""\n}\n')
    for path in (schema, long_doc):
        for args in (["lint", path], ["fmt", path], ["gen", "-o", tmp_path / "out", path],
                     ["export", "--to", "openai", path]):
            peak, status = peak_mib(*args, cwd=tmp_path)
            assert status == 0 and peak < 300, (args[0], path.name, peak)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "text", "status"), [
    ("blank lines", HEAD + "\n" * 2_000_000 + "tool t {\n    x: str\n}\n", 0),
    ("a 2 MB regex", HEAD + "tool t {\n    x: str /" + "a" * 2_000_000 + "/\n}\n", 1),
    ("200,000 enum members", HEAD + "tool t {\n    x: enum(" + ", ".join(f"m{i}" for i in range(200_000)) + ")\n}\n", 1),
    ("a default of 300,000 items", HEAD + "tool t {\n    x: list[int] = [" + ", ".join(["1"] * 300_000) + "]\n}\n", 1),
])
def test_large_schemas_of_every_shape_lint_and_generate_in_bounded_memory(name: str, text: str, status: int,
                                                                          tmp_path: Path) -> None:
    schema = _write(tmp_path, "big.ek", text)
    for args in (["lint", schema], ["gen", "-o", tmp_path / "out", schema]):
        peak, got = peak_mib(*args, cwd=tmp_path)
        assert got == status and peak < 150, (name, args[0], peak)


@pytest.mark.slow
def test_generating_thousands_of_tools_checks_the_module_in_pieces(tmp_path: Path) -> None:
    tools = "".join(f'tool t{i} {{\n    "doc {i}"\n    a{i}: str [1..10] = "x"\n    b: int [0..5]\n}}\n'
                    for i in range(5000))
    schema = _write(tmp_path, "many.ek", HEAD + tools)
    peak, status = peak_mib("gen", "-o", tmp_path / "out", schema, cwd=tmp_path)
    assert status == 0 and peak < 400, peak  # 1.3 GB when the 12 MB module was compiled at once


@pytest.mark.slow
def test_import_of_large_json_stays_small(tmp_path: Path) -> None:
    source = _write(tmp_path, "big.json", json.dumps({
        "title": "t", "type": "object", "description": "d" * 2_000_000,
        "properties": {"x": {"type": "string", "pattern": "a" * 1_000_000},
                       "y": {"type": "string", "enum": [f"m{i}" for i in range(100_000)]}}}))
    peak, status = peak_mib("import", "--from", "jsonschema", "-o", tmp_path / "out.ek", source, cwd=tmp_path)
    assert status == 0 and peak < 200, peak


def test_the_compile_check_in_pieces_still_catches_a_broken_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a table keep their brackets, every line is checked, and a broken line is still found."""
    monkeypatch.setattr(emitter, "_COMPILED_AT_ONCE", 300)
    grammar = parse(HEAD + "".join(f'tool t{i} {{\n    "d{i}"\n    x: enum(a, b) = a\n}}\n' for i in range(40)))
    source = generate(grammar)
    pieces = list(emitter._statement_runs(source))
    assert len(pieces) > 20
    for _, piece in pieces:
        compile(piece, "piece", "exec", dont_inherit=True)
    covered = {line for _, piece in pieces for line in piece.splitlines()}
    assert set(source.splitlines()) <= covered
    table_item = next(line for line in source.splitlines() if line.startswith("    't17': "))
    with pytest.raises(GenerationError, match="does not compile"):
        emitter._parsed(source.replace(table_item, table_item.replace("'t17':", "'t17'")), "broken")


@pytest.mark.slow
def test_scoring_a_megabyte_of_python_calls_on_separate_lines_stays_small(tmp_path: Path) -> None:
    """Calls one a line, a call's list across lines and a list of calls cut short: 730, 480 and 350 MB in
    ``ast.parse`` (in each --jobs worker at once) before plain lines were read by the fast path and other
    text past OUTPUT_AST_MAX_TOKENS tokens was refused."""
    gold = [{"name": "f", "arguments": {"x": 1}}]
    corpus = _write(tmp_path, "c.jsonl", "".join(json.dumps({"id": name, "pred": pred, "gold": gold}) + "\n" for
                                                 name, pred in (("lines", "\n".join(["f(x=1)"] * 140_000)),
                                                                ("list", "f(x=[\n" + "1,\n" * 330_000 + "])"),
                                                                ("cut", "[" + "f(x=1),\n" * 110_000),
                                                                ("small", "f(x=1)"))))
    peak, status = peak_mib("score", corpus, "--json", tmp_path / "out.json", cwd=tmp_path)
    report = json.loads((tmp_path / "out.json").read_text())
    assert status == 0 and peak < 120, peak
    assert (report["corpus"]["episodes_scored"], report["corpus"]["unparseable_outputs"]) == (4, 2), report["corpus"]


@pytest.mark.slow
def test_a_line_past_the_corpus_limit_costs_about_twice_the_limit(tmp_path: Path) -> None:
    """A file with no line break (NULs, a gzip of zeros) is one error line read no further than
    CORPUS_LINE_MAX_BYTES at once: 221 MiB while the line's first 64 MiB were held as its rest was read 64 MiB
    at a time, 155 MiB now (the first read itself, joined from the stream's buffers, takes twice the limit)."""
    from ek.limits import CORPUS_LINE_MAX_BYTES

    good = json.dumps({"id": "ok", "pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 1}}]}).encode()
    corpus = tmp_path / "nul.jsonl"
    with corpus.open("wb") as out:
        for _ in range(2 * CORPUS_LINE_MAX_BYTES // MIB):
            out.write(b"\0" * MIB)
        out.write(b"\n" + good + b"\n")
    peak, status = peak_mib("score", corpus, "--json", tmp_path / "out.json", cwd=tmp_path)
    report = json.loads((tmp_path / "out.json").read_text())
    assert status == 1 and (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (1, 1)
    assert peak < 2 * CORPUS_LINE_MAX_BYTES / MIB + 60, peak
