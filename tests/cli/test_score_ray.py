"""``ek score`` over several files, gzip and Parquet, and with ``--engine ray``, run as a user runs it."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from ekcli import EXAMPLE, SCHEMAS, run_ek, synthetic_corpus


def _report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _ray_processes() -> set[int]:
    """The raylet and GCS server of every Ray on this machine, by pid (a Ray left running leaves both; the
    session's Ray starts and ends workers of its own at any time, so workers are not counted)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if b"/ray/core/src/ray/" in cmd:
                found.add(int(entry))
    return found


def test_the_example_on_the_sessions_ray_gives_the_local_report(tmp_path: Path, ray_address: str) -> None:
    grammar = EXAMPLE / "travel-v2.ek"
    local = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", grammar, "--json", tmp_path / "l.json",
                   "--episodes-out", tmp_path / "l.csv")
    ray = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", grammar, "--json", tmp_path / "r.json",
                 "--engine", "ray", "--address", ray_address, "--html", tmp_path / "r.html",
                 "--episodes-out", tmp_path / "r.csv")
    assert (local.returncode, ray.returncode) == (0, 0), ray.stderr
    want, got = _report(tmp_path / "l.json"), _report(tmp_path / "r.json")
    assert (want["options"].pop("engine"), got["options"].pop("engine")) == ("local", "ray")
    assert got == want
    assert ray.stdout.split("JSON report")[0] == local.stdout.split("JSON report")[0]  # the same table
    assert (tmp_path / "r.html").is_file() and (tmp_path / "r.csv").read_text() == (tmp_path / "l.csv").read_text()


def test_without_an_address_a_local_ray_starts_and_stops(tmp_path: Path) -> None:
    before = _ray_processes()
    done = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--engine", "ray",
                  "--jobs", "1", "--json", tmp_path / "r.json", timeout=300)
    assert done.returncode == 0, done.stderr
    assert _report(tmp_path / "r.json")["corpus"]["episodes_scored"] == 30
    assert _ray_processes() - before == set(), "the Ray this run started is still running"


def test_gzip_globs_and_parquet_on_both_engines_name_the_file_of_each_error(tmp_path: Path,
                                                                             ray_address: str) -> None:
    lines = synthetic_corpus(tmp_path / "all.jsonl", 300, corrupt_every=50).read_text().splitlines()
    runs = tmp_path / "runs"
    runs.mkdir()
    for k in range(2):
        (runs / f"r{k}.jsonl.gz").write_bytes(gzip.compress("\n".join(lines[k * 100:(k + 1) * 100]).encode()))
    rows = [json.loads(line) for line in lines[200:] if not line.startswith('{"id": "broken')]
    for row in rows:
        row["gold"] = json.dumps(row["gold"])
    rows[5]["gold"] = "[{"
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "rest.parquet")
    common = ["score", str(runs / "*.jsonl.gz"), tmp_path / "rest.parquet", "--grammar", SCHEMAS / "travel-v2.ek"]
    local = run_ek(*common, "--json", tmp_path / "l.json")
    ray = run_ek(*common, "--json", tmp_path / "r.json", "--engine", "ray", "--address", ray_address)
    assert (local.returncode, ray.returncode) == (1, 1), ray.stderr  # error lines: exit 1, as always
    want, got = _report(tmp_path / "l.json"), _report(tmp_path / "r.json")
    want["options"].pop("engine"), got["options"].pop("engine")
    assert got == want
    assert [(Path(e["file"]).name, e["file_line"], e["line"]) for e in got["errors"]] == [
        ("r0.jsonl.gz", 50, 50), ("r0.jsonl.gz", 100, 100), ("r1.jsonl.gz", 50, 150), ("r1.jsonl.gz", 100, 200),
        ("rest.parquet", 6, 206)]
    assert [f["lines"] for f in got["corpus"]["files"]] == [100, 100, 98]
    assert "runs/r1.jsonl.gz line 50" in local.stdout.replace(os.sep, "/")


def _shadow(tmp_path: Path, module: str) -> dict[str, str]:
    """An environment where importing ``module`` fails, as if it were not installed."""
    shadow = tmp_path / f"no-{module}" / module
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(f"raise ImportError({f'No module named {module!r}'!r})\n")
    return {**os.environ, "PYTHONPATH": str(shadow.parent)}


def test_without_pyarrow_parquet_input_says_what_to_install(tmp_path: Path, monkeypatch) -> None:
    pq.write_table(pa.table({"pred": ["f()"], "gold": ["[]"]}), tmp_path / "d.parquet")
    for key, value in _shadow(tmp_path, "pyarrow").items():
        monkeypatch.setenv(key, value)
    done = run_ek("score", tmp_path / "d.parquet")
    assert done.returncode == 2
    assert "reading Parquet needs pyarrow: pip install 'ek[parquet]'" in done.stderr


def test_without_ray_the_ray_engine_says_what_to_install(tmp_path: Path, monkeypatch) -> None:
    for key, value in _shadow(tmp_path, "ray").items():
        monkeypatch.setenv(key, value)
    done = run_ek("score", EXAMPLE / "corpus.jsonl", "--engine", "ray")
    assert done.returncode == 2 and "pip install 'ek[ray]'" in done.stderr


def test_usage_errors_of_the_inputs(tmp_path: Path) -> None:
    corpus = EXAMPLE / "corpus.jsonl"
    assert "no file matches" in run_ek("score", str(tmp_path / "*.jsonl")).stderr
    assert "stdin" in run_ek("score", "-", corpus).stderr
    assert "--engine ray reads files" in run_ek("score", "-", "--engine", "ray", stdin="").stderr
    assert "--address names a Ray cluster" in run_ek("score", corpus, "--address", "auto").stderr
    data = gzip.compress(corpus.read_bytes())
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    cut = run_ek("score", tmp_path / "cut.jsonl.gz")
    assert cut.returncode == 3 and "cut.jsonl.gz: gzip stream broken after line" in cut.stderr


def test_a_gzip_input_broken_off_on_ray_is_one_line_as_in_one_process(tmp_path: Path, ray_address: str) -> None:
    """On Ray the error came wrapped in the task's traceback (with Ray's colour codes), after Ray Data's own
    logged copy and retry advice: now the one line `ek score` prints in one process, exit status 3."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"e{i}", "pred": "get_weather(location='Paris')",
                                          "gold": [{"name": "get_weather", "arguments": {"location": "Paris"}}]}) + "\n"
                              for i in range(5000)), encoding="utf-8")
    data = gzip.compress(corpus.read_bytes())
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    local = run_ek("score", tmp_path / "cut.jsonl.gz")
    ray = run_ek("score", tmp_path / "cut.jsonl.gz", "--engine", "ray", "--address", ray_address)
    assert local.returncode == ray.returncode == 3, ray.stderr
    (message,) = [line for line in local.stderr.splitlines() if line.startswith("ek score: error:")]
    errors = [line for line in ray.stderr.splitlines() if "Traceback" in line or "ERROR" in line or "\x1b" in line]
    assert errors == [] and ray.stderr.rstrip().endswith(message), ray.stderr
