"""The corpus engine's fast paths give what the plain paths gave: JSON errors, gold at the depth limit, and the
worst episodes' alignments (built once, at the end of a run, for the run's worst only)."""

from __future__ import annotations

import json
from collections import UserDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from ekcli import SCHEMAS, synthetic_corpus
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ek.corpus import runner
from ek.corpus.reading import LineError, _json_error, parse_episode
from ek.corpus.runner import RunOptions, run, score_lines
from ek.corpus.summary import Summary
from ek.goldjson import MAX_DEPTH, gold_from_json


@pytest.mark.parametrize("text", ['{"id": 1, "pred": "", "gold": []} x', '{"id": 1, "pred": "", "gold": []}{}',
                                  '{"id": 1, "pred": "", "gold": []} []', "[1,", "nul", '{"a": 1,}', "", " \t",
                                  "\u00a0{} x"])
def test_a_line_that_is_not_one_json_value_gets_the_error_json_gives(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text.strip())
    got = parse_episode(text, 3)
    assert isinstance(got, LineError) and got.reason.startswith(_json_error(want.value))


def _nested(depth: int, leaf: Any, kind: str) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


@pytest.mark.parametrize("kind", ["list", "dict"])
@pytest.mark.parametrize("leaf", ["x", 1, 2.5, True, None])
def test_a_gold_leaf_counts_toward_the_depth_limit(kind: str, leaf: Any) -> None:
    # the arguments object is level 0: its values start at level 1, a leaf past MAX_DEPTH is refused
    fits = _nested(MAX_DEPTH - 1, leaf, kind)
    assert gold_from_json([{"name": "t", "arguments": {"x": fits}}])[0].args["x"] == fits
    with pytest.raises(ValueError, match=rf"nested too deeply \(more than {MAX_DEPTH} levels\)"):
        gold_from_json([{"name": "t", "arguments": {"x": _nested(MAX_DEPTH, leaf, kind)}}])


def test_gold_without_after_is_not_order_checked_and_with_it_is() -> None:
    plain = gold_from_json([{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}, "after": []}])
    assert [type(s).__name__ for s in plain] == ["Step", "Step"]
    with pytest.raises(ValueError, match="after index 5 is out of range"):
        gold_from_json([{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}, "after": [5]}])


def test_one_process_builds_alignments_for_the_runs_worst_only(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 400, accuracy=0.5)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_worst=10, keep_details=4)
    attach, built = runner.ATTACH, []

    def counted(explanation: Any) -> Any:
        built.append(explanation)
        return attach(explanation)

    monkeypatch.setattr(runner, "ATTACH", counted)
    monkeypatch.setattr(runner, "CHUNK_LINES", 25)  # 16 chunks, each with worse episodes than the last kept
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 25)
    one = run(str(corpus), options).summary
    assert len(built) == options.keep_details
    # chunks that each attach their own worst (score_lines' default), merged: the run's worst are kept
    cache, total = options.metric_cache(), options.new_summary()
    with open(corpus, "rb") as lines:
        numbered = list(enumerate(lines, 1))
    for start in range(0, len(numbered), 25):
        total.merge(score_lines(options, cache, numbered[start:start + 25], None, total.worst_floor()))
    assert len(built) > 2 * options.keep_details
    worst = one.worst()
    assert worst == total.worst() and len(worst) == options.keep_worst
    assert all(d.detail is not None for d in worst[:options.keep_details])
    assert all(d.detail is None for d in worst[options.keep_details:])


def _turns_line(k: int) -> str:
    """A two-turn episode: the first turn right or not by ``k``, the second calling nothing where gold has one
    call, or three for the first three ``k`` (then the episode is among a run's worst)."""
    search = {"name": "search_flights", "arguments": {"origin": "SFO", "destination": "JFK", "date": "2026-01-05"}}
    pred = f'search_flights(origin="SFO", destination="JFK", date="2026-01-0{k % 9 + 1}")'
    return json.dumps({"id": f"t{k}", "turns": [{"pred": pred, "gold": [search]},
                                                {"pred": "No call.", "gold": [search] * (3 if k < 3 else 1)}]})


def test_kept_raw_holds_every_line_the_run_keeps_and_at_most_twice_its_heap(tmp_path: Path) -> None:
    """The raw lines a run scored in parts holds to explain its worst at the end: each line the run keeps
    among its worst (as it was read), and never more than twice as many lines as it keeps."""
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 600, accuracy=0.3)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_worst=5, keep_details=5)
    cache, total, kept = options.metric_cache(), options.new_summary(), runner.KeptRaw()
    with open(corpus, "rb") as lines:
        numbered = list(enumerate(lines, 1))
    for start in range(0, len(numbered), 20):
        chunk = numbered[start:start + 20]
        part = score_lines(options, cache, chunk, None, None, details=False)  # no floor: each part offers its own
        total.merge(part)
        kept.note(total, part, chunk)
        assert total.kept_lines() <= kept.raw.keys() and len(kept.raw) <= 2 * total.heap_size
        assert all(kept.raw[line] == numbered[line - 1][1] for line in kept.raw)


