"""A run's units for a bootstrap over tasks: each task's samples summed exactly, every other episode alone, the
same however the run was split, merged or reordered."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.corpus.summary import Summary
from ek.scorer.accounting import Score

Episode = tuple[Any, tuple[Any, Any, Any]]  # (task or None, (tp, fp, fn))


def _add(summary: Summary, line: int, episode: Episode) -> None:
    task, (tp, fp, fn) = episode
    summary.add(line, None, Score(tp=tp, fp=fp, fn=fn), None, task=task)


def _one_pass(episodes: list[Episode]) -> Summary:
    summary = Summary()
    for line, episode in enumerate(episodes, 1):
        _add(summary, line, episode)
    return summary


def _expected(episodes: list[Episode]) -> tuple[list[float], ...] | None:
    """The units written out: tasks in order of first appearance with exact sums, then lone episodes in order."""
    tasks: dict[Any, list[Any]] = {}
    alone: list[list[Any]] = []
    for task, (tp, fp, fn) in episodes:
        exact = int(fp == 0 and fn == 0)
        if task is None:
            alone.append([tp, fp, fn, exact, 1])
        else:
            unit = tasks.setdefault(task, [0, 0, 0, 0, 0])
            for k, value in enumerate((tp, fp, fn, exact, 1)):
                unit[k] += value
    if not any(unit[4] > 1 for unit in tasks.values()):
        return None
    units = [*tasks.values(), *alone]
    return tuple([float(Fraction(unit[k])) for unit in units] for k in range(5))


counts = st.tuples(*[st.one_of(st.integers(0, 3), st.fractions(0, 3, max_denominator=10))] * 3)
episodes_st = st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["a", "b", 7, "c"])), counts), max_size=30)


@settings(max_examples=300, deadline=None)
@given(episodes_st)
def test_the_units_are_the_tasks_summed_and_the_other_episodes_alone(episodes: list[Episode]) -> None:
    assert _one_pass(episodes).bootstrap_units() == _expected(episodes)


@settings(max_examples=300, deadline=None)
@given(episodes_st, st.lists(st.integers(0, 30), max_size=4), st.randoms(use_true_random=False))
def test_chunks_merged_and_reordered_chunks_give_the_units_of_one_pass(episodes: list[Episode], cuts: list[int],
                                                                        rng: random.Random) -> None:
    """As ``--jobs`` runs: chunks of consecutive lines, each scored in any order (lines of one id together) and
    put back in line order, merged in line order."""
    bounds = sorted({0, len(episodes), *(min(c, len(episodes)) for c in cuts)})
    total = Summary()
    for start, end in zip(bounds, bounds[1:], strict=False):
        order = list(range(start, end))
        rng.shuffle(order)
        chunk = Summary()
        for k in order:
            _add(chunk, k + 1, episodes[k])
        chunk.restore_line_order(order, [episodes[k][0] for k in order])
        total.merge(chunk)
    one = _one_pass(episodes)
    assert total.bootstrap_units() == one.bootstrap_units() == _expected(episodes)
    assert total.tasks == one.tasks and total.tasked == one.tasked


def test_no_repeated_task_leaves_the_episodes_as_the_units() -> None:
    assert _one_pass([("a", (1, 0, 0)), ("b", (0, 1, 0)), (None, (1, 0, 1))]).bootstrap_units() is None
    assert _one_pass([(None, (1, 0, 0))] * 3).bootstrap_units() is None


def test_a_task_keeps_its_exact_sums_beside_its_samples_and_flags() -> None:
    summary = _one_pass([("t", (Fraction(1, 10), 0, 0)), ("t", (Fraction(2, 10), 0, Fraction(7, 10))),
                         (None, (1, 0, 0)), ("t", (Fraction(7, 10), 0, 0))])
    assert summary.tasks == {"t": [3, 0b101, 1, 0, Fraction(7, 10), None, 1]}  # no gold key given
    assert summary.task_counts() == {"t": (3, 2)} and summary.tasked.runs() == [(0, 2), (3, 4)]
    assert summary.bootstrap_units() == ([1.0, 1.0], [0.0, 0.0], [0.7, 0.0], [2.0, 1.0], [3.0, 1.0])


# --------------------------------------------------------------------------- samples of one task, other gold

Sample = tuple[Any, Any]  # (task or None, answer key or None: (grammar identity, gold key))


def _add_sample(summary: Summary, line: int, sample: Sample) -> None:
    task, gold = sample
    summary.add(line, None, Score(tp=1), None, task=task, gold=gold)


def _mixed_written_out(samples: list[Sample]) -> tuple[dict[Any, tuple[int, int]], dict[Any, tuple[Any, ...]]]:
    """Per task whose samples' known gold keys differ: the line of its first known answer key and the first line
    after it with another gold key (lines count from 1); and, found apart, per task whose samples' grammars differ:
    that first line, the first line after it with another grammar, and the two grammars."""
    first: dict[Any, tuple[Any, int]] = {}
    gold: dict[Any, tuple[int, int]] = {}
    grammar: dict[Any, tuple[Any, ...]] = {}
    for line, (task, key) in enumerate(samples, 1):
        if task is None or key is None:
            continue
        if task not in first:
            first[task] = (key, line)
            continue
        (first_grammar, first_gold), first_line = first[task]
        if key[1] != first_gold and task not in gold:
            gold[task] = (first_line, line)
        if key[0] != first_grammar and task not in grammar:
            grammar[task] = (first_line, line, first_grammar, key[0])
    return gold, grammar


samples_st = st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["a", "b", 7])),
                                st.one_of(st.none(), st.tuples(st.sampled_from(["g@1", "g@2"]),
                                                               st.sampled_from([11, 12, 13])))), max_size=30)


@settings(max_examples=400, deadline=None)
@given(samples_st, st.lists(st.integers(0, 30), max_size=4), st.randoms(use_true_random=False), st.booleans())
def test_a_task_of_other_gold_is_found_the_same_however_the_run_is_split(samples: list[Sample], cuts: list[int],
                                                                        rng: random.Random, blocks: bool) -> None:
    """As ``--jobs`` chunks (scored in any order, put back in line order, merged) and Ray blocks (numbered from 1,
    shifted to their place, merged) find them: the tasks with other gold, each with the line of its first sample
    and the first line of other gold, and apart from them the tasks scored with other grammars (the same lines,
    and the two grammars), are those of one pass, which are those written out."""
    bounds = sorted({0, len(samples), *(min(c, len(samples)) for c in cuts)})
    total = Summary()
    for start, end in zip(bounds, bounds[1:], strict=False):
        order = list(range(start, end))
        rng.shuffle(order)
        chunk = Summary()
        base = start if blocks else 0  # a block numbers its lines from 1
        for k in order:
            _add_sample(chunk, k + 1 - base, samples[k])
        chunk.restore_line_order(order, [samples[k][0] for k in order], [samples[k][1] for k in order])
        chunk.shift_lines(base)
        total.merge(chunk)
    one = Summary()
    for line, sample in enumerate(samples, 1):
        _add_sample(one, line, sample)
    gold, grammar = _mixed_written_out(samples)
    assert (one.mixed_gold, one.mixed_grammar) == (gold, grammar)
    assert (total.mixed_gold, total.mixed_grammar) == (gold, grammar) and total.tasks == one.tasks
    assert total.mixed_gold_tasks() == sorted(((t, a, b) for t, (a, b) in gold.items()), key=lambda m: m[2])
    assert total.mixed_grammar_tasks() == sorted(((t, *found) for t, found in grammar.items()), key=lambda m: m[2])


def test_a_task_keeps_one_gold_key_and_its_line_not_its_gold() -> None:
    summary = Summary()
    for line, sample in enumerate([("t", ("g", 5)), ("u", ("g", 9)), ("t", ("g", 5)), ("t", ("g", 6)),
                                   ("t", ("g", 7)), ("u", ("g", 9))], 1):
        _add_sample(summary, line, sample)
    assert summary.tasks["t"][5:] == [("g", 5), 1] and summary.tasks["u"][5:] == [("g", 9), 2]
    assert summary.mixed_gold == {"t": (1, 4)}  # the first other gold; a task is listed once
    assert summary.mixed_gold_tasks() == [("t", 1, 4)] and summary.mixed_grammar == {}


def test_a_task_scored_with_other_grammars_is_found_apart_from_other_gold() -> None:
    """`ek score` compared a task's gold only: samples of one task scored with travel@1 and travel@2 (or two
    schemas of one name and version), the same gold or not, were not noticed, while ek compare refuses them."""
    summary = Summary()
    for line, sample in enumerate([("t", ("travel@1", 5)), ("u", ("travel@1", 9)), ("t", ("travel@2", 5)),
                                   ("u", ("travel@1", 8)), ("t", ("travel@1", 6)), ("u", ("travel@2", 7))], 1):
        _add_sample(summary, line, sample)
    assert summary.mixed_grammar == {"t": (1, 3, "travel@1", "travel@2"), "u": (2, 6, "travel@1", "travel@2")}
    assert summary.mixed_gold == {"t": (1, 5), "u": (2, 4)}
    assert summary.mixed_grammar_tasks() == [("t", 1, 3, "travel@1", "travel@2"), ("u", 2, 6, "travel@1", "travel@2")]


def test_a_task_whose_samples_share_their_gold_is_not_mixed() -> None:
    summary = Summary()
    for line, sample in enumerate([("t", ("g", 5)), (None, ("h", 6)), ("t", ("g", 5)), ("t", None),
                                   ("u", ("h", 6))], 1):
        _add_sample(summary, line, sample)
    assert summary.mixed_gold == {} and summary.mixed_gold_tasks() == []
    assert summary.mixed_grammar == {} and summary.mixed_grammar_tasks() == []
