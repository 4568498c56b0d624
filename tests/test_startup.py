"""What a process imports to score: nothing it does not use (start-up is most of a small run, and of a CI gate).

Each check runs in a fresh interpreter and reads ``sys.modules`` after real work: scoring with a grammar built in
code, and ``ek score`` on BFCL's files, never load the code generator's emitter and jinja2, the loader and Lark,
the process pool, BFCL's checker, or ``importlib.metadata``; and a validator compiled once a tool is used often
loads its emitter then, and answers as the interpreted one did.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

#: Modules a scoring run does not need until it compiles a validator, reads a schema, starts workers, checks
#: with BFCL's checker or looks for format plug-ins.
NOT_NEEDED = ("jinja2", "lark", "ek.codegen.emitter", "ek.runtime.loader", "ek.grammar.parser", "multiprocessing",
              "concurrent.futures", "ek.bfcl.checker", "importlib.metadata")


def _loaded_after(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it sets ``result``; returns it with which of NOT_NEEDED were loaded."""
    probe = (f"import sys\n{code}\n"
             f"import json\nprint(json.dumps({{'result': result, 'loaded': [m for m in {NOT_NEEDED!r} "
             "if m in sys.modules]}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_scoring_with_a_grammar_built_in_code_loads_nothing_it_does_not_use() -> None:
    got = _loaded_after(
        "from ek import ToolCallMetric\n"
        "from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec\n"
        "g = GraphGrammar('t', 1, tools=(ToolSpec('ping', (FieldSpec('host', PrimitiveType('str')),)),))\n"
        "metric = ToolCallMetric('arg', grammar=g, format='python')\n"
        "result = [metric('ping(host=\"a\")', [('ping', {'host': 'a'})]).f1, "
        "metric('ping(host=7)', [('ping', {'host': 'a'})]).f1]\n")
    assert got == {"result": [1.0, 0.5], "loaded": []}  # a wrong value: the name's unit, not the value's


def test_ek_score_on_bfcl_files_loads_nothing_it_does_not_use(tmp_path: Path, bfcl_data: Path) -> None:
    answers = bfcl_data / "possible_answer" / "BFCL_v4_simple_python.json"
    lines = []
    for raw in answers.read_text(encoding="utf-8").splitlines()[:20]:
        entry = json.loads(raw)
        (name, args), = entry["ground_truth"][0].items()
        lines.append({"id": entry["id"], "result": [{name: json.dumps({k: v[0] for k, v in args.items()})}]})
    result = tmp_path / "result.jsonl"
    result.write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = _loaded_after(
        "from ek.cli import main\n"
        f"result = main(['score', {str(result)!r}, '--format', 'bfcl', '--canonicalizer', 'bfcl', '--level', 'arg', "
        f"'--bfcl-answers', {str(answers)!r}, '--bfcl-questions', {str(bfcl_data / 'BFCL_v4_simple_python.json')!r}, "
        f"'--json', {str(tmp_path / 'r.json')!r}])\n")
    assert got == {"result": 0, "loaded": []}
    assert json.loads((tmp_path / "r.json").read_text())["corpus"]["episodes_scored"] == 20


def test_a_validator_compiled_on_use_loads_the_emitter_then_and_answers_the_same() -> None:
    got = _loaded_after(
        "from ek.limits import INTERPRETED_CALLS\n"
        "from ek.runtime import validator_for\n"
        "from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec\n"
        "g = GraphGrammar('t', 1, tools=(ToolSpec('ping', (FieldSpec('host', PrimitiveType('str')),)),))\n"
        "check = validator_for(g)\n"
        "before = [str(v) for v in check('ping', {'host': 7})]\n"
        "interpreted = 'ek.codegen.emitter' in sys.modules\n"
        "for _ in range(INTERPRETED_CALLS + 1):\n"
        "    check('ping', {'host': 'a'})\n"
        "after = [str(v) for v in check('ping', {'host': 7})]\n"
        "result = [before == after, before, interpreted, 'ek.codegen.emitter' in sys.modules, "
        "'compiled' in repr(check)]\n")
    same, violations, emitter_while_interpreted, emitter_after, compiled = got["result"]  # type: ignore[misc]
    assert same and violations == ["$.host: expected str, got int"]
    assert not emitter_while_interpreted and emitter_after and compiled


def test_ek_score_with_schemas_reads_them_without_generating_a_module(tmp_path: Path) -> None:
    """The bundled example: ``--grammar travel-v2.ek``, and lines naming ``travel@1``, resolved beside it. Both
    schemas are read (Lark); neither becomes a generated module, so the emitter and jinja2 stay unloaded."""
    example = Path(__file__).resolve().parents[1] / "examples" / "travel"
    got = _loaded_after(
        "from ek.cli import main\n"
        f"result = main(['score', {str(example / 'corpus.jsonl')!r}, '--grammar', {str(example / 'travel-v2.ek')!r}, "
        f"'--json', {str(tmp_path / 'r.json')!r}])\n"
        "result = [result, 'lark' in sys.modules]\n")
    assert got["result"] == [0, True]
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert loaded <= {"lark", "ek.runtime.loader", "ek.grammar.parser", "importlib.metadata"}
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["corpus"]["episodes_scored"] == 30
    assert [g["grammar"] for g in report["grammars"]] == [str(example / "travel-v2.ek"), "travel@1"]


def test_a_lazy_package_gives_its_submodules_as_attributes_as_an_eager_one_did() -> None:
    got = _loaded_after(
        "import ek.codegen, ek.bfcl, ek.runtime\n"
        "before = 'ek.codegen.emitter' in sys.modules\n"
        "result = [before, ek.codegen.emitter.GENERATOR_VERSION == ek.codegen.GENERATOR_VERSION,\n"
        "          ek.bfcl.checker.check is ek.bfcl.check, ek.runtime.loader.is_schema_path('a.ek')]\n"
        "try:\n"
        "    ek.codegen.no_such_name\n"
        "except AttributeError as exc:\n"
        "    result.append(str(exc))\n")
    assert got["result"] == [False, True, True, True, "module 'ek.codegen' has no attribute 'no_such_name'"]


def test_a_lazy_module_that_is_no_package_answers_an_unknown_name_with_attribute_error() -> None:
    """``ek.runtime.support`` (a module, not a package) loads names lazily too: an unknown name is an
    AttributeError, as tools that probe modules (pytest's doctest collector, ``hasattr``) expect."""
    import ek.runtime.support

    assert not hasattr(ek.runtime.support, "pytest_plugins")
    assert not hasattr(ek.codegen, "__wrapped__")
