"""`ek gen` as users run it: real subprocesses, real files, --check for CI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ekcli import run_ek as ek

pytestmark = pytest.mark.slow  # every test runs `ek gen` in a subprocess

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def copy_schemas(tmp_path: Path) -> tuple[Path, Path]:
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    for name in ("travel-v1.ek", "travel-v2.ek"):
        shutil.copy(SCHEMAS / name, schemas / name)
    return schemas / "travel-v1.ek", schemas / "travel-v2.ek"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_codegen_cli_gen_twice_is_byte_identical_and_importable(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "travel_tools"
    first = ek("gen", v1, v2, "-o", out)
    assert first.returncode == 0, first.stderr
    files = snapshot(out)
    assert sorted(files) == ["__init__.py", "travel_v1.py", "travel_v2.py"]
    second = ek("gen", v2, v1, "-o", out)
    assert second.returncode == 0 and "unchanged" in second.stdout
    assert snapshot(out) == files
    probe = (
        "import travel_tools as p; m = p.load('travel@2');"
        "print(sorted(p.VERSIONS), m.validate('get_weather', {'location': 1})[0].path)"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['travel@1', 'travel@2'] $.location"


def test_codegen_cli_check_names_stale_and_missing_files(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    fresh = ek("gen", "--check", v1, v2, "-o", out)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    v2.write_text(v2.read_text(encoding="utf-8").replace("tool get_weather {", "tool get_weather weight 2 {"), encoding="utf-8")
    (out / "travel_v1.py").unlink()
    stale = ek("gen", "--check", v1, v2, "-o", out)
    assert stale.returncode == 1
    assert f"missing: {out / 'travel_v1.py'}" in stale.stdout
    assert f"stale: {out / 'travel_v2.py'}" in stale.stdout
    assert "__init__.py" not in stale.stdout
    assert not (out / "travel_v1.py").exists()  # --check writes nothing
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    assert ek("gen", "--check", v1, v2, "-o", out).returncode == 0


def test_codegen_cli_schema_errors_print_diagnostics_and_write_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ek"
    bad.write_text("grammar bad 1\ntool t {\n    a: strng\n}\n", encoding="utf-8")
    v1, _ = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    run = ek("gen", v1, bad, "-o", out)
    assert run.returncode == 1
    assert f"{bad}:3:" in run.stderr and "strng" in run.stderr
    assert not out.exists()


def test_codegen_cli_rejects_two_schemas_with_the_same_key(tmp_path: Path) -> None:
    v1, _ = copy_schemas(tmp_path)
    twin = tmp_path / "twin.ek"
    shutil.copy(v1, twin)
    run = ek("gen", v1, twin, "-o", tmp_path / "gen")
    assert run.returncode == 1 and "travel@1" in run.stderr


def test_codegen_cli_subset_gen_keeps_the_other_modules_indexed(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    full = snapshot(out)
    (out / "helper.py").write_text("X = 1\n", encoding="utf-8")
    run = ek("gen", v2, "-o", out)
    assert run.returncode == 0 and run.stderr == ""
    assert f"unchanged: {out / '__init__.py'}" in run.stdout
    assert {k: v for k, v in snapshot(out).items() if k != "helper.py"} == full  # travel@1 is still indexed
    (out / "travel_v1.py").unlink()  # how a version is dropped: delete its module, regenerate
    assert ek("gen", v2, "-o", out).returncode == 0
    assert "travel@1" not in (out / "__init__.py").read_text(encoding="utf-8")


def test_codegen_cli_subset_check_checks_only_the_modules_asked_about(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    fresh = ek("gen", "--check", v2, "-o", out)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert fresh.stdout == f"2 generated file(s) up to date in {out}\n"
    v1.write_text(v1.read_text(encoding="utf-8").replace("tool get_weather {", "tool get_weather weight 2 {"), encoding="utf-8")
    assert ek("gen", "--check", v2, "-o", out).returncode == 0  # travel@1 went stale; not asked about
    stale = ek("gen", "--check", v1, "-o", out)
    assert stale.returncode == 1 and stale.stdout.splitlines() == [
        f"stale: {out / 'travel_v1.py'}",
        f"1 generated file(s) out of date; run: ek gen {v1} -o {out}",
    ]


def test_codegen_cli_comment_edit_is_not_stale_but_a_doc_edit_is(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    text = v2.read_text(encoding="utf-8")
    v2.write_text("# reviewed 2025-03-01\n\n" + text.replace("tool get_weather {", "# forecast only\ntool get_weather {  # see docs"),
                  encoding="utf-8")
    check = ek("gen", "--check", v1, v2, "-o", out)
    assert check.returncode == 0, check.stdout
    assert "unchanged: " + str(out / "travel_v2.py") in ek("gen", v1, v2, "-o", out).stdout
    v2.write_text(text.replace('"Search one-way flights between two airports."', '"Search one-way flights."'), encoding="utf-8")
    stale = ek("gen", "--check", v1, v2, "-o", out)
    assert stale.returncode == 1 and f"stale: {out / 'travel_v2.py'}" in stale.stdout


def test_codegen_cli_notes_modules_it_leaves_alone(tmp_path: Path) -> None:
    v1, v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    assert ek("gen", v1, v2, "-o", out).returncode == 0
    (out / "travel_v2.py").rename(out / "renamed.py")
    v1.unlink()
    run = ek("gen", v2, "-o", out)
    assert run.returncode == 0
    assert f"note: {out / 'renamed.py'} holds travel@2 under another name than travel_v2.py" in run.stderr
    assert f"note: {out / 'travel_v1.py'} (travel@1) is kept and indexed, but its schema" in run.stderr
    assert "delete the module to drop travel@1" in run.stderr
    index = (out / "__init__.py").read_text(encoding="utf-8")
    assert "'travel@1': 'travel_v1'" in index and "renamed" not in index


def test_codegen_cli_output_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    v1, _ = copy_schemas(tmp_path)
    target = tmp_path / "taken"
    target.write_text("not a folder", encoding="utf-8")
    run = ek("gen", v1, "-o", target)
    assert run.returncode == 1
    assert f"{target} exists and is not a folder" in run.stderr and "Traceback" not in run.stderr


def test_codegen_cli_written_files_get_umask_permissions_and_keep_their_own(tmp_path: Path) -> None:
    """Generated modules are readable by whoever may read the folder (not owner-only temp-file modes)."""
    v1, _ = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    run = subprocess.run(
        [sys.executable, "-c", "import os, sys, runpy; os.umask(0o022); sys.argv = sys.argv[1:]; runpy.run_module('ek', run_name='__main__')",
         "ek", "gen", str(v1), "-o", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert run.returncode == 0, run.stderr
    assert {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()} == {"__init__.py": 0o644, "travel_v1.py": 0o644}
    (out / "travel_v1.py").chmod(0o640)
    v1.write_text(v1.read_text(encoding="utf-8").replace("tool get_weather {", "tool get_weather weight 2 {"), encoding="utf-8")
    assert ek("gen", v1, "-o", out).returncode == 0
    assert (out / "travel_v1.py").stat().st_mode & 0o777 == 0o640
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_codegen_cli_compile_checks_exactly_the_files_it_writes(tmp_path: Path) -> None:
    from ek.cli.gen import to_write
    from ek.codegen import GenerationError

    broken = "def validate(:\n    pass\n"  # what a generator bug could render
    current, changed = tmp_path / "current.py", tmp_path / "changed.py"
    current.write_text(broken, encoding="utf-8")
    changed.write_text("x = 1\n", encoding="utf-8")
    # a file already holding its bytes is not written, so it is not checked again
    assert to_write({current: broken}, []) == {}
    # one whose bytes change must compile first: nothing is returned to write
    with pytest.raises(GenerationError, match="does not compile"):
        to_write({current: broken, changed: broken}, [])
    assert to_write({changed: "x = 2\n", tmp_path / "new.py": "y = 1\n"}, []) == {
        changed: "x = 2\n", tmp_path / "new.py": "y = 1\n"}


def test_codegen_cli_refuses_two_grammars_that_share_a_module_file(tmp_path: Path) -> None:
    """``a-b@1``, ``a_b@1`` and ``a.b@1`` are all ``a_b_v1.py``: one would silently replace the other's module."""
    dashed, underscored, dotted = (tmp_path / f"{n}.ek" for n in ("dashed", "underscored", "dotted"))
    dashed.write_text('grammar "a-b" 1\ntool t {\n    x: str\n}\n', encoding="utf-8")
    underscored.write_text("grammar a_b 1\ntool u {\n    y: int\n}\n", encoding="utf-8")
    dotted.write_text('grammar "a.b" 1\ntool v {\n    y: int\n}\n', encoding="utf-8")
    out = tmp_path / "out"
    together = ek("gen", dashed, underscored, "-o", out)
    assert together.returncode == 1 and not out.exists()
    assert "grammar a_b@1 would be written to a_b_v1.py, as a-b@1 of" in together.stderr
    assert ek("gen", dashed, "-o", out).returncode == 0
    module = (out / "a_b_v1.py").read_bytes()
    later = ek("gen", dotted, "-o", out)
    assert later.returncode == 1, later.stderr
    assert f"grammar a.b@1 would overwrite {out / 'a_b_v1.py'}, the module of a-b@1" in later.stderr
    assert (out / "a_b_v1.py").read_bytes() == module