@pytest.mark.slow
def test_jobs_send_no_explanations_and_the_parent_explains_the_same_worst(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``--jobs`` worker ranks its chunk's worst episodes but sends none of their explanations (pickling one
    builds it); the parent scores the run's worst lines again to explain them. The worst episodes and their
    alignments are those of one process, one-turn and multi-turn alike, and only the run's worst are scored
    again."""
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 400, accuracy=0.5)
    with open(corpus, "a", encoding="utf-8") as out:
        out.write("".join(_turns_line(k) + "\n" for k in range(30)) + "not json\n")
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_worst=10, keep_details=6)
    monkeypatch.setattr(runner, "CHUNK_LINES", 25)
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 25)
    merge, parts = Summary.merge, []

    def merged(self: Summary, later: Summary) -> None:
        parts.append((dict(later._pending), later.kept_lines()))
        merge(self, later)

    scored_again: list[int] = []
    score_line = runner._score_line

    def counted(options: Any, cache: Any, memo: Any, item: Any) -> Any:
        scored_again.append(item.line)
        return score_line(options, cache, memo, item)

    one = run(str(corpus), options).summary
    # the parent's own calls only: the workers' are in their processes
    monkeypatch.setattr(runner, "_score_line", counted)
    monkeypatch.setattr(Summary, "merge", merged)
    two = run(str(corpus), options, jobs=2).summary
    assert len(parts) > 2 and not any(pending for pending, _kept in parts)  # ranked, not explained
    assert sum(bool(kept) for _pending, kept in parts) > 2
    worst = one.worst()
    assert two.worst() == worst and all(d.detail is not None for d in worst[:options.keep_details])
    shown = {str(d.id)[0] for d in worst[:options.keep_details]}
    assert shown == {"t", "e"}  # multi-turn episodes and one-turn ones ("ep-7") among them
    assert sorted(scored_again) == sorted(d.line for d in worst[:options.keep_details])


def test_a_gold_met_again_is_scored_prepared_with_the_same_report(tmp_path: Path, bfcl_data: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines answering one question share its gold entry: from the second on, the chunk's memo scores them
    against the gold as the metric prepared it. The report is the one scoring every line on its own gives."""
    import random

    from ek.bfcl import load_category
    from ek.bfcl.variants import variants
    from ek.calls import Step
    from ek.parsing import to_python
    from ek.report.jsonreport import build_report

    rng = random.Random(7)
    lines, questions, answers = [], [], []
    for category in ("simple_python", "parallel", "parallel_multiple"):
        questions.append((bfcl_data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").rstrip("\n"))
        answers.append((bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
                       .rstrip("\n"))
        for e in load_category(bfcl_data / f"BFCL_v4_{category}.json")[:15]:
            outputs = [out for _label, out in variants(e.functions, e.ground_truth, category, rng)]
            for out in [outputs[0], outputs[0], *rng.sample(outputs, min(3, len(outputs)))]:
                text = to_python([Step(name, args) for call in out for name, args in call.items()])
                lines.append(json.dumps({"id": e.id, "result": text}))
    corpus, q, a = tmp_path / "result.jsonl", tmp_path / "q.json", tmp_path / "a.json"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    q.write_text("\n".join(questions) + "\n", encoding="utf-8")
    a.write_text("\n".join(answers) + "\n", encoding="utf-8")
    options = RunOptions(level="arg", canonicalizer="bfcl", format="bfcl", bfcl_answers=str(a),
                         bfcl_questions=str(q), keep_details=20)
    from ek.scorer.metric import PreparedGold, ToolCallMetric

    prepared: list[Any] = []  # the gold of each line scored (from the memo, or the line before's: _same_question)
    score = ToolCallMetric.__call__

    def counted(self: Any, pred: Any, gold: Any, **kwargs: Any) -> Any:
        prepared.append(gold if type(gold) is PreparedGold else None)
        return score(self, pred, gold, **kwargs)

    monkeypatch.setattr(ToolCallMetric, "__call__", counted)
    with_memo = run(str(corpus), options)
    assert sum(p is not None for p in prepared) > len(lines) // 2
    monkeypatch.setattr(runner._GoldMemo, "gold", lambda self, metric, episode: None)  # every line on its own
    alone = run(str(corpus), options)
    def report(result: Any) -> Any:
        out = build_report(result, options)
        out.get("corpus", {}).pop("seconds", None)
        return json.dumps(out, sort_keys=True, default=str)

    assert with_memo.summary.episodes == alone.summary.episodes > len(lines) * 0.9
    assert report(with_memo) == report(alone)
    assert with_memo.summary.worst() == alone.summary.worst()


def _bfcl_passes(tmp_path: Path, bfcl_data: Path, passes: int) -> tuple[Path, RunOptions, int]:
    """A BFCL result file that goes over 12 questions ``passes`` times (one result file per sample,
    concatenated), some outputs wrong."""
    import random

    from ek.bfcl import load_category
    from ek.bfcl.variants import variants
    from ek.calls import Step
    from ek.parsing import to_python

    rng = random.Random(11)
    category = "parallel_multiple"
    entries = load_category(bfcl_data / f"BFCL_v4_{category}.json")[:12]
    texts = {}
    for e in entries:
        outputs = [out for _label, out in variants(e.functions, e.ground_truth, category, rng)]
        texts[e.id] = [to_python([Step(n, a) for call in out for n, a in call.items()]) for out in outputs]
    lines = [json.dumps({"id": e.id, "result": rng.choice(texts[e.id])}) for _ in range(passes) for e in entries]
    corpus, q, a = tmp_path / "result.jsonl", tmp_path / "q.json", tmp_path / "a.json"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    q.write_text((bfcl_data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8"), encoding="utf-8")
    a.write_text((bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8"),
                 encoding="utf-8")
    options = RunOptions(level="arg", canonicalizer="bfcl", format="bfcl", bfcl_answers=str(a),
                         bfcl_questions=str(q), keep_details=20)
    return corpus, options, len(entries)


def test_a_gold_met_again_chunks_later_is_checked_once_and_scored_prepared(
        tmp_path: Path, bfcl_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A corpus that goes over the questions again (passes longer than a chunk) meets each gold entry again in
    a later chunk: the run's memo checks it once and scores it prepared from then on, in one process and in
    each worker; the report is the one scoring every line on its own gives."""
    from ek.report.jsonreport import build_report

    corpus, options, questions = _bfcl_passes(tmp_path, bfcl_data, passes=5)
    monkeypatch.setattr(runner, "CHUNK_LINES", 5)  # each pass spans several chunks
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 5)
    checked: list[Any] = []
    prepared: list[Any] = []
    problems, gold = runner.episode_gold_problems, runner._GoldMemo.gold

    def counted_problems(metric: Any, episode: Any) -> Any:
        checked.append(episode.id)
        return problems(metric, episode)

    def counted_gold(self: Any, metric: Any, episode: Any) -> Any:
        found = gold(self, metric, episode)
        prepared.append(found)
        return found

    monkeypatch.setattr(runner, "episode_gold_problems", counted_problems)
    monkeypatch.setattr(runner._GoldMemo, "gold", counted_gold)
    memo = run(str(corpus), options)
    assert sorted(checked) == sorted(set(checked)) and len(checked) == questions
    assert sum(p is not None for p in prepared) >= 3 * questions  # passes 2-5, less the lines with gold errors
    in_workers = run(str(corpus), options, jobs=2)
    monkeypatch.setattr(runner._GoldMemo, "gold", lambda self, metric, episode: None)
    monkeypatch.setattr(runner, "_GoldMemo", lambda *args: _Forgetful())
    alone = run(str(corpus), options)

    def report(result: Any) -> Any:
        out = build_report(result, options)
        out.get("corpus", {}).pop("seconds", None)
        return json.dumps(out, sort_keys=True, default=str)

    assert memo.summary.episodes == alone.summary.episodes == in_workers.summary.episodes > 0
    assert report(memo) == report(alone) == report(in_workers)


class _Forgetful:
    """A gold memo that remembers nothing: every line checked and scored on its own."""

    last = None  # (nor the question of the line before: see runner._same_question)

    def problems(self, metric: Any, episode: Any) -> Any:
        return runner.episode_gold_problems(metric, episode)

    def gold(self, metric: Any, episode: Any) -> Any:
        return None


def test_a_run_reads_the_bfcl_questions_file_once(tmp_path: Path, bfcl_data: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The questions give the functions of each question and the gold of those without an answer: one read
    (of 1,000 questions: 20 ms of a one-pass run), and the same report as reading the file for each."""
    from ek.corpus import reading
    from ek.report.jsonreport import build_report

    corpus, options, _questions = _bfcl_passes(tmp_path, bfcl_data, passes=1)
    reads: list[Any] = []
    for module in (reading, runner):
        def spy(path: Any, _read: Any = module.read_questions) -> Any:
            reads.append(path)
            return _read(path)
        monkeypatch.setattr(module, "read_questions", spy)
    once = build_report(run(str(corpus), options), options)
    assert len(reads) == 1
    monkeypatch.setattr(runner.RunOptions, "read_bfcl_questions", lambda self: None)
    each = build_report(run(str(corpus), options), options)
    assert len(reads) == 3
    for report in (once, each):
        report["corpus"].pop("seconds", None)
    assert once == each


def test_the_gold_memo_keeps_its_bound_dropping_the_oldest(tmp_path: Path, bfcl_data: Path) -> None:
    from ek.corpus.reading import Episode

    corpus, options, _questions = _bfcl_passes(tmp_path, bfcl_data, passes=1)
    gold_by_id, _errors = options.load_gold()
    cache = options.metric_cache(options.bfcl_functions())
    memo = runner._GoldMemo(limit=3)
    episodes = [parse_episode(raw, n, gold_by_id) for n, raw in enumerate(corpus.read_bytes().splitlines(), 1)]
    assert all(isinstance(e, Episode) for e in episodes)
    for e in episodes:
        memo.problems(cache.for_episode(None, e.id), e)
    assert len(memo._seen) == 3
    assert [seen[0] for seen in memo._seen.values()] == [e.gold for e in episodes[-3:]]


@pytest.mark.parametrize("keep_export", [False, True])
def test_a_one_turn_score_counts_as_its_episode_score(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       keep_export: bool) -> None:
    """``Summary.add`` takes a one-turn line's Score as it is (its EpisodeScore built only where read): the
    summary is the one the EpisodeScore gives, worst episodes, export rows and all."""
    from ek.report.jsonreport import build_report
    from ek.scorer.turns import EpisodeScore

    corpus = synthetic_corpus(tmp_path / "c.jsonl", 300, accuracy=0.5, corrupt_every=17)
    with open(corpus, "a", encoding="utf-8") as out:  # an unparsable output, an abstention, a spurious call
        for i, (pred, gold) in enumerate([("get_weather(", []), ("", []), ("get_weather(location='Oslo')", [])]):
            out.write(json.dumps({"id": f"extra-{i}", "pred": pred, "gold": gold}) + "\n")
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_worst=30, keep_details=10, keep_ids=True,
                         keep_export=keep_export)

    def everything() -> str:
        rows: list[Any] = []
        result = run(str(corpus), options, export=rows.extend)
        report = build_report(result, options)
        report.get("corpus", {}).pop("seconds", None)
        s = result.summary
        return json.dumps([report, [repr(d) for d in s.worst()], rows, [list(r) for r in s.rows()],
                           list(s.exact_rows), sorted(s.arg_failures.items()), dict(s.abstention)],
                          sort_keys=True, default=str)

    as_score = everything()
    one_turn = runner._score_one_turn
    monkeypatch.setattr(runner, "_score_one_turn", lambda *a: EpisodeScore((one_turn(*a),)))
    assert everything() == as_score


def test_a_bfcl_question_met_again_in_a_row_gets_the_metric_its_schemas_key_gives() -> None:
    """``MetricCache.for_episode`` hands a line whose question has the schemas of the line before the metric
    it found then: the one the schemas' key finds in the LRU, whose order stays what it would have been."""
    from ek.corpus.grammars import MetricCache

    def schemas(name: str) -> list[dict[str, Any]]:
        return [{"name": name, "description": "", "parameters": {"type": "dict", "properties": {
            "x": {"type": "integer", "description": ""}}, "required": ["x"]}}]

    functions = {"a": schemas("f"), "b": schemas("g"), "c": schemas("f"), "d": schemas("h")}
    ids = ["a", "a", "b", "a", "c", "c", "b", "d", "d", "a", "b", "b", "c"]

    def cache() -> MetricCache:
        made = MetricCache(level="arg", canonicalizer="bfcl", optimal=False, default_grammar=None,
                           search_path=(), bfcl_functions=functions)
        made.BFCL_CACHE = 2  # evictions too
        return made

    fast, alone = cache(), cache()
    for episode_id in ids:
        alone._bfcl_last = None  # every lookup the whole way
        got, want = fast.for_episode(None, episode_id), alone.for_episode(None, episode_id)
        assert got.grammar == want.grammar and [t.name for t in got.grammar.tools] == [functions[episode_id][0]["name"]]
        assert list(fast._bfcl) == list(alone._bfcl)


def test_passes_over_as_many_function_sets_as_bfcl_has_build_each_metric_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """BFCL's entries have 2,116 distinct function sets: a corpus that goes over them again and again (one
    result file per model or sample, concatenated) finds every metric it built in the cache."""
    import ek.bfcl
    from ek.corpus.grammars import MetricCache

    built: list[Any] = []
    to_grammar = ek.bfcl.to_grammar  # what the cache calls, through the package's lazy names
    monkeypatch.setattr(ek.bfcl, "to_grammar", lambda functions: built.append(functions) or to_grammar(functions))
    functions = {f"q{i}": [{"name": f"f{i}", "parameters": {"type": "dict", "properties": {
        "x": {"type": "integer"}}, "required": ["x"]}}] for i in range(2116)}
    cache = MetricCache(level="arg", canonicalizer="bfcl", optimal=False, default_grammar=None, search_path=(),
                        bfcl_functions=functions)
    first = [cache.for_episode(None, q) for q in functions]
    again = [cache.for_episode(None, q) for q in functions]
    assert len(built) == len(functions) and all(a is b for a, b in zip(first, again))
    assert [t.name for t in again[-1].grammar.tools] == ["f2115"]


_FIELDS = ["id", "result", "pred", "gold", "task", "category", "format", "grammar", "turns", "output"]
_FIELD_VALUES = st.one_of(st.sampled_from(["q1", "q2", "mt", "nope", 1, "f(x=1)", "travel@2", "python", "c"]),
                          st.none(), st.just([]), st.just([{"pred": "", "gold": []}]), st.just(True))


@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.dictionaries(st.sampled_from(_FIELDS), _FIELD_VALUES, max_size=4),
                 st.fixed_dictionaries({"id": _FIELD_VALUES, "result": _FIELD_VALUES})), st.booleans())
def test_a_bfcl_result_line_reads_as_the_general_reading_reads_it(obj: dict[str, Any], shared: bool) -> None:
    """``parse_episode``'s fast path for ``{"id", "result"}`` lines (``_bfcl_result_line``) gives the Episode
    or error the general reading gives, for any line whatever its keys."""
    from ek.calls import Step
    from ek.corpus import reading
    from ek.corpus.reading import GoldEntry

    gold_by_id = {"q1": GoldEntry((Step("f", {"x": 1}),), category="simple"),
                  "q2": GoldEntry((), grammar="travel@2"), "mt": GoldEntry((), turns=(((Step("g", {}),),)))}
    raw = json.dumps(obj)
    fast = parse_episode(raw, 7, gold_by_id, shared_gold=shared)
    general = reading._bfcl_result_line
    try:
        reading._bfcl_result_line = lambda *args: None  # type: ignore[assignment]
        assert repr(parse_episode(raw, 7, gold_by_id, shared_gold=shared)) == repr(fast)
    finally:
        reading._bfcl_result_line = general  # type: ignore[assignment]


def test_schemas_first_with_their_names_share_a_metric_exactly_when_their_content_key_would() -> None:
    """``MetricCache._bfcl_alone`` (no content key for the first schemas with their tool names) hands out the
    metrics the content key alone hands out: equal content (key order aside) shares one, other content with
    the same names gets its own; with evictions, each line still gets its own schemas' grammar."""
    from ek.corpus.grammars import MetricCache

    def schemas(name: str, doc: str = "", reverse: bool = False) -> list[dict[str, Any]]:
        parameters = {"type": "dict", "properties": {"x": {"type": "integer", "description": doc}}, "required": ["x"]}
        function = {"name": name, "description": doc, "parameters": parameters}
        return [dict(reversed(function.items())) if reverse else function]

    functions = {"a": schemas("f"), "b": schemas("f", "other"), "c": schemas("f"), "d": schemas("f", reverse=True),
                 "e": schemas("g"), "h": schemas("h"), "i": schemas("g"), "j": [{"name": 7}]}
    ids = ["a", "e", "b", "c", "a", "d", "h", "i", "e", "b", "h", "h", "a", "i"]

    def run(alone: bool, size: int) -> list[tuple[int, Any]]:
        cache = MetricCache(level="arg", canonicalizer="bfcl", optimal=False, default_grammar=None,
                            search_path=(), bfcl_functions=functions)
        cache.BFCL_CACHE = size
        if not alone:
            cache._bfcl_alone = lambda _functions: None  # type: ignore[method-assign]
        metrics = []
        for episode_id in ids:
            cache._bfcl_last = None
            metrics.append(cache.for_episode(None, episode_id))
            assert set(cache._bfcl_alone_functions) <= set(cache._bfcl)  # schemas kept only with their metric
        firsts: list[Any] = []  # which metrics are the same object: the index of each one's first line
        for m in metrics:
            firsts.append(next(i for i, seen in enumerate(metrics) if seen is m))
        return [(f, m.grammar) for f, m in zip(firsts, metrics)]

    for size in (2, 3):  # evictions: which metric is rebuilt may differ (moved under its key, it stays longer)
        assert [grammar for _, grammar in run(True, size)] == [grammar for _, grammar in run(False, size)]
    assert run(True, 100) == run(False, 100)
    shared = run(True, 100)
    assert shared[0][0] == shared[3][0] == shared[5][0] != shared[2][0]  # a, c, d share; b has its own


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([{"name": "f"}, {"name": "g.h"}, {"name": 3}, {}, "f", None, UserDict({"name": "u"}),
                                 {"name": None}]), max_size=4))
def test_tool_names_of_a_question_are_the_names_of_its_mappings(functions: list[Any]) -> None:
    from ek.corpus.grammars import _tool_names

    names = tuple(f.get("name") if isinstance(f, Mapping) else None for f in functions)
    assert _tool_names(functions) == (names if all(type(n) is str for n in names) else None)


def test_lines_of_one_id_are_scored_together_and_summed_in_line_order(
        tmp_path: Path, bfcl_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's lines are scored grouped by id (the lines of a question met again in it, one after another,
    while what they share is in the CPU's caches), each summed as it is scored, and the summary put back in
    line order: the report, the episode rows, error lines, gold warnings, the per-episode columns and the
    tasks' samples (tasks that cut across ids) are those of scoring every line in line order, in one process
    and in two."""
    from ek.report.jsonreport import build_report

    corpus, options, questions = _bfcl_passes(tmp_path, bfcl_data, passes=6)
    lines = [json.dumps({**json.loads(line), "task": f"task-{k % 5}"}) if k % 3 else line
             for k, line in enumerate(corpus.read_text(encoding="utf-8").splitlines())]
    lines[3] = "{not json"  # an error line amid the passes
    lines.insert(20, json.dumps({"id": "no_such_question", "result": "[f()]"}))
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = attrs.evolve(options, keep_export=True, keep_ids=True, invalid_gold="warn", keep_worst=15)
    scored: list[Any] = []
    score_line = runner._score_line

    def spy(options: Any, cache: Any, memo: Any, item: Any) -> Any:
        scored.append(item.line)
        return score_line(options, cache, memo, item)

    monkeypatch.setattr(runner, "_score_line", spy)

    def report(jobs: int) -> tuple[str, list[Any], list[Any]]:
        rows: list[Any] = []
        result = run(str(corpus), options, jobs=jobs, export=rows.extend)
        out = build_report(result, options)
        out.get("corpus", {}).pop("seconds", None)
        s = result.summary
        columns = [list(c) for c in (s.rows_tp, s.rows_fp, s.rows_fn, s.lines, s.exact_rows, s.ids, s.task_ids,
                                      s.sources, s.errors, s.gold_warnings)]
        return json.dumps(out, sort_keys=True, default=str), rows, [*columns, list(s.tasks.items())]

    grouped = report(1)
    assert scored != sorted(scored) and sorted(scored) == list(range(1, len(lines) + 1))
    first_pass = scored[:6]  # the first question's six lines, one per pass, came first
    assert first_pass == [1 + k * questions + (k >= 2) for k in range(6)]
    two = report(2)
    monkeypatch.setattr(runner, "CHUNK_LINES", 1)  # one line a chunk: line order
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 1)
    scored.clear()
    in_order = report(1)
    assert scored == sorted(scored)
    assert grouped == in_order == two
    assert [row["line"] for row in grouped[1]] == sorted(row["line"] for row in grouped[1])
    summed = json.loads(grouped[0])
    assert summed["repeats"]["tasks"] == 5 and summed["errors"]


def test_by_id_groups_ids_in_first_seen_order_and_leaves_the_rest_alone() -> None:
    from ek.corpus.reading import Episode

    def episode(line: int, episode_id: Any) -> Episode:
        return Episode(line, episode_id, "[f()]", (), None, None)

    error = LineError(3, None, "bad line")
    items = [episode(1, "a"), episode(2, "b"), error, episode(4, "a"), episode(5, None), episode(6, 7),
             episode(7, "b"), episode(8, 7), episode(9, None), episode(10, True)]
    assert runner._by_id(items) == [0, 3, 1, 6, 2, 4, 5, 7, 8, 9]
    assert runner._by_id(items[:3]) is None  # every id once: line order
    in_a_row = [episode(1, "a"), episode(2, "a"), error, episode(4, "b"), episode(5, "b"), episode(6, None)]
    assert runner._by_id(in_a_row) is None  # each id's lines already together: line order
    assert runner._by_id(in_a_row + [episode(7, "a")]) == [0, 1, 6, 2, 3, 4, 5]
    assert runner._by_id([]) is None


def test_run_chunks_start_small_and_double_every_jobs_chunks_up_to_the_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In one process the chunks only grow. With workers, past the first ``jobs`` chunks, the last full chunk
    and the lines after it come in pieces that shrink (a ``2 * jobs``-th of what is left, at least
    ``TAIL_CHUNK_LINES``), so that no worker scores a large chunk alone at the end; every line comes once, in
    order."""
    monkeypatch.setattr(runner, "CHUNK_LINES", 3)
    monkeypatch.setattr(runner, "SCORE_WINDOW_LINES", 10)
    monkeypatch.setattr(runner, "TAIL_CHUNK_LINES", 2)
    lines = [(k, b"{}") for k in range(1, 60)]
    chunks = list(runner._run_chunks(iter(lines), 1))
    assert [len(c) for c in chunks] == [3, 6, 10, 10, 10, 10, 10] and sum(chunks, []) == lines
    chunks = list(runner._run_chunks(iter(lines), 2))  # the tail: 10 + 1 lines, in quarters of what is left
    assert [len(c) for c in chunks] == [3, 3, 6, 6, 10, 10, 10, 2, 2, 2, 2, 2, 1] and sum(chunks, []) == lines
    # the first ``jobs`` chunks, which the workers start with, as they were (their count is the workers')
    assert [len(c) for c in runner._run_chunks(iter(lines[:5]), 2)] == [3, 2]
    assert [len(c) for c in runner._run_chunks(iter(lines[:14]), 2)] == [3, 3, 2, 2, 2, 2]
    for n in range(0, 40):  # every length: each line once, in order, and no empty chunk
        chunks = list(runner._run_chunks(iter(lines[:n]), 3))
        assert sum(chunks, []) == lines[:n] and all(chunks)


def test_a_chunk_summed_in_grouped_order_is_put_back_in_line_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interleaved ids with tasks that cut across them, invalid gold (warnings), error lines, ``keep_ids`` and
    episode rows: every column, warning, error and task sample of a grouped chunk is what line order gives."""
    from ek.corpus.summary import Summary

    lines = []
    for k in range(240):
        if k % 37 == 5:
            lines.append('{"id": "broken", "pred": ')
            continue
        city = ["Paris", "Rome", "Oslo"][k % 3]
        gold_calls = [{"name": "get_weather", "args": {"location": city}}]
        if k % 29 == 3:
            gold_calls = [{"name": "no_such_tool", "args": {}}]  # invalid gold: a warning, still scored
        said = city if k % 4 else "Lima"
        line: dict[str, Any] = {"id": f"q{k % 9}", "task": f"t{k % 4}", "category": ["a", "b"][k % 2]}
        if k % 5 == 1:  # a multi-turn episode: per-turn tables and first failing turns too
            line["turns"] = [{"pred": f"get_weather(location={said!r})", "gold": gold_calls},
                             {"pred": "" if k % 3 else "get_weather(location='Oslo')", "gold": []}]
        else:
            line.update(pred=f"get_weather(location={said!r})", gold=gold_calls)
        lines.append(json.dumps(line))
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), invalid_gold="warn", keep_ids=True,
                         keep_export=True, keep_worst=30, keep_details=10)
    restored: list[int] = []
    restore = Summary.restore_line_order

    def spy(self: Summary, positions: Any, tasks: Any, golds: Any = None) -> None:
        restored.append(len(positions))
        restore(self, positions, tasks, golds)

    monkeypatch.setattr(Summary, "restore_line_order", spy)

    def outcome() -> tuple[Any, ...]:
        rows: list[Any] = []
        s = run(str(corpus), options, export=rows.extend).summary
        return (rows, [list(c) for c in (s.rows_tp, s.rows_fp, s.rows_fn, s.lines, s.exact_rows, s.ids,
                                          s.task_ids, s.sources)],
                s.errors, s.error_count, s.gold_warnings, s.gold_warning_count, list(s.tasks.items()), s.worst(),
                s.total().exact_counts, dict(s.total().tally), s.per_turn, dict(s.first_failing),
                dict(s.abstention),
                {c: (score.exact_counts, exact) for c, (score, exact) in s.category_scores().items()},
                s.mixed_gold_tasks())

    grouped = outcome()
    assert restored and sum(restored) == 240 - 7  # every scored line went through the grouped path
    monkeypatch.setattr(runner, "_by_id", lambda items: None)  # every line scored and summed in line order
    restored.clear()
    in_order = outcome()
    assert not restored
    assert grouped == in_order
    assert grouped[3] == 7 and grouped[5] == 9 and len(grouped[6]) == 4  # errors, warnings, tasks were met
    assert len(grouped[10]) == 2 and len(grouped[13]) == 2  # two turns, two categories
    assert len(grouped[14]) == 4  # each task's samples have several golds (cities): its first and first other


_ARGUMENT_TEXTS = st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3) | st.lists(
    st.integers(), max_size=2), max_size=3).map(json.dumps) | st.sampled_from(
    ['{"a": 1, "a": 2}', '{"x": NaN}', "[1]", "", "  ", "{", '{"x": ' + "[" * 70 + "]" * 70 + "}",
     '"' + "x" * 50 + '"'])
_SAVED = st.lists(st.dictionaries(st.text(max_size=3), _ARGUMENT_TEXTS | st.integers() | st.dictionaries(
    st.text(max_size=2), st.integers(), max_size=2), max_size=2) | st.integers(), max_size=3)


@settings(max_examples=300, deadline=None)
@given(pred=_SAVED)
def test_saved_function_calls_read_at_once_are_what_their_json_text_reads_to(pred: list[Any]) -> None:
    """runner._saved_calls: a list of BFCL's saved calls read from the list gives the steps the metric reads
    from its JSON text; anything else is left to that text (the same error, at the same place)."""
    from ek.agents.toolcalls import ToolCallMetric
    from ek.parsing import ParseError

    metric = ToolCallMetric(format="bfcl")
    text = json.dumps(pred)
    fast = runner._prepare_pred(pred, "bfcl")
    try:
        read = metric.read(text)
    except ParseError:
        assert fast == text
        return
    assert fast == text or fast == read
    saved = all(type(i) is dict and all(type(a) is str for a in i.values()) for i in pred)
    if saved and all(name and a.strip() for i in pred for name, a in i.items()):
        assert fast == read and type(fast) is tuple  # every such list is read at once


@pytest.mark.parametrize("over", [0, 1])
@pytest.mark.parametrize("filler", ["x", "é", "\U0001f600", '"'])
def test_saved_function_calls_at_the_size_limit_are_read_as_their_json_text_is(filler: str, over: int) -> None:
    """runner._saved_calls bounds the JSON text's length instead of writing it: a list whose text is exactly
    at the parser's size limit is read at once, one character past it is left to the text (a size error),
    whatever the characters cost to escape (one, two, six or twelve characters each)."""
    from ek.agents.toolcalls import ToolCallMetric
    from ek.limits import OUTPUT_MAX_SIZE
    from ek.parsing import ParseError

    def saved(n: int) -> list[Any]:
        return [{"f": json.dumps({"x": filler * n}, ensure_ascii=False)}]

    base = len(json.dumps(saved(0)))
    per = len(json.dumps(saved(1))) - base
    n = (OUTPUT_MAX_SIZE - base) // per
    pred = saved(n)
    pad = OUTPUT_MAX_SIZE - len(json.dumps(pred)) + over  # ASCII padding to land exactly on the limit (+ over)
    pred = [{"f": pred[0]["f"][:-2] + " " * pad + "\"}"}]
    text = json.dumps(pred)
    assert len(text) == OUTPUT_MAX_SIZE + over
    fast = runner._prepare_pred(pred, "bfcl")
    if over:
        assert fast == text
        with pytest.raises(ParseError, match="max_size"):
            ToolCallMetric(format="bfcl").read(text)
    else:
        assert type(fast) is tuple and fast == ToolCallMetric(format="bfcl").read(text)
        assert fast[0].args["x"].startswith(filler)


def _question_lines(bfcl_data: Path, tmp_path: Path) -> tuple[list[str], RunOptions, RunOptions]:
    """Lines that a line of the same question may follow, each a case the fast path of a question met again in a
    row (``runner._same_question``) must leave alone or read alike: right, wrong and saved-call outputs of
    ``parallel_0``; the same id with its own format, gold, or grammar (unknown, or a schema); a
    format-sensitivity id of that question (the same gold object, another id, its output read in its prompt's
    format); a Java question (its output read by its declared types); another question; a question whose gold
    its function rejects; and an irrelevance question, in one turn and in turns. Run options for
    ``--invalid-gold error`` and ``warn``."""
    fs_id = "format_sensitivity_1:ret_fmt=json&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext" \
            "&style=classic:parallel_0"
    play = '{{"function": "spotify.play", "parameters": {{"artist": "{}", "duration": {}}}}}'
    right = "[spotify.play(artist='Taylor Swift', duration=20), spotify.play(artist='Maroon 5', duration=15)]"
    lines = [
        {"id": "parallel_0", "result": right},
        {"id": "parallel_0", "result": right.replace("20", "21")},
        {"id": "parallel_0", "result": [{"spotify.play": '{"artist": "Maroon 5", "duration": 15}'},
                                        {"spotify.play": '{"artist": "Taylor Swift", "duration": 20}'}]},
        {"id": "parallel_0", "result": right, "format": "json"},
        {"id": "parallel_0", "result": right, "grammar": "no_such_grammar@1"},
        {"id": "parallel_0", "result": right, "grammar": "travel@2"},
        {"id": "parallel_0", "result": right, "gold": [{"name": "spotify.play", "arguments": {"artist": "Maroon 5",
                                                                                            "duration": 15}}]},
        {"id": fs_id, "result": f"[{play.format('Taylor Swift', 20)}, {play.format('Maroon 5', 15)}]"},
        {"id": fs_id, "result": right},
        {"id": "simple_java_0", "result": "[GeometryPresentation.createPresentation(controller=mapController, "
                                          "parent=mapArea)]"},
        {"id": "simple_python_0", "result": "[calculate_triangle_area(base=10, height=5)]"},
        {"id": "simple_python_bad", "result": "[f(x=1)]"},
        {"id": "irrelevance_0", "result": "[]"},
        {"id": "irrelevance_0", "turns": [{"pred": "[determine_body_mass_index(weight=70, height=180)]",
                                           "gold": []}]},  # its gold, (), the very object too
    ]
    questions, answers = tmp_path / "q.json", tmp_path / "a.json"
    bad_question = {"id": "simple_python_bad", "question": [[{"role": "user", "content": "x"}]], "function": [
        {"name": "f", "description": "", "parameters": {"type": "dict", "properties": {
            "x": {"type": "integer", "description": ""}}, "required": ["x"]}}]}
    bad_answer = {"id": "simple_python_bad", "ground_truth": [{"f": {"x": ["one"]}}]}
    with open(questions, "w", encoding="utf-8") as q, open(answers, "w", encoding="utf-8") as a:
        q.writelines((bfcl_data / "BFCL_v4_irrelevance.json").read_text(encoding="utf-8").splitlines(True)[:1])
        for category, k in (("parallel", 1), ("simple_java", 1), ("simple_python", 1)):
            q.writelines((bfcl_data / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines(True)[:k])
            a.writelines((bfcl_data / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8")
                         .splitlines(True)[:k])
        q.write(json.dumps(bad_question) + "\n")
        a.write(json.dumps(bad_answer) + "\n")
    options = [RunOptions(level="arg", canonicalizer="bfcl", format="bfcl", bfcl_answers=str(answers),
                          bfcl_questions=str(questions), keep_export=True, keep_worst=50, invalid_gold=invalid,
                          search_path=(str(SCHEMAS),))
               for invalid in ("error", "warn")]
    return [json.dumps(line) for line in lines], options[0], options[1]


@settings(max_examples=60, deadline=None)
@given(picks=st.lists(st.integers(0, 13), min_size=2, max_size=14), warn=st.booleans())
@example(picks=[5, 5, 0, 1], warn=True)  # a question's gold prepared under a schema the line names, then none
@example(picks=[12, 12, 13], warn=False)  # a multi-turn line of a question met in a row, its gold the same ()
def test_a_question_met_again_in_a_row_is_scored_as_the_general_path_scores_it(
        picks: list[int], warn: bool, bfcl_data: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each line of a sequence of lines (a question met again in a row, or after another one, or the same id with
    its own format, grammar or gold, a format-sensitivity id of the same question) gets the score, error or
    warning the general path gives it: the fast path (``runner._same_question``) reads the question of the line
    before only where nothing tells the lines apart."""
    pool, error_options, warn_options = _question_lines(bfcl_data, tmp_path_factory.mktemp("q"))
    options = warn_options if warn else error_options
    inputs = runner.read_inputs(options)
    lines = [(k + 1, pool[p].encode()) for k, p in enumerate(picks)]

    def outcome(fast: bool) -> Any:
        cache = options.metric_cache(inputs.functions)
        memo = runner._GoldMemo()
        if not fast:
            memo = _NoLast(memo)
        summary = score_lines(options, cache, lines, inputs.gold_by_id, memo=memo)  # type: ignore[arg-type]
        return (summary.export, [str(e) for e in summary.errors], [str(w) for w in summary.gold_warnings],
                repr(summary.categories), repr(summary.turns_given))

    assert outcome(fast=True) == outcome(fast=False)


class _NoLast:
    """A gold memo whose last question is never kept: every line takes the general path."""

    def __init__(self, memo: Any) -> None:
        self._memo = memo

    def problems(self, metric: Any, episode: Any) -> Any:
        return self._memo.problems(metric, episode)

    def gold(self, metric: Any, episode: Any) -> Any:
        return self._memo.gold(metric, episode)

    @property
    def last(self) -> None:
        return None

    @last.setter
    def last(self, value: Any) -> None:
        pass


def test_a_question_met_again_in_a_row_skips_the_metric_lookup(bfcl_data: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """From the third line of a question in a row (the second prepares its gold), the line before's metric,
    gold problems and prepared gold are taken as they are: the cache and memo are not asked again."""
    pool, options, _warn = _question_lines(bfcl_data, tmp_path)
    inputs = runner.read_inputs(options)
    cache = options.metric_cache(inputs.functions)
    asked: list[Any] = []
    for_episode = cache.for_episode
    monkeypatch.setattr(cache, "for_episode", lambda ref, episode_id: asked.append(episode_id) or
                        for_episode(ref, episode_id))
    lines = [(k + 1, pool[p].encode()) for k, p in enumerate([0, 1, 2, 0, 1, 10, 10, 10, 0])]
    summary = score_lines(options, cache, lines, inputs.gold_by_id)  # (scored grouped by id: _by_id)
    assert summary.episodes == 9
    assert asked == ["parallel_0", "parallel_0", "simple_python_0", "simple_python_0"]
