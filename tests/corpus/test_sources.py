"""Corpus inputs (ek.corpus.sources): several files, globs, gzip, Parquet, one numbering, nothing lost."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus.reading import LineCounts
from ek.corpus.runner import RunOptions, run, score_lines
from ek.corpus.sources import SourceError, expand, locate, open_corpus, progress_size
from ek.report.jsonreport import build_report

G = [{"name": "f", "arguments": {"x": 1}}]


def _line(i: int, right: bool = True) -> dict[str, object]:
    return {"id": f"e{i}", "pred": f"f(x={1 if right else 2})", "gold": G}


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_files_are_numbered_through_as_if_concatenated(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", [json.dumps(_line(0)), "", json.dumps(_line(1, False))])
    b = tmp_path / "b.jsonl.gz"
    b.write_bytes(gzip.compress(b"\n".join(json.dumps(_line(i)).encode() for i in (2, 3)) + b"\n{broken\n"))
    counts = LineCounts()
    with open_corpus([str(a), str(b)], counts) as (lines, spans):
        got = [(n, json.loads(raw)["id"] if raw.startswith(b'{"') else raw) for n, raw in lines]
    assert got == [(1, "e0"), (3, "e1"), (4, "e2"), (5, "e3"), (6, b"{broken\n")]
    assert (counts.read, counts.blank) == (6, 1)
    assert [(s.path, s.first, s.lines) for s in spans] == [(str(a), 1, 3), (str(b), 4, 3)]
    assert locate(6, spans) == (str(b), 3) and locate(2, spans) == (str(a), 2) and locate(7, spans) is None


def test_a_multi_file_run_equals_the_concatenated_file_and_names_files_in_errors(tmp_path: Path) -> None:
    lines = [json.dumps(_line(i, i % 3 != 0)) for i in range(40)]
    lines[7] = '{"id": "bad", "pred": "f(x=1)"'
    lines[25] = "not json"
    lines[30] = ""
    whole = _write(tmp_path / "whole.jsonl", lines)
    part1 = _write(tmp_path / "p1.jsonl", lines[:20])
    part2 = tmp_path / "p2.jsonl.gz"
    part2.write_bytes(gzip.compress("".join(line + "\n" for line in lines[20:]).encode()))
    options = RunOptions()
    one = build_report(run(str(whole), options), options)
    two = build_report(run([str(tmp_path / "p*.jsonl*")], options), options)
    assert [(e["line"], e["file_line"], Path(e["file"]).name) for e in two["errors"]] == [(8, 8, "p1.jsonl"),
                                                                                          (26, 6, "p2.jsonl.gz")]
    assert two["corpus"]["files"] == [{"path": str(part1), "lines": 20}, {"path": str(part2), "lines": 20}]
    for report in (one, two):
        del report["corpus"]["path"], report["corpus"]["files"]
        for key in ("errors", "worst_episodes"):
            for entry in report[key]:
                del entry["file"], entry["file_line"]
    assert one == two


def test_parquet_rows_are_lines_with_the_columns_ek_reads(tmp_path: Path) -> None:
    rows = [{"id": "p0", "pred": "f(x=1)", "gold": json.dumps(G), "prompt": "ignored"},
            {"id": "p1", "pred": "f(x=2)", "gold": json.dumps(G), "prompt": "ignored"},
            {"id": "p2", "pred": "f(x=1)", "gold": "[{", "prompt": "ignored"}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "runs.parquet", row_group_size=2)
    as_jsonl = _write(tmp_path / "runs.jsonl", [json.dumps({k: v for k, v in r.items()}) for r in rows])
    options = RunOptions()
    got = run(str(tmp_path / "runs.parquet"), options)
    want = run(str(as_jsonl), options)
    assert (got.summary.episodes, got.summary.error_count, got.counts.read) == (2, 1, 3)
    assert got.summary.total() == want.summary.total()
    assert [(e.line, e.id, e.reason[:22]) for e in got.summary.errors] == [(3, "p2", "'gold' is a string but")]


def _travel_rows() -> list[dict[str, object]]:
    """Episodes whose gold, decoded outputs and turns are nested values, of other shapes from row to row: as
    Parquet they become struct columns, each struct with every field any row had (null elsewhere)."""
    weather = {"name": "get_weather", "arguments": {"location": "Oslo"}}
    flights = {"name": "search_flights", "arguments": {"origin": "SFO", "destination": "JFK", "date": "2026-01-05",
                                                        "passengers": 2}}
    return [
        {"id": "a", "pred": 'get_weather(location="Oslo")', "gold": [weather]},
        {"id": "b", "pred": 'search_flights(origin="SFO", destination="JFK", date="2026-01-05")',
         "gold": [flights, weather]},
        {"id": "c", "output": [{"type": "text", "text": "Checking."},
                               {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"location": "Rome"}}],
         "gold": [weather]},
        {"id": "d", "turns": [{"pred": 'get_weather(location="Oslo")', "gold": [weather]},
                              {"pred": "No call needed.", "gold": []}]},
        {"id": "e", "pred": 'get_weather(location="Oslo", unit=None)', "gold": [weather]},
    ]


def test_parquet_struct_columns_read_as_the_json_they_were_made_from(tmp_path: Path) -> None:
    """Gold calls, a decoded output and turns stored as structs (what ``Table.from_pylist`` or pandas write for
    lists of dicts): the nulls Arrow fills in for the fields a row lacks are read as absent, so the run is the
    one of the same episodes as JSON lines. Without that every gold call had every other call's arguments."""
    from ek.corpus.sources import arrow_lines

    rows = _travel_rows()
    columns = [key for key in ("id", "pred", "output", "gold", "turns")]
    table = pa.Table.from_pylist([{key: row.get(key) for key in columns} for row in rows])  # every column
    assert pa.types.is_struct(table.schema.field("gold").type.value_type)  # really structs, unified
    assert table.to_pylist()[0]["gold"][0]["arguments"]["origin"] is None
    assert [json.loads(line) for line in arrow_lines(table)] == rows  # the JSON each row was made from
    pq.write_table(table, tmp_path / "runs.parquet")
    as_jsonl = _write(tmp_path / "runs.jsonl", [json.dumps(r) for r in rows])
    options = RunOptions(grammar=str(Path(__file__).parents[2] / "schemas" / "travel-v2.ek"), level="arg")
    got, want = run(str(tmp_path / "runs.parquet"), options), run(str(as_jsonl), options)
    assert got.summary.error_count == 0 and got.summary.episodes == 5
    got_report, want_report = build_report(got, options), build_report(want, options)
    for report in (got_report, want_report):
        del report["corpus"]["path"], report["corpus"]["files"]
        for episode in report["worst_episodes"]:
            del episode["file"]
    assert got_report == want_report and got_report["worst_episodes"]


