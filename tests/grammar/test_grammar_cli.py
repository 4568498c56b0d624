"""`ek lint`, `ek fmt` and `ek diff`, run for real as subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ekcli import run_ek as ek

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
BAD = "grammar g 1\ntool t {\n    x: strng\n    y: int [9..1]\n}\n"
MESSY = "grammar  g 1\ntool t{\n  x:int   # keep me\n}\n"


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    for name in ("travel-v1.ek", "travel-v2.ek"):
        shutil.copy(SCHEMAS / name, tmp_path / name)
    (tmp_path / "bad.ek").write_text(BAD, encoding="utf-8")
    (tmp_path / "messy.ek").write_text(MESSY, encoding="utf-8")
    return tmp_path


def test_lint_clean_files_exit_zero(work):
    result = ek("lint", str(work / "travel-v1.ek"), str(work / "travel-v2.ek"))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_lint_reports_every_error_on_stderr(work):
    result = ek("lint", str(work / "travel-v1.ek"), str(work / "bad.ek"))
    assert result.returncode == 1
    assert f"{work / 'bad.ek'}:3:8: error: unknown type 'strng'; did you mean 'str'?" in result.stderr
    assert f"{work / 'bad.ek'}:4:12: error: inverted range [9..1]" in result.stderr
    assert "        x: strng\n           ^^^^^\n" in result.stderr
    assert result.stderr.rstrip().endswith("2 errors in 1 file")


def test_lint_json_lines(work):
    result = ek("lint", "--json", str(work / "bad.ek"))
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["line"], r["column"], r["end_column"], r["suggestion"]) for r in records] == [(3, 8, 13, "str"), (4, 12, 18, None)]
    assert records[0]["message"] == "unknown type 'strng'; did you mean 'str'?" and records[0]["severity"] == "error"


def test_lint_rejects_importance_on_an_object_field_at_its_place(work):
    """Scoring counts each argument as one unit, so a nested importance could only be ignored: lint says so."""
    path = work / "nested.ek"
    path.write_text("grammar g 1\ntool t {\n    meta: {\n        level: int importance 3\n    } importance 2\n}\n",
                    encoding="utf-8")
    result = ek("lint", str(path))
    assert result.returncode == 1
    assert (f"{path}:4:20: error: importance applies to a tool's arguments, not to object field 'level': each "
            "argument is scored as one unit, so put the importance on the argument that holds the object") in result.stderr
    assert result.stderr.rstrip().endswith("1 error in 1 file")


def test_lint_missing_file(work):
    result = ek("lint", str(work / "nope.ek"))
    assert result.returncode == 1 and "cannot read schema" in result.stderr


def test_fmt_prints_canonical_form(work):
    result = ek("fmt", str(work / "messy.ek"))
    assert result.returncode == 0
    assert result.stdout == "grammar g 1\n\ntool t {\n    x: int  # keep me\n}\n"
    assert (work / "messy.ek").read_text() == MESSY  # printing never writes


def test_fmt_check_names_unformatted_files_then_write_fixes_them(work):
    check = ek("fmt", "--check", str(work / "messy.ek"), str(work / "travel-v1.ek"))
    assert check.returncode == 1
    assert f"would reformat {work / 'messy.ek'}" in check.stderr
    assert "travel-v1.ek" not in check.stderr
    write = ek("fmt", "--write", str(work / "messy.ek"))
    assert write.returncode == 0 and "reformatted" in write.stderr
    assert (work / "messy.ek").read_text() == "grammar g 1\n\ntool t {\n    x: int  # keep me\n}\n"
    assert ek("fmt", "--check", str(work / "messy.ek")).returncode == 0


def test_fmt_write_keeps_the_schema_files_mode(work):
    (work / "messy.ek").chmod(0o664)
    assert ek("fmt", "--write", str(work / "messy.ek")).returncode == 0
    assert (work / "messy.ek").stat().st_mode & 0o777 == 0o664
    assert sorted(p.name for p in work.iterdir() if p.name.endswith(".tmp")) == []


def test_fmt_stdin_and_broken_input(work):
    assert ek("fmt", "-", stdin=MESSY).stdout.startswith("grammar g 1\n\ntool t {")
    broken = ek("fmt", str(work / "bad.ek"))
    assert broken.returncode == 1 and "unknown type 'strng'" in broken.stderr and broken.stdout == ""


def test_lint_reads_stdin_as_fmt_does(work):
    """`ek lint -` looked for a file named '-' ("-:1:1: error: cannot read schema") while `ek fmt -` read stdin.
    Now it reads stdin too, and its diagnostics name <stdin>, as fmt's do."""
    assert ek("lint", "-", stdin=MESSY).returncode == 0
    broken = ek("lint", "-", stdin=(work / "bad.ek").read_text())
    assert broken.returncode == 1 and broken.stderr.startswith("<stdin>:") and "unknown type 'strng'" in broken.stderr
    assert ek("fmt", "-", stdin=(work / "bad.ek").read_text()).stderr.startswith("<stdin>:")
    as_json = ek("lint", "--json", "-", stdin=(work / "bad.ek").read_text())
    assert json.loads(as_json.stdout.splitlines()[0])["file"] == "<stdin>"