def test_codegen_cli_replaces_no_file_when_one_cannot_be_written(tmp_path: Path) -> None:
    """Every changed file is written, or none is: with the index unwritable (a folder named ``__init__.py``), the
    module written before it stayed replaced and the folder was left half updated."""
    out = tmp_path / "pkg"
    (out / "__init__.py").mkdir(parents=True)
    module = out / "travel_v2.py"
    module.write_text("# an older module\n", encoding="utf-8")
    proc = ek("gen", SCHEMAS / "travel-v2.ek", "-o", out)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "cannot write" in proc.stderr and "__init__.py" in proc.stderr and "nothing was written" in proc.stderr
    assert "wrote:" not in proc.stdout
    assert module.read_text(encoding="utf-8") == "# an older module\n"
    assert sorted(p.name for p in out.iterdir()) == ["__init__.py", "travel_v2.py"]  # no temp file left


def test_write_texts_atomic_writes_every_file_or_none(tmp_path: Path) -> None:
    from ek.atomicfile import write_texts_atomic

    (tmp_path / "b.txt").mkdir()
    (tmp_path / "a.txt").write_text("old", encoding="utf-8")
    with pytest.raises(OSError) as caught:
        write_texts_atomic({tmp_path / "a.txt": "new", tmp_path / "b.txt": "x", tmp_path / "c" / "d.txt": "y"})
    assert caught.value.filename == str(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "old" and not (tmp_path / "c").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    write_texts_atomic({tmp_path / "a.txt": "new", tmp_path / "c" / "d.txt": "y"})
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "new"
    assert (tmp_path / "c" / "d.txt").read_text(encoding="utf-8") == "y"


def test_gen_refuses_stdin_saying_why(tmp_path: Path) -> None:
    """`ek gen - -o DIR` looked for a file named '-' ("-:1:1: error: cannot read schema: No such file or
    directory"). A module's place and name are known without a file (-o DIR, NAME@VERSION), but a module records
    its schema's path, which freshness checks read: from stdin it would record none and never be found stale.
    So '-' is refused, up front, saying why and what to do instead; nothing is written."""
    v1, _v2 = copy_schemas(tmp_path)
    out = tmp_path / "gen"
    for args in (("-",), (v1, "-"), ("--check", "-")):
        result = ek("gen", *args, "-o", out, stdin=v1.read_text())
        assert result.returncode == 2 and result.stdout == "", result.stderr
        assert result.stderr.startswith("ek gen: error: '-' (stdin) is no schema file: a generated module records "
                                        "the path of its schema"), result.stderr
        assert "No such file" not in result.stderr and "Save the schema to a file" in result.stderr
    assert not out.exists()
