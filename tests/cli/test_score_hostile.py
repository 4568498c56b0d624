"""``ek score`` on hostile corpora, as a real subprocess: every line accounted for, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ekcli import gold, run_ek

from ek.corpus.reading import load_gold_file, parse_episode

G = [gold("get_weather", location="Paris")]
OK = "get_weather(location='Paris')"


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def dump(obj: object) -> bytes:
    return json.dumps(obj).encode()


def _hostile_lines() -> list[tuple[bytes, str | None]]:
    """(raw line, words of its error reason, or None when the line must be scored)."""
    return [
        (b"\xef\xbb\xbf" + dump({"id": "bom", "pred": OK, "gold": G}), None),      # BOM of a Windows editor
        (b"\xef\xbb\xbf", "no JSON on the line: only a byte order mark"),       # not "cut short?"
        ("\u2028\x1c".encode(), "no JSON on the line: only a byte order mark or Unicode spaces"),
        (dump({"id": "crlf", "pred": OK, "gold": G}) + b"\r", None),
        (os.urandom(64).replace(b"\n", b"-") + b"\xff", "not UTF-8"),
        (b'{"id": "raw-nul\x00", "pred": "", "gold": []}', "a raw control character (U+0000) inside a string"),
        (b'{"id": "raw-tab\t", "pred": "", "gold": []}', "a raw control character (U+0009) inside a string"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (dump({"id": "deep-gold-text", "pred": "", "gold": "[" * 100_000 + "]" * 100_000}), "nested too deeply"),
        (dump({"id": "deep-gold", "pred": "", "gold": [gold("f", x=_nested(700))]}), "nested too deeply"),
        (dump({"id": "big", "pred": "get_weather(location='" + "P" * 3_000_000 + "')", "gold": G}), None),
        (dump({"id": "dup", "pred": OK, "gold": G}), None),
        (dump({"id": "dup", "pred": OK, "gold": G}), None),
        (dump({"id": 1.5, "pred": OK, "gold": G}), "'id' must be"),
        (dump({"id": -3, "pred": OK, "gold": G}), None),
        (b"\x00\x00\x00", "invalid JSON"),
        (b'{"id": "two-preds", "pred": "f()", "gold": [], "pred": "g()"}', "duplicate key 'pred'"),
        (b'{"id": "dup-arg", "pred": "", "gold": [{"name": "f", "arguments": {"x": 1, "x": 2}}]}',
         "duplicate key 'x'"),
        (dump({"id": "\u202egnp.exe", "pred": "\u202e" + OK, "gold": G}), None),
    ]


def test_score_hostile_corpus_every_line_accounted_no_traceback(tmp_path: Path) -> None:
    lines = _hostile_lines()
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_bytes(b"\n".join(raw for raw, _ in lines) + b"\n\n")
    out = tmp_path / "r.json"
    proc = run_ek("score", corpus, "--json", out, "--html", tmp_path / "r.html")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    c = report["corpus"]
    expected_errors = {n: words for n, (_, words) in enumerate(lines, 1) if words is not None}
    assert (c["lines_read"], c["blank_lines"], c["error_lines"]) == (len(lines) + 1, 1, len(expected_errors))
    assert c["episodes_scored"] == len(lines) - len(expected_errors) and c["accounted"]
    got = {e["line"]: e["reason"] for e in report["errors"]}
    assert set(got) == set(expected_errors), got
    for line, words in expected_errors.items():
        assert words in got[line], (line, got[line])


def test_deep_gold_is_an_error_in_a_gold_file_too(tmp_path: Path) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(json.dumps({"id": "a", "gold": [gold("f", x=_nested(700))]}) + "\n"
                    + json.dumps({"id": "b", "gold": "[" * 50_000 + "]" * 50_000}) + "\n", encoding="utf-8")
    entries, errors, _ = load_gold_file(path)
    assert [(e.line, e.id) for e in errors] == [(1, "a"), (2, "b")]
    assert all("nested too deeply" in e.reason for e in errors)
    # kept as unreadable, so that the corpus lines of these ids say why they are not scored
    assert {k: (e.gold, e.unreadable is not None and "nested too deeply" in e.unreadable)
            for k, e in entries.items()} == {"a": ((), True), "b": ((), True)}


def test_a_byte_order_mark_starts_a_line_without_harm() -> None:
    episode = parse_episode(b'\xef\xbb\xbf{"id": "x", "pred": "", "gold": []}\n', 1)
    assert not hasattr(episode, "reason") and episode.id == "x"


def test_lone_surrogates_are_error_lines_and_reports_still_write(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        '{"id": "lone\\ud800", "pred": "f()", "gold": []}\n'
        '{"id": "in-gold", "pred": "f()", "gold": [{"name": "f\\udfff", "arguments": {}}]}\n'
        '{"id": "pair-ok \\ud83d\\ude00", "pred": "f(x=\'\\\\ud800\')", "gold": [{"name": "f", "arguments": {}}]}\n',
        encoding="utf-8")
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    proc = run_ek("score", corpus, "--json", out, "--html", html)
    assert "Traceback" not in proc.stderr and proc.returncode == 1, proc.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [(e["line"], e["reason"][:22]) for e in report["errors"]] == [(1, "a lone UTF-16 surrogat"),
                                                                         (2, "a lone UTF-16 surrogat")]
    assert report["corpus"]["episodes_scored"] == 1 and "\U0001f600" in report["worst_episodes"][0]["id"]
    assert html.read_text(encoding="utf-8").count('class="episode"') == 1


def test_unwritable_report_paths_fail_before_scoring_with_a_clear_error(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"pred": OK, "gold": G}) + "\n", encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for option, target in (("--json", tmp_path), ("--html", tmp_path), ("--json", blocker / "r.json"),
                           ("--html", blocker / "sub" / "r.html")):
        proc = run_ek("score", corpus, option, target)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert f"ek score: error: {option} {target}:" in proc.stderr
        assert "Overall" not in proc.stdout  # refused before spending time on scoring
    compare = run_ek("compare", corpus, corpus, "--json", tmp_path)
    assert compare.returncode == 2 and "ek compare: error: --json" in compare.stderr


def test_a_report_that_fails_while_writing_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"pred": OK, "gold": G}) + "\n", encoding="utf-8")
    proc = run_ek("score", corpus, "--html", "/dev/full")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "ek score: error: cannot write --html /dev/full:" in proc.stderr


def test_numeric_options_say_what_they_expect() -> None:
    proc = run_ek("score", "-", "--worst", "x")
    assert proc.returncode == 2 and "_non_negative" not in proc.stderr
    assert "--worst: expected a whole number 0 or more, got 'x'" in proc.stderr
    proc = run_ek("score", "-", "--bootstrap", "x")
    assert proc.returncode == 2
    assert "--bootstrap: expected a whole number from 0 (off) to 100000, got 'x'" in proc.stderr


def test_an_id_of_the_other_type_in_the_gold_file_gets_a_hint() -> None:
    from ek.corpus.reading import GoldEntry

    gold_by_id = {"7": GoldEntry(()), 8: GoldEntry(())}
    as_int = parse_episode('{"id": 7, "pred": ""}', 1, gold_by_id)
    as_str = parse_episode('{"id": "8", "pred": ""}', 2, gold_by_id)
    assert "the gold file has the string '7'" in as_int.reason
    assert "the gold file has the integer 8" in as_str.reason


def test_help_states_the_exit_statuses() -> None:
    assert "exit status: 0 when every line was scored" in run_ek("score", "--help").stdout
    assert "exit status: 0 with a verdict" in run_ek("compare", "--help").stdout


def test_an_indented_json_document_gets_a_hint(tmp_path: Path) -> None:
    corpus = tmp_path / "results.json"
    corpus.write_text(json.dumps([{"id": "a", "pred": OK, "gold": G}], indent=2), encoding="utf-8")
    proc = run_ek("score", corpus)
    assert proc.returncode == 1
    assert "line 1: invalid JSON" in proc.stdout and "one indented JSON document" in proc.stdout


def test_a_pipe_path_is_a_corpus_and_a_folder_is_not(tmp_path: Path) -> None:
    import subprocess
    import sys

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"pred": OK, "gold": G}) + "\n", encoding="utf-8")
    proc = subprocess.run(["bash", "-c", '"$1" -m ek score <(cat "$2")', "-", sys.executable, str(corpus)],
                          check=False, capture_output=True, text=True, timeout=60)  # a /dev/fd/N pipe, as <(zcat ...) gives
    assert proc.returncode == 0, proc.stderr
    assert "1 episodes scored" in proc.stdout
    folder = run_ek("score", tmp_path)
    assert folder.returncode == 2 and f"{tmp_path}: is a folder" in folder.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_read_when_named_and_refused_when_a_glob_finds_it(tmp_path: Path) -> None:
    """A named pipe the user names is a corpus (or a gold file), read as cat reads it, once its writer comes. One a
    glob matched (a pipe left in a results folder) has no writer coming: opening it waited for ever; now the
    run stops before it starts, naming it. Sockets are refused either way."""
    import socket
    import threading

    line = json.dumps({"id": "1", "pred": OK, "gold": G}) + "\n"
    named = tmp_path / "named.jsonl"
    os.mkfifo(named)

    def write() -> None:
        with open(named, "w", encoding="utf-8") as pipe:  # waits for ek to open it for reading
            pipe.write(line)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    proc = run_ek("score", named, timeout=60)
    writer.join(10)
    assert proc.returncode == 0 and "1 episodes scored" in proc.stdout, proc.stderr

    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.jsonl").write_text(line, encoding="utf-8")
    os.mkfifo(runs / "b.jsonl")
    proc = run_ek("score", str(runs / "*.jsonl"), timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert f"{runs / 'b.jsonl'} (matched by {runs / '*.jsonl'}): a named pipe (FIFO), not a file" in proc.stderr

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.jsonl"))
        proc = run_ek("score", tmp_path / "s.jsonl", timeout=30)
        assert proc.returncode == 2 and f"{tmp_path / 's.jsonl'}: a socket, not a file" in proc.stderr, proc.stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_named_as_a_corpus_or_gold_is_refused_before_the_run(tmp_path: Path, device: str) -> None:
    """``ek score /dev/zero`` read 64 MiB error lines for ever; ``ek compare /dev/zero B`` too. A device is no
    corpus: refused at once (exit 2), naming it, as a schema reader refuses it. Standard input is still read,
    whatever it is, through ``-`` and ``/dev/stdin``."""
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "1", "pred": OK, "gold": G}) + "\n", encoding="utf-8")
    for args in (["score", device], ["score", corpus, "--gold", device], ["compare", device, corpus],
                 ["compare", corpus, corpus, "--gold", device]):
        proc = run_ek(*args, timeout=30)
        assert proc.returncode == 2 and f"{device}: a device, not a file" in proc.stderr, (args, proc.stderr)
    for path in ("-", "/dev/stdin"):
        proc = run_ek("score", path, stdin_file=corpus, timeout=60)
        assert proc.returncode == 0 and "1 episodes scored" in proc.stdout, proc.stderr


def test_jobs_read_a_piped_gold_file_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    from ekcli import gold_file_for, synthetic_corpus

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 1200, with_gold=False)
    gold_file = gold_file_for(tmp_path / "g.jsonl", 1200)
    script = '"$1" -m ek score "$2" --gold <(cat "$3") --jobs 2 --json "$4"'
    proc = subprocess.run(["bash", "-c", script, "-", sys.executable, str(corpus), str(gold_file),
                           str(tmp_path / "r.json")], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert json.loads((tmp_path / "r.json").read_text())["corpus"]["episodes_scored"] == 1200


def test_a_report_never_overwrites_an_input_or_another_report(tmp_path: Path) -> None:
    """Exit 2 before scoring: --episodes-out naming the corpus (or, on a second run over a glob, the previous
    run's episodes file), two reports to one file, and '-' for a file read whole (gold)."""
    corpus = tmp_path / "run.jsonl"
    line = json.dumps({"id": "1", "pred": OK, "gold": G}) + "\n"
    corpus.write_text(line, encoding="utf-8")
    previous = tmp_path / "episodes.jsonl"
    previous.write_text(line, encoding="utf-8")
    cases = [
        (("--episodes-out", corpus), "is also an input of this run"),
        ((str(tmp_path / "*.jsonl"), "--episodes-out", previous), "is also an input of this run"),
        (("--json", tmp_path / "r", "--html", tmp_path / "." / "r"), "both write"),
        (("--gold", "-"), "'-' (stdin) is for the corpus"),
    ]
    for args, message in cases:
        proc = run_ek("score", *(args if str(args[0]).endswith("*.jsonl") else (corpus, *args)))
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert corpus.read_text(encoding="utf-8") == previous.read_text(encoding="utf-8") == line


def test_a_line_past_the_size_limit_is_one_error_line_and_the_next_lines_are_scored(tmp_path: Path) -> None:
    """A corpus line is read no further than ek.limits.CORPUS_LINE_MAX_BYTES: one error line, in one process and
    in workers, and the file's other lines scored (a line with no end no longer fills the memory)."""
    from ek.limits import CORPUS_LINE_MAX_BYTES

    good = dump({"id": "ok", "pred": OK, "gold": G}) + b"\n"
    corpus = tmp_path / "c.jsonl"
    with open(corpus, "wb") as out:
        out.write(good + b'{"id": "huge", "pred": "' + b"x" * (CORPUS_LINE_MAX_BYTES + 5) + b'"}\n' + good * 3)
    for jobs in ("1", "2"):
        proc = run_ek("score", corpus, "--allow-errors", "--jobs", jobs, "--json", tmp_path / "r.json")
        assert proc.returncode == 0, proc.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["corpus"]["episodes_scored"] == 4 and report["corpus"]["error_lines"] == 1
        (error,) = report["errors"]
        assert error["line"] == 2 and "longer than ek reads" in error["reason"], error


@pytest.mark.parametrize("command", ["score", "compare"])
def test_a_reader_that_has_gone_does_not_cost_the_reports(tmp_path: Path, command: str) -> None:
    """`ek score ... --json r.json | head -1`: the table's pipe closes early; the reports are still written, and
    the exit status is the run's (it was 0 with no report written, or 120 when the pipe broke at exit)."""
    import subprocess
    import sys

    from ekcli import EXAMPLE

    corpus = EXAMPLE / "corpus.jsonl"
    args = [corpus, corpus] if command == "compare" else [corpus, "--html", tmp_path / "r.html"]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before ek prints a line
    try:
        proc = subprocess.run([sys.executable, "-m", "ek", command, *map(str, args), "--grammar",
                               str(EXAMPLE / "travel-v2.ek"), "--json", str(tmp_path / "r.json")],
                              stdout=write_end, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              timeout=120, check=False)
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())
    assert proc.returncode == 0  # as with a reader: every line scored; A and B the same file, no difference
    if command == "score":
        assert (tmp_path / "r.html").stat().st_size > 1000


def test_file_names_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """A file name is data too: a glob-expanded `b\\x1b]0;pwned\\a\\x1b[2J.jsonl` printed raw would retitle and
    clear the terminal; every path ek prints (header, reports, errors) is escaped as cells are."""
    hostile = "b\x1b]0;pwned\x07\x1b[2J\u202e"
    (tmp_path / f"{hostile}.jsonl").write_text(json.dumps({"id": "1", "pred": OK, "gold": G}) + "\n")
    runs = [run_ek("score", tmp_path / "*.jsonl", "--json", tmp_path / f"r{hostile}.json"),
            run_ek("score", tmp_path / f"missing{hostile}*.jsonl"),
            run_ek("compare", tmp_path / f"{hostile}.jsonl", tmp_path / f"{hostile}.jsonl")]
    for proc in runs:
        for text in (proc.stdout, proc.stderr):
            assert not any(ch in text for ch in "\x1b\x07\u202e"), text
    assert "\\x1b]0;pwned\\x07" in runs[0].stdout and "\\x1b[2J" in runs[1].stderr