def test_diff_breaking_exit_and_report(work):
    result = ek("diff", str(work / "travel-v1.ek"), str(work / "travel-v2.ek"))
    assert result.returncode == 1
    assert result.stdout.startswith("travel@1 -> travel@2: 2 breaking")
    assert "search_flights.origin: pattern /[A-Z]{3}/ added" in result.stdout


def test_diff_json_and_clean_exit(work):
    result = ek("diff", "--json", str(work / "travel-v1.ek"), str(work / "travel-v1.ek"))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"old": "travel@1", "new": "travel@1", "breaking": False, "changes": []}
    report = json.loads(ek("diff", "--json", str(work / "travel-v1.ek"), str(work / "travel-v2.ek")).stdout)
    assert report["breaking"] is True
    assert {"kind": "tool-added", "path": "cancel_booking", "message": "tool added", "breaking": False, "old": None, "new": None} in report["changes"]


def test_diff_invalid_schema_exits_2(work):
    result = ek("diff", str(work / "travel-v1.ek"), str(work / "bad.ek"))
    assert result.returncode == 2 and "unknown type 'strng'" in result.stderr


def test_fmt_diff_shows_the_change_without_writing(work):
    result = ek("fmt", "--diff", str(work / "messy.ek"), str(work / "travel-v1.ek"))
    assert result.returncode == 0
    assert "-tool t{\n" in result.stdout and "+tool t {\n" in result.stdout
    assert "travel-v1.ek" not in result.stdout
    assert (work / "messy.ek").read_text() == MESSY


def test_fmt_reports_unreadable_files_like_lint(work):
    """Missing files and bad UTF-8 get the same FILE:LINE:COL diagnostics from fmt as from lint."""
    (work / "latin1.ek").write_bytes(b"grammar g 1\ntool t {\n    x: str \"caf\xe9\"\n}\n")
    for name, expected in (("missing.ek", ":1:1: error: cannot read schema: No such file or directory"),
                           ("latin1.ek", ":3:16: error: the file is not valid UTF-8")):
        lint, fmt = ek("lint", str(work / name)), ek("fmt", "--check", str(work / name))
        assert lint.returncode == fmt.returncode == 1
        assert f"{work / name}{expected}" in lint.stderr
        assert f"{work / name}{expected}" in fmt.stderr
        assert "Errno" not in fmt.stderr and "codec" not in fmt.stderr


