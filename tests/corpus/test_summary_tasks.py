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
    assert summary.tasks == {"t": [3, 0b101, 1, 0, Fraction(7, 10)]}
    assert summary.task_counts() == {"t": (3, 2)} and summary.tasked.runs() == [(0, 2), (3, 4)]
    assert summary.bootstrap_units() == ([1.0, 1.0], [0.0, 0.0], [0.7, 0.0], [2.0, 1.0], [3.0, 1.0])