def test_a_null_in_a_struct_is_absent_and_a_null_in_json_text_or_a_list_is_kept() -> None:
    from ek.corpus.sources import arrow_lines

    structs = pa.Table.from_pylist([{"id": 1, "gold": [{"name": "f", "arguments": {"x": None, "xs": [1, None]}}]}])
    text = pa.Table.from_pylist([{"id": 2, "gold": json.dumps([{"name": "f", "arguments": {"x": None}}])}])
    assert json.loads(arrow_lines(structs)[0])["gold"] == [{"name": "f", "arguments": {"xs": [1, None]}}]
    assert json.loads(json.loads(arrow_lines(text)[0])["gold"]) == [{"name": "f", "arguments": {"x": None}}]


def test_struct_nulls_are_dropped_without_recursion_however_deep_the_schema() -> None:
    from ek.corpus.sources import _without_null_fields

    deep: object = {"leaf": 1, "gone": None}
    for _ in range(5000):
        deep = {"k": deep, "gone": None}
    cleaned = _without_null_fields([deep, None])
    for _ in range(5000):
        assert set(cleaned[0]) == {"k"}
        cleaned = [cleaned[0]["k"]]
    assert cleaned == [{"leaf": 1}]


def test_parquet_binary_that_is_not_utf8_is_that_lines_error(tmp_path: Path) -> None:
    table = pa.table({"id": ["a", "b"], "pred": pa.array([b"f(x=1)", b"f(x=\xff)"], pa.binary()),
                      "gold": [json.dumps(G)] * 2})
    pq.write_table(table, tmp_path / "bin.parquet")
    result = run(str(tmp_path / "bin.parquet"), RunOptions())
    assert result.summary.episodes == 1 and result.accounted
    assert result.summary.errors[0].line == 2 and result.summary.errors[0].reason.startswith("not UTF-8 text")


