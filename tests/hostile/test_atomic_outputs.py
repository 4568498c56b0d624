"""Every file ek writes is written atomically: the previous file or the complete new one, never a truncated one."""

from __future__ import annotations

import ast
import json
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ekcli import EXAMPLE, synthetic_corpus

import ek
from ek.atomicfile import write_json_atomic, write_text_atomic

SRC = Path(ek.__file__).parent


def test_a_crash_before_the_rename_leaves_the_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    target.write_text("old\n")

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new\n" * 1000)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_symlink_keeps_pointing_and_its_file_gets_the_new_text(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_json_atomic(link, {"a": "\udfff"})
    assert link.is_symlink() and json.loads(real.read_text()) == {"a": "\udfff"}
    assert "\\udfff" in real.read_text()  # UTF-8 cannot hold a lone surrogate: its JSON escape is written


def test_a_symlink_to_nothing_is_refused_naming_it_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    """A link to a file that does not exist (or a folder on the way that is one) was written through: the file,
    and every folder on the way to it, appeared wherever the link pointed. Every writer now refuses it, naming
    the link, and writes nothing anywhere."""
    from ek.atomicfile import open_text_atomic, write_bytes_atomic, write_texts_atomic

    elsewhere = tmp_path / "elsewhere"
    out = tmp_path / "out"
    out.mkdir()
    link = out / "report.json"
    link.symlink_to(elsewhere / "deep" / "report.json")
    folder_link = out / "runs"
    folder_link.symlink_to(elsewhere / "runs")

    def with_handle(path: Path) -> None:
        with open_text_atomic(path) as handle:
            handle.write("new")

    writers = [lambda p: write_text_atomic(p, "new"), lambda p: write_json_atomic(p, {}), with_handle,
               lambda p: write_bytes_atomic(p, b"new"), lambda p: write_texts_atomic({out / "other.json": "x", p: "x"})]
    for write in writers:
        for path, named in [(link, link), (folder_link / "a" / "report.json", folder_link)]:
            with pytest.raises(OSError, match="a symlink to .*which does not exist") as caught:
                write(path)
            assert str(named) in f"{caught.value.filename} {caught.value.strerror}"  # what a CLI prints
    assert not elsewhere.exists()
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "runs"]  # no temp file, no other.json
    assert link.is_symlink() and folder_link.is_symlink()


def test_ek_gen_refuses_to_write_a_module_through_a_symlink_to_nothing(tmp_path: Path) -> None:
    from ekcli import run_ek

    schema = tmp_path / "demo.ek"
    schema.write_text("grammar demo 1\ntool ping {\n    host: str\n}\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "demo_v1.py").symlink_to(tmp_path / "elsewhere" / "deep" / "x.py")
    proc = run_ek("gen", schema, "-o", out)
    assert proc.returncode == 1, proc.stderr
    assert f"cannot write {out / 'demo_v1.py'}: a symlink to {tmp_path / 'elsewhere' / 'deep' / 'x.py'}" in proc.stderr
    assert not (tmp_path / "elsewhere").exists() and sorted(p.name for p in out.iterdir()) == ["demo_v1.py"]


def test_missing_folders_of_a_target_are_created(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "2026-12-05" / "report.json"
    write_json_atomic(target, {"f1": 1.0})
    assert json.loads(target.read_text()) == {"f1": 1.0}
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]


def test_a_device_is_written_in_place_never_replaced() -> None:
    write_text_atomic("/dev/null", "anything")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_new_file_gets_the_mode_a_plain_write_gives_and_a_replaced_file_keeps_its_own(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_text_atomic(tmp_path / "new.txt", "x")
        kept = tmp_path / "kept.txt"
        kept.write_text("x")
        kept.chmod(0o640)
        write_text_atomic(kept, "y")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.txt").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o640


def _writes_files(tree: ast.AST) -> list[int]:
    """Lines that open a file for writing, or write one through pathlib, in one module."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        if name.endswith(("write_text", "write_bytes")):
            lines.append(node.lineno)
        elif name in ("open", "io.open", "os.fdopen") or name.endswith(".open"):
            modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords if k.arg == "mode"]
            if any(isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax+")
                   for m in modes):
                lines.append(node.lineno)
    return lines


def test_no_module_writes_a_file_except_through_the_atomic_writer() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "atomicfile.py":
            continue
        source = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(SRC)}:{line}" for line in _writes_files(ast.parse(source))]
    assert offenders == []


@pytest.mark.slow
def test_score_killed_at_any_moment_leaves_the_old_reports_or_complete_new_ones(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "corpus.jsonl", 3000)
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    command = [sys.executable, "-m", "ek", "score", str(corpus), "--grammar", str(EXAMPLE / "travel-v2.ek"),
               "--json", str(out_json), "--html", str(out_html)]
    start = time.monotonic()
    finished = subprocess.run(command, capture_output=True, check=False, timeout=300)
    whole_run = time.monotonic() - start
    assert finished.returncode == 0, finished.stderr
    rng = random.Random(7)
    for attempt in range(12):
        out_json.write_text('{"previous": true}\n')
        out_html.write_text("<p>previous</p>\n")
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # spread the kills over the whole run, the last ones around the moment the reports are written
        time.sleep(whole_run * (rng.uniform(0.85, 1.0) if attempt % 2 else rng.uniform(0.0, 1.0)))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        report = json.loads(out_json.read_text())  # a truncated file would not parse
        assert report == {"previous": True} or report["corpus"]["episodes_scored"] == 3000
        page = out_html.read_text()
        assert page == "<p>previous</p>\n" or page.rstrip().endswith("</html>")
