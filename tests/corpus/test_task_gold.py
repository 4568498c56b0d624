"""The gold key of a task's samples (``ek score``): ``ek compare``'s gold digest, found once per gold object, and
nothing at all for lines that name no task."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from ekcli import gold, write_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.calls import ANY_CALL
from ek.corpus import runner
from ek.corpus.runner import RunOptions, gold_digest, run
from ek.goldjson import gold_from_json, gold_to_json

_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False),
                  st.text(max_size=4))
_VALUE = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3),
    st.lists(st.one_of(inner, st.just({"$omit": True})), min_size=1, max_size=3).map(lambda v: {"$oneOf": v})),
    max_leaves=8)
_CALL = st.fixed_dictionaries({"name": st.sampled_from(["f", "g.h", "ü"]),
                               "arguments": st.dictionaries(st.text(max_size=3), _VALUE | st.just({"$omit": True}),
                                                            max_size=4)})


def _digest_as_written(calls: Any) -> str:
    """gold_digest as it was first written: the gold as JSON data, dumped with its keys sorted, hashed."""
    text = json.dumps(gold_to_json(calls), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@settings(max_examples=300, deadline=None)
@given(st.lists(_CALL, max_size=3), st.randoms(use_true_random=False))
def test_the_digest_is_the_one_of_the_gold_as_json_with_sorted_keys(calls: list[Any], rng: Any) -> None:
    """The encoder that writes gold calls as they are writes the text gold_to_json and json.dumps wrote, so the
    digests ek compare kept are unchanged; and gold written with its keys in another order has the same one."""
    steps = tuple(gold_from_json(calls))
    assert gold_digest(steps) == _digest_as_written(steps)

    def shuffled(value: Any) -> Any:
        if isinstance(value, dict):
            items = list(value.items())
            rng.shuffle(items)
            return {k: shuffled(v) for k, v in items}
        return [shuffled(v) for v in value] if isinstance(value, list) else value

    assert gold_digest(tuple(gold_from_json(shuffled(calls)))) == gold_digest(steps)


def test_calls_with_after_and_any_call_keep_their_digests() -> None:
    steps = tuple(gold_from_json([gold("f", x=1), {"name": "g", "arguments": {}, "after": [0]}]))
    assert gold_digest(steps) == _digest_as_written(steps)
    assert gold_digest(ANY_CALL) == _digest_as_written(ANY_CALL) != gold_digest(())


def _counting_digests(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The golds runner.gold_digest is asked about from now on (it still computes each)."""
    asked: list[Any] = []
    real = runner.gold_digest

    def counted(calls: Any) -> str:
        asked.append(calls)
        return real(calls)

    monkeypatch.setattr(runner, "gold_digest", counted)
    return asked


def test_gold_read_by_id_is_digested_once_per_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gold_file = write_lines(tmp_path / "gold.jsonl", [{"id": f"q{k}", "gold": [gold("f", x=k)]} for k in range(4)])
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": f"q{k % 4}", "task": f"t{k % 4}", "pred": "f(x=1)"}
                                                for k in range(200)])
    asked = _counting_digests(monkeypatch)
    result = run(str(corpus), RunOptions(gold_file=str(gold_file)))
    assert result.summary.episodes == 200 and len(result.summary.tasks) == 4 and not result.summary.mixed_gold
    assert len(asked) == 4  # one per gold entry, not one per line


def test_lines_without_a_task_compute_no_gold_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": f"e{k}", "pred": "f(x=1)", "gold": [gold("f", x=k % 3)]}
                                                for k in range(100)])
    asked = _counting_digests(monkeypatch)
    assert run(str(corpus), RunOptions()).summary.episodes == 100
    assert asked == []


def test_a_multi_turn_task_compares_every_turn(tmp_path: Path) -> None:
    def episode(task: str, second: Any) -> dict[str, Any]:
        return {"task": task, "turns": [{"pred": "f(x=1)", "gold": [gold("f", x=1)]},
                                        {"pred": "g()", "gold": second}]}

    corpus = write_lines(tmp_path / "c.jsonl", [
        episode("same", [gold("g", a={"p": 1, "q": 2})]), episode("same", [{"arguments": {"a": {"q": 2, "p": 1}},
                                                                            "name": "g"}]),
        episode("other", [gold("g")]), episode("other", [])])
    summary = run(str(corpus), RunOptions()).summary
    assert summary.episodes == 4 and summary.mixed_gold_tasks() == [("other", 3, 4)]


def test_task_gold_ignore_computes_no_gold_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = write_lines(tmp_path / "c.jsonl", [{"id": f"e{k}", "task": f"t{k % 5}", "pred": "f(x=1)",
                                                 "gold": [gold("f", x=k % 3)]} for k in range(100)])
    asked = _counting_digests(monkeypatch)
    summary = run(str(corpus), RunOptions(task_gold="ignore")).summary
    assert summary.episodes == 100 and len(summary.tasks) == 5 and not summary.mixed_gold
    assert asked == []
    assert run(str(corpus), RunOptions()).summary.mixed_gold  # the same lines, compared: mixed