SCHEMA_READERS = [("lint",), ("fmt", "--check"), ("gen",), ("diff",), ("export", "--to", "openai"),
                  ("import", "--from", "openai")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("command", SCHEMA_READERS, ids=lambda c: c[0])
def test_a_named_pipe_or_a_device_is_refused_as_a_schema_not_waited_on(command: tuple[str, ...], tmp_path: Path
                                                                       ) -> None:
    """Opening a named pipe to read it waits for a writer: `mkfifo f.ek; ek lint f.ek` hung for ever. Every reader
    of a schema or tool-definition file refuses one (and a device) before it opens it, naming it."""
    ok = tmp_path / "ok.ek"
    ok.write_text("grammar demo 1\ntool ping {\n    host: str\n}\n", encoding="utf-8")
    fifo = tmp_path / "f.ek"
    os.mkfifo(fifo)
    extra = ("-o", str(tmp_path / "out")) if command[0] == "gen" else ()
    for path, what in [(fifo, "a named pipe (FIFO), not a file"), (Path("/dev/null"), "a device, not a file")]:
        args = ("diff", path, ok) if command[0] == "diff" else (*command, path)
        proc = ek(*args, *extra, timeout=30)
        assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert f"{path}" in proc.stderr and what in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def _bash(script: str, *args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``bash -c script`` with ``$1`` the Python running the tests and ``$2``... ``args``: for ``<(...)``."""
    return subprocess.run(["bash", "-c", script, "-", sys.executable, *map(str, args)], check=False,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(shutil.which("bash") is None or not Path("/dev/fd").exists(), reason="needs bash and /dev/fd")
def test_a_schema_through_a_pipe_path_or_stdin_is_still_read(tmp_path: Path) -> None:
    """/dev/fd/N (what `<(cmd)` gives) and /dev/stdin are descriptors already open: they never wait for a writer,
    and are read as before (ek.boundedread.DESCRIPTOR_PATH)."""
    ok = tmp_path / "ok.ek"
    ok.write_text("grammar demo 1\ntool ping {\n    host: str\n}\n", encoding="utf-8")
    for script in ['"$1" -m ek lint <(cat "$2")', '"$1" -m ek lint /dev/stdin < "$2"',
                   '"$1" -m ek export --to openai <(cat "$2")']:
        proc = _bash(script, ok)
        assert proc.returncode == 0, (script, proc.stderr)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None or not Path("/dev/fd").exists(), reason="needs bash and /dev/fd")
@pytest.mark.parametrize("command", SCHEMA_READERS, ids=lambda c: c[0])
def test_an_endless_input_is_refused_at_the_size_limit_not_read_to_the_end(command: tuple[str, ...], tmp_path: Path
                                                                           ) -> None:
    """An endless pipe (`<(cat /dev/zero)`) is read no further than ek.limits.SCHEMA_FILE_MAX_BYTES: a located
    error, where reading it whole ended in a MemoryError traceback (or took the machine's memory)."""
    ok = tmp_path / "ok.ek"
    ok.write_text("grammar demo 1\ntool ping {\n    host: str\n}\n", encoding="utf-8")
    extra = ' -o "$3"' if command[0] == "gen" else ' "$2"' if command[0] == "diff" else ""
    script = f'"$1" -m ek {" ".join(command)} <(cat /dev/zero){extra}'
    proc = _bash(script, ok, tmp_path / "out")
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "larger than ek reads" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_read_at_most_reads_one_byte_past_the_limit_and_no_more() -> None:
    import io

    from ek.boundedread import TooLargeError, read_at_most

    stream = io.BytesIO(b"x" * 100)
    with pytest.raises(TooLargeError):
        read_at_most(stream, 10, "the schema")
    assert stream.tell() == 11
    assert read_at_most(io.BytesIO(b"x" * 10), 10, "the schema") == b"x" * 10


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch(1)")
@pytest.mark.parametrize("text", ["grammar g 1\ntool t {x: int}",  # no newline at the end
                                  "grammar g 1\n\ntool\ft {\n    x: int\n}\n",  # a form feed between tokens
                                  "grammar g 1\r\ntool t {\r\n    x: int\r\n}\r\n"])
def test_fmt_diff_is_a_patch_that_applies(work: Path, text: str) -> None:
    """`ek fmt --diff` split lines with str.splitlines (at a form feed, which the DSL reads as a space, too) and
    glued a last line without its newline to the next line of the diff: `patch` refused it as malformed."""
    import subprocess
    import sys

    schema = work / "s.ek"
    schema.write_bytes(text.encode())
    result = subprocess.run([sys.executable, "-m", "ek", "fmt", "--diff", str(schema)], capture_output=True,
                            check=False, timeout=60)  # bytes: the diff's CR LF line ends as written
    assert result.returncode == 0 and result.stdout, result.stderr
    applied = subprocess.run(["patch", "--quiet", str(schema)], input=result.stdout, capture_output=True,
                             check=False, timeout=60)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert schema.read_text() == ek("fmt", "-", stdin=text).stdout


def test_fmt_write_refuses_what_a_replaced_file_would_not_keep(work: Path) -> None:
    """`ek fmt --write` renames a new file over the old one: a hard link's other name kept the old text, a
    read-only file was replaced all the same, and a FIFO was read (taking its writer's text) then blocked on
    writing. Each is refused, says why, exits 1 and is left as it was; the other files are still formatted."""
    import os

    linked, other = work / "linked.ek", work / "other-name.ek"
    linked.write_text(MESSY)
    os.link(linked, other)
    readonly = work / "readonly.ek"
    readonly.write_text(MESSY)
    readonly.chmod(0o444)
    fifo = work / "pipe.ek"
    os.mkfifo(fifo)
    result = ek("fmt", "--write", linked, readonly, fifo, work / "messy.ek", timeout=60)
    assert result.returncode == 1, result.stderr
    assert f"cannot rewrite {linked}: it has 2 hard links" in result.stderr
    assert f"cannot rewrite {readonly}: it is read-only" in result.stderr
    assert f"cannot rewrite {fifo}: not a regular file" in result.stderr
    assert linked.read_text() == other.read_text() == MESSY and readonly.read_text() == MESSY
    assert os.stat(linked).st_nlink == 2 and readonly.stat().st_mode & 0o777 == 0o444
    assert (work / "messy.ek").read_text() == "grammar g 1\n\ntool t {\n    x: int  # keep me\n}\n"
    assert ek("fmt", "--write", work / "travel-v1.ek").returncode == 0  # formatted already: nothing to refuse
    readonly.chmod(0o644)


def test_schema_file_names_reach_the_terminal_escaped(work: Path) -> None:
    """A schema found by a glob is named by whoever made it: `x\\x1b]0;pwned\\x07.ek` printed raw by fmt's
    messages, its --diff header and every diagnostic (lint, fmt, diff, export) retitled the terminal."""
    hostile = work / "x\x1b]0;pwned\x07\u202e.ek"
    hostile.write_text(MESSY)
    broken = work / "y\x1b[2J.ek"
    broken.write_text(BAD)
    runs = [ek("fmt", "--check", hostile), ek("fmt", "--diff", hostile), ek("fmt", "--write", hostile),
            ek("fmt", broken), ek("lint", broken), ek("diff", broken, hostile),
            ek("export", "--to", "openai", broken), ek("export", "--to", "openai", hostile, "-o", hostile)]
    for proc in runs:
        for text in (proc.stdout, proc.stderr):
            assert not any(ch in text for ch in "\x1b\x07\u202e"), (proc.args, text)
    assert "\\x1b]0;pwned\\x07\\u202e.ek" in runs[0].stderr and "\\x1b[2J.ek:3:8: error" in runs[3].stderr


def test_fmt_write_with_stdin_is_a_usage_error(work: Path) -> None:
    """`ek fmt --write -` printed the text to stdout as if --write had not been given, exit 0: a script that
    meant to rewrite something was told it had. gofmt refuses it too."""
    result = ek("fmt", "--write", work / "messy.ek", "-", stdin=MESSY)
    assert result.returncode == 2 and "--write rewrites files, and '-' (stdin) is none" in result.stderr
    assert result.stdout == "" and (work / "messy.ek").read_text() == MESSY


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_closed_stdin_named_as_the_schema_is_a_clear_error() -> None:
    """`ek fmt - <&-` died of an AttributeError traceback (Python's sys.stdin is None then)."""
    for command in ("lint", "fmt", "export --to openai"):
        proc = _bash(f'"$1" -m ek {command} - <&-')
        assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert "<stdin>:1:1: error: cannot read schema: standard input is closed" in proc.stderr


def test_diff_reads_either_version_from_stdin_but_not_both(work: Path) -> None:
    """`ek diff - NEW.ek` looked for a file named '-' ("-:1:1: error: cannot read schema: No such file or
    directory") while lint, fmt and export read stdin for it. Either side may be '-' now; both is a usage error
    (stdin can be read once: the second read found it empty)."""
    old, new = work / "travel-v1.ek", work / "travel-v2.ek"
    from_files = ek("diff", old, new)
    for args, stdin in (((old, "-"), new), (("-", new), old)):
        piped = ek("diff", *args, stdin=stdin.read_text())
        assert (piped.returncode, piped.stdout) == (from_files.returncode, from_files.stdout), piped.stderr
    broken = ek("diff", old, "-", stdin=BAD)
    assert broken.returncode == 2 and broken.stderr.startswith("<stdin>:3:8: error: unknown type 'strng'")
    both = ek("diff", "-", "-", stdin=old.read_text())
    assert both.returncode == 2 and both.stdout == ""
    assert both.stderr == "ek diff: error: only one of OLD.ek and NEW.ek can be '-' (stdin can be read once)\n"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_diff_with_a_closed_stdin_is_a_clear_error() -> None:
    proc = _bash(f'"$1" -m ek diff - {SCHEMAS / "travel-v1.ek"} <&-')
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.startswith("<stdin>:1:1: error: cannot read schema: standard input is closed")