def test_a_broken_gzip_stream_stops_the_run_naming_file_and_line(tmp_path: Path) -> None:
    data = gzip.compress("".join(json.dumps(_line(i)) + "\n" for i in range(200)).encode())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"cut\.jsonl\.gz: gzip stream broken after line [0-9]+"):
        run(str(cut), RunOptions())


def test_a_glob_matching_nothing_is_an_error_and_plain_sizes_add_up(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no file matches"):
        expand([str(tmp_path / "*.jsonl")])
    a = _write(tmp_path / "a.jsonl", ["{}"])
    b = _write(tmp_path / "b.jsonl", ["{}", "{}"])
    assert progress_size([str(a), str(b)]) == 9
    gz = tmp_path / "c.jsonl.gz"
    gz.write_bytes(gzip.compress(b"{}\n"))
    assert progress_size([str(a), str(gz)]) is None  # decompressed bytes would overrun the bar


def test_a_block_shifted_to_its_place_merges_into_what_one_pass_builds() -> None:
    """What the Ray engine does with each block: lines numbered from 1, then shifted into place."""
    raws = [json.dumps(_line(i, i % 4 != 0)).encode() for i in range(30)]
    raws[5] = b"{oops"
    options = RunOptions(keep_worst=3, keep_details=2, keep_export=True)
    cache = options.metric_cache()
    whole = score_lines(options, cache, list(enumerate(raws, 1)), None)
    merged = options.new_summary()
    for start in (0, 12, 24):
        block = score_lines(options, cache, list(enumerate(raws[start:start + 12], 1)), None)
        block.shift_lines(start)
        merged.merge(block)
    assert merged.total() == whole.total() and list(merged.lines) == list(whole.lines)
    assert merged.errors == whole.errors and merged.export == whole.export
    assert [d.line for d in merged.worst()] == [d.line for d in whole.worst()]
    assert [d.detail is not None for d in merged.worst()] == [d.detail is not None for d in whole.worst()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.sampled_from([b"a", b" ", b"\xff"])), max_size=12),
       st.booleans(), st.integers(1, 8))
def test_bounded_lines_are_the_files_lines_with_the_long_ones_named_by_size(
        shape: list[tuple[int, bytes]], last_ends: bool, limit: int) -> None:
    """Each line as iterating the file gives it; one longer than ``limit`` an OversizedLine of its size."""
    import io

    from ek.corpus.reading import OversizedLine, bounded_lines

    lines = [byte * n + b"\n" for n, byte in shape]
    if lines and not last_ends:
        lines[-1] = lines[-1][:-1]
    data = b"".join(lines)
    expected = [raw if len(raw) <= limit or raw.endswith(b"\n") and len(raw) == limit + 1 else len(raw)
                for raw in io.BytesIO(data)]
    got = [raw.size if type(raw) is OversizedLine else bytes(raw) for raw in bounded_lines(io.BytesIO(data), limit)]
    assert got == expected
    from ek.corpus.sources import physical_lines  # plain and gzip files, under the real limit: as iterated

    for stored in (data, gzip.compress(data)):
        assert [bytes(raw) for raw in physical_lines(io.BytesIO(stored), "x")] == list(io.BytesIO(data))


def test_a_tau_bench_file_past_the_size_limit_stops_before_it_is_decoded(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import ek.corpus.sources as sources

    entry = {"task_id": 0, "trial": 0, "reward": 1.0, "traj": [],
             "info": {"task": {"actions": [{"name": "f", "kwargs": {"x": 1}}], "outputs": []}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps([entry, entry]), encoding="utf-8")
    packed = tmp_path / "run.json.gz"  # the limit is on the document, so a gzip file counts decompressed
    packed.write_bytes(gzip.compress(path.read_bytes()))
    size = path.stat().st_size
    monkeypatch.setattr(sources, "TAU_RESULTS_MAX_BYTES", size)
    for corpus in (path, packed):
        result = run(str(corpus), RunOptions(tau_bench=True))
        assert (result.counts.read, result.summary.episodes) == (2, 2)
    monkeypatch.setattr(sources, "TAU_RESULTS_MAX_BYTES", size - 1)
    for corpus in (path, packed):
        with pytest.raises(SourceError, match=f"{corpus}: a results file longer than ek reads whole"):
            run(str(corpus), RunOptions(tau_bench=True))
