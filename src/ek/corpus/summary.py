"""What a corpus run keeps: exact totals, tallies, compact per-episode rows, the worst episodes, every error.

Memory stays flat as the corpus grows: per episode only three counts and one
exact flag (for the bootstrap), a byte each while they fit, and its line number
(as runs of consecutive numbers) are kept, plus a bounded heap of the worst
episodes. Tallies per turn index, per category and per task
grow with the number of turn indices, categories and tasks, not episodes: a
task keeps ``[n, bits, tp, fp, fn, gold, line]``, its sample count, its samples' exact flags
as the bits of one integer (so per-sample accuracy needs no per-episode list),
its samples' exact sums (the units of a bootstrap over tasks), and its first
sample's answer key (its grammar's identity and its gold's key) and line (so
samples scored against other gold, or with another grammar, are found without
keeping any gold: :attr:`Summary.mixed_gold`, :attr:`Summary.mixed_grammar`), and which
episodes name a task is kept as runs of positions, like line numbers.
Rows for ``--episodes-out`` are kept only until the runner writes them, one
chunk at a time. Summaries of consecutive chunks merge (:meth:`Summary.merge`)
into exactly what one pass would have produced, so ``--jobs N`` gives
identical reports.
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import attrs

from ek.bfcl.data import underscored_name
from ek.corpus.linenumbers import LineNumbers
from ek.corpus.reading import LineError
from ek.limits import ERROR_LINES_KEPT
from ek.scorer.accounting import FN, FP, TP, Exact, Score, TallyKey
from ek.scorer.turns import EpisodeScore, abstention, count_turn, is_exact


@attrs.frozen
class EpisodeDigest:
    """A scored episode as the worst-episodes list shows it; ``detail`` is its alignment when kept."""

    line: int
    id: str | int | None
    tp: float
    fp: float
    fn: float
    f1: float
    reasons: tuple[tuple[str, float], ...]
    parse_error: str | None = None
    detail: dict[str, Any] | None = None
    turns: int = 1
    first_failing_turn: int | None = None
    #: the line's category label (``category`` field or BFCL id), so reports can filter worst episodes by it
    category: str | None = None

    @property
    def lost(self) -> float:
        """Weighted FP + FN: what this episode cost the corpus."""
        return self.fp + self.fn

    @property
    def label(self) -> str:
        return f"line {self.line}" if self.id is None else str(self.id)

    def rank_key(self) -> tuple[float, float, int]:
        """Larger is worse: more lost weight, then lower F1, then earlier line."""
        return (self.lost, -self.f1, -self.line)


def _reasons(score: Score) -> tuple[tuple[str, float], ...]:
    return tuple((reason, weight) for reason, (weight, _n) in score.by_reason().items())


def _parse_error(episode: EpisodeScore) -> str | None:
    errors = [(i, e) for i, e in enumerate(episode.parse_errors) if e]
    if not errors:
        return None
    if len(episode.turns) == 1:
        return errors[0][1]
    return f"turn {errors[0][0]}: {errors[0][1]}" + (f" (and {len(errors) - 1} more turns)" if len(errors) > 1 else "")


def digest(line: int, episode_id: str | int | None, score: Score | EpisodeScore,
           detail: dict[str, Any] | None, category: str | None = None) -> EpisodeDigest:
    """The compact record of one scored episode (a :class:`Score` is a one-turn episode)."""
    if not isinstance(score, EpisodeScore):
        return _turn_digest(line, episode_id, score, detail, category, is_exact(score))
    episode = score
    total = episode.total
    return EpisodeDigest(line, episode_id, total.tp, total.fp, total.fn, total.f1, _reasons(total),
                         _parse_error(episode), detail, len(episode.turns), episode.first_failing_turn,
                         category or None)


def _turn_digest(line: int, episode_id: str | int | None, turn: Score, detail: dict[str, Any] | None,
                 category: str | None, exact: bool) -> EpisodeDigest:
    """:func:`digest` of a one-turn episode given as its :class:`Score` (``exact``: :func:`is_exact` of it).

    Fast path: the :class:`EpisodeScore` that :func:`digest` would wrap the turn in (as costly as the rest of
    the digest) is not built. Safe because the wrapper of one turn gives nothing the turn does not: its total
    is the turn, its parse error the turn's (when there is one), its first failing turn 0 unless it is exact.
    """
    explanation = turn.explanation
    parse_error = (explanation.parse_error or None) if explanation is not None else None
    return EpisodeDigest(line, episode_id, turn.tp, turn.fp, turn.fn, turn.f1, _reasons(turn), parse_error, detail,
                         1, None if exact else 0, category or None)


class _Candidate:
    """A one-turn episode kept among the worst, whose :class:`EpisodeDigest` is made only when read
    (:func:`_digested`): what a heap entry holds until then.

    Fast path: most candidates leave the heap, pushed out by worse episodes, before anything reads them (a run
    of 20k BFCL lines offers ~900 and keeps 200), and a digest costs about as much as counting 20 lines. Safe
    because the digest is a function of the score (immutable) and the line, id and category kept here; pickled
    (a worker's chunk, a Ray block), a candidate is sent as its digest, so no score crosses processes.
    """

    __slots__ = ("line", "_id", "_score", "_category")

    def __init__(self, line: int, episode_id: str | int | None, score: Score, category: str | None) -> None:
        self.line = line
        self._id = episode_id
        self._score = score
        self._category = category

    def digest(self) -> EpisodeDigest:
        """The digest :meth:`Summary.add` offered the episode for (it offers only episodes that are not exact)."""
        return _turn_digest(self.line, self._id, self._score, None, self._category, False)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_as_is, (self.digest(),))


def _as_is(value: Any) -> Any:
    return value


def _digested(entry: EpisodeDigest | _Candidate) -> EpisodeDigest:
    """A heap entry's digest (a :class:`_Candidate`'s made now)."""
    return entry.digest() if type(entry) is _Candidate else entry  # type: ignore[return-value]


def _explained(episode: EpisodeScore) -> Any:
    """The explanation an episode's alignment shows: its first failing turn's (its only turn's when single)."""
    turn = episode.first_failing_turn
    return episode.turns[turn if turn is not None else 0].explanation


def export_row(line: int, episode_id: Any, episode: EpisodeScore, task: Any, category: Any) -> dict[str, Any]:
    """One ``--episodes-out`` row: who the episode is, its weighted and unit counts, F1, exact, and why it lost."""
    total = episode.total
    tp, fp, fn = total.exact_counts
    units = total.unit_counts()
    return {"id": episode_id, "line": line, "category": category, "task": task,
            "tp": float(tp), "fp": float(fp), "fn": float(fn),
            "units_tp": units[TP], "units_fp": units[FP], "units_fn": units[FN],
            "f1": total.f1, "exact": episode.exact, "turns": len(episode.turns),
            "first_failing_turn": episode.first_failing_turn,
            "reasons": [reason for reason, _w in _reasons(total)],
            "parse_error": _parse_error(episode)}


def _add_tally(into: dict[TallyKey, list[Any]], items: Any) -> None:
    """Add ``(key, (weight, count))`` items into a mutable tally (once per line, and per key when merging
    chunks: :func:`ek.scorer.accounting.tally_add` inlined, without a call per key)."""
    for key, (w, n) in items:
        slot = into.get(key)
        if slot is None:
            into[key] = [w, n]
        else:
            slot[0] += w
            slot[1] += n


#: Typecodes of the compact per-episode count arrays, narrowest first: a column starts as unsigned bytes (1 byte,
#: not a double's 8) while every count is a whole number below 256, is widened to unsigned 16-bit integers below
#: 65,536, and to doubles the first time a count is anything else.
_COUNT_TYPES = ("B", "H", "d")
_SMALL_COUNTS = _COUNT_TYPES[0]
#: The largest whole count each compact typecode holds.
_COUNT_LIMITS = {"B": 0xFF, "H": 0xFFFF}


def _push_count(column: array[Any], value: float) -> array[Any]:
    """Append one episode's count; the column, widened (same values) the first time one does not fit: to the
    narrowest compact type that holds it, else to doubles.

    Fast path for memory: a compact column holds the same numbers as a double one (a whole number below
    65,536 is exact in each), and its readers (``math.fsum``, the bootstrap's ``float()``) read them the same.
    """
    limit = _COUNT_LIMITS.get(column.typecode)
    if limit is None:
        column.append(value)
        return column
    if value.is_integer() and 0 <= value <= limit:
        column.append(int(value))
        return column
    wider = next((t for t in _COUNT_TYPES[1:-1] if value.is_integer() and 0 <= value <= _COUNT_LIMITS[t]), "d")
    column = array(wider, column)
    column.append(int(value) if wider != "d" else value)
    return column


def _joined(mine: array[Any], later: array[Any]) -> array[Any]:
    """``mine`` extended by ``later`` (a chunk's count column), both widened to the wider type of the two when
    their types differ."""
    if mine.typecode != later.typecode:
        wide = max(mine.typecode, later.typecode, key=_COUNT_TYPES.index)
        mine = mine if mine.typecode == wide else array(wide, mine)
        later = later if later.typecode == wide else array(wide, later)
    mine.extend(later)
    return mine


@attrs.define
class Summary:
    """Mutable accumulator of a run (mutable on purpose: it is filled episode by episode while streaming)."""

    keep_worst: int = 10
    keep_details: int = 0
    keep_ids: bool = False
    #: exact sums: ints while every weight is integral (int addition is the fast path), a Fraction once one
    #: is not; the same values either way
    tp: Exact = 0
    fp: Exact = 0
    fn: Exact = 0
    #: per episode its TP, FP, FN (the bootstrap's rows), compact arrays while the values fit (see _push_count),
    #: and its line, as runs of consecutive numbers (LineNumbers): a long run's memory stays near flat
    rows_tp: array[float] = attrs.Factory(lambda: array(_SMALL_COUNTS))
    rows_fp: array[float] = attrs.Factory(lambda: array(_SMALL_COUNTS))
    rows_fn: array[float] = attrs.Factory(lambda: array(_SMALL_COUNTS))
    lines: LineNumbers = attrs.Factory(LineNumbers)
    ids: list[Any] = attrs.Factory(list)
    #: with ``keep_ids``: per episode, what it was scored against, ``(grammar identity, gold digest)``, so two
    #: runs can be checked to compare like with like (``ek compare``)
    sources: list[tuple[str, str]] = attrs.Factory(list)
    #: the first ``keep_errors`` error lines, in line order (all of them are counted in ``error_count``)
    errors: list[LineError] = attrs.Factory(list)
    error_count: int = 0
    keep_errors: int = ERROR_LINES_KEPT
    #: scored lines whose gold the grammar rejects (``--invalid-gold warn``): the first ``keep_errors``, and all counted
    gold_warnings: list[LineError] = attrs.Factory(list)
    gold_warning_count: int = 0
    parse_failures: int = 0
    #: grammar label ("" for none) -> how many episodes were scored with it
    grammars: dict[str, int] = attrs.Factory(dict)
    #: (tool, argument, status) -> how often that argument failed inside a matched call
    arg_failures: Counter[tuple[str, str, str]] = attrs.Factory(Counter)
    #: rank key an episode must beat to be kept as one of the worst (from the run so far); None: no bar yet
    floor: tuple[float, float, int] | None = None
    #: episodes with no FP and no FN (every turn exact), and that flag per episode (for the bootstrap)
    exact_count: int = 0
    exact_rows: array[int] = attrs.Factory(lambda: array("b"))
    #: of the episodes given as an EpisodeScore: turn index -> [tp, fp, fn, exact turns, episodes with that
    #: turn], and [tp, fp, fn, exact episodes, episodes] (exact sums); a one-turn episode given as its Score is
    #: counted in neither: its turn is the rest of the run (see the per_turn property)
    turns_given: dict[int, list[Any]] = attrs.Factory(dict)
    episodes_given: list[Any] = attrs.Factory(lambda: [0, 0, 0, 0, 0])
    #: turn index -> how many episodes first fail there
    first_failing: Counter[int] = attrs.Factory(Counter)
    #: category ("" for none) -> [tally, episodes, exact episodes]
    categories: dict[str, list[Any]] = attrs.Factory(dict)
    #: abstention outcome of each turn (ek.scorer.turns.abstention) -> how many turns had it
    abstention: Counter[str] = attrs.Factory(Counter)
    #: task -> [samples n, exact flags as bits in line order, tp, fp, fn (exact sums over its samples), answer
    #: key and line of its first sample whose answer key is known (None, and its first line, while none is)]
    #: (lines without a task are not counted). An answer key is ``(grammar identity, gold key)``: the
    #: grammar's ``NAME@VERSION (sha256 ...)`` (ek.corpus.grammars.MetricCache.grammar_identity, one string
    #: shared by its lines) and a 60-bit int (ek.corpus.runner.gold_key): the task keeps no gold.
    tasks: dict[Any, list[Any]] = attrs.Factory(dict)
    #: task -> (line of its first sample, first line after it scored against other gold) for the tasks whose
    #: samples do not all share one gold (pass@k and a bootstrap over tasks then mix questions): empty unless
    #: the data is wrong
    mixed_gold: dict[Any, tuple[int, int]] = attrs.Factory(dict)
    #: task -> (line of its first sample, first line after it scored with another grammar, the first sample's
    #: grammar, that line's) for the tasks whose samples are not all scored with one grammar (the same question
    #: held to different schemas, or versions of one): found apart from other gold, which may come with it or not
    mixed_grammar: dict[Any, tuple[int, int, str, str]] = attrs.Factory(dict)
    #: the positions (0 for the first episode) of the episodes that name a task, as runs of consecutive numbers:
    #: the others are units of their own in a bootstrap over tasks (:meth:`bootstrap_units`)
    tasked: LineNumbers = attrs.Factory(LineNumbers)
    #: per episode its task (with ``keep_ids``: ``ek compare`` pairs by task when tasks repeat)
    task_ids: list[Any] = attrs.Factory(list)
    #: ``--episodes-out`` rows not yet written (the runner writes and clears them after each chunk); None: off
    export: list[dict[str, Any]] | None = None
    #: the worst episodes so far, least bad first: (rank key, digest or _Candidate)
    _heap: list[tuple[tuple[float, float, int], EpisodeDigest | _Candidate]] = attrs.Factory(list)
    _pending: dict[int, Any] = attrs.Factory(dict)

    @property
    def episodes(self) -> int:
        return len(self.lines)

    @property
    def heap_size(self) -> int:
        return max(self.keep_worst, self.keep_details)

    def worst_floor(self) -> tuple[float, float, int] | None:
        """The rank key of the least bad episode kept once the heap is full (later chunks must beat it)."""
        return self._heap[0][0] if self.heap_size and len(self._heap) >= self.heap_size else None

    def add(self, line: int, episode_id: Any, score: Score | EpisodeScore, grammar: str | None,
            source: tuple[str, str] | None = None, *, task: Any = None, category: str | None = None,
            gold: int | None = None) -> None:
        """Count one scored episode (its explanation is kept only while it ranks among the worst);
        ``source``: what it was scored against, kept with its id (see :attr:`sources`); ``score``: an
        :class:`EpisodeScore` (its turns), or a :class:`Score` for a one-turn episode; ``gold``: with a
        ``task``, its answer key, ``(grammar identity, gold key)`` (:attr:`tasks`; None: not known, never
        compared).

        Called once per line, so it is written flat: each column is read once into a local, and nothing is
        called that is not needed (one call is worth several additions here).

        Fast path for a one-turn episode given as its :class:`Score` (what ``ek score`` hands over): its
        turn is counted here, inline, and its :class:`EpisodeScore` is built only where one is read (an
        ``--episodes-out`` row, a candidate for the worst episodes), not for every line. Safe because that
        wrapper of one turn holds nothing the turn does not: its total *is* the turn, and its exact flag is
        :func:`is_exact` of it, computed here. An :class:`EpisodeScore` takes :meth:`_count_turns`.
        """
        # the run's tally is not kept: it is the sum of the categories' (see the tally property)
        cat = self.categories.get(category or "")
        if cat is None:
            cat = self.categories[category or ""] = [{}, 0, 0]
        if type(score) is EpisodeScore:
            episode: EpisodeScore | None = score
            total = score.total
            tp, fp, fn = total.exact_counts
            _add_tally(cat[0], total.tally.items())
            exact, parse_error = self._count_turns(score)
            given = self.episodes_given
            given[0] += tp
            given[1] += fp
            given[2] += fn
            given[3] += exact
            given[4] += 1
        else:
            episode = None
            total = score
            tp, fp, fn, exact = count_turn(score, cat[0])
            explanation = score.explanation
            parse_error = False
            if explanation is not None:
                failed = explanation.failed_checks()
                if failed:
                    self.arg_failures.update(failed)
                parse_error = bool(explanation.parse_error)
            # its turn 0 is not added to a per-turn table: it is derived (see the per_turn property)
            outcome = abstention(score)
            if outcome is not None:
                self.abstention[outcome] += 1
            if not exact:
                self.first_failing[0] += 1
        self.tp += tp
        self.fp += fp
        self.fn += fn
        # fast path of _push_rows: whole counts that fit the narrowest column go straight into the columns,
        # whatever their type (a compact column takes them as they are; a widened one of doubles stores
        # float(count), what _push_count would append). For ints, 0 <= a | b | c <= 0xFF is 0 <= each <= 0xFF:
        # a negative one makes the "or" negative, and 0xFF is eight one bits, which the "or" stays within
        # exactly when each does.
        if type(tp) is int and type(fp) is int and type(fn) is int and 0 <= (tp | fp | fn) <= 0xFF:
            self.rows_tp.append(tp)
            self.rows_fp.append(fp)
            self.rows_fn.append(fn)
        else:
            self._push_rows(tp, fp, fn)
        # fast path of LineNumbers.append: the line after the last one extends the open run (most lines)
        lines = self.lines
        if line == lines.next:
            lines.next = line + 1
        else:
            lines.append(line)
        self.exact_rows.append(exact)
        self.exact_count += exact
        cat[1] += 1
        cat[2] += exact
        if task is not None:
            self._count_sample(task, exact, tp, fp, fn, line, gold)
            # fast path of LineNumbers.append, as for the line above: this episode's position
            position = len(self.exact_rows) - 1
            tasked = self.tasked
            if position == tasked.next:
                tasked.next = position + 1
            else:
                tasked.append(position)
        if self.keep_ids:
            self.ids.append(episode_id)
            self.task_ids.append(task)
            if source is not None:
                self.sources.append(source)
        if parse_error:
            self.parse_failures += 1
        grammars = self.grammars
        label = grammar or ""
        try:  # a plain dict: a Counter's subscript costs twice a dict's, and this runs once per line
            grammars[label] += 1
        except KeyError:
            grammars[label] = 1
        if self.export is not None:
            self.export.append(export_row(line, episode_id, episode or EpisodeScore((score,)), task, category))
        if not exact:
            lost = float(fp + fn)
            floor = self.floor
            # _offer's first test, made before calling it: an episode that lost less than the bar the run set
            # is out (most are)
            if floor is None or lost >= floor[0]:
                self._offer(line, episode_id, episode or score, category, total, lost)

    def _count_sample(self, task: Any, exact: bool, tp: Exact, fp: Exact, fn: Exact, line: int,
                      gold: tuple[str, int] | None) -> None:
        """Count one more sample of ``task`` (its exact flag the next bit, in the order samples are counted; its
        counts added to the task's exact sums; its answer key compared with the task's)."""
        entry = self.tasks.get(task)
        if entry is None:
            entry = self.tasks[task] = [0, 0, 0, 0, 0, gold, line]
        elif gold != entry[5] and gold is not None:
            self._other_gold(task, entry, gold, line)
        entry[1] |= int(exact) << entry[0]
        entry[0] += 1
        entry[2] += tp
        entry[3] += fp
        entry[4] += fn

    def _other_gold(self, task: Any, entry: list[Any], gold: tuple[str, int], line: int) -> None:
        """A sample of ``task`` at ``line`` whose answer key ``gold`` is not the one its ``entry`` holds: the first
        known key of the task (with its line), or the first line of other gold (:attr:`mixed_gold`) or of another
        grammar (:attr:`mixed_grammar`), each found on its own."""
        first = entry[5]
        if first is None:
            entry[5], entry[6] = gold, line
            return
        if first[0] != gold[0] and task not in self.mixed_grammar:
            self.mixed_grammar[task] = (entry[6], line, first[0], gold[0])
        if first[1] != gold[1] and task not in self.mixed_gold:
            self.mixed_gold[task] = (entry[6], line)

    def _merged_gold(self, task: Any, mine: list[Any], gold: tuple[str, int] | None, line: int,
                     later: Summary) -> None:
        """Merge what a ``later`` summary knows of ``task``'s answer keys (its first known key ``gold`` and that
        sample's ``line``; its :attr:`mixed_gold` and :attr:`mixed_grammar` entries) into ``mine``, the task's
        entry here: what counting the later samples here one by one would have found."""
        if gold is None:  # nothing known there
            return
        first = mine[5]
        if first is None:  # the later summary's first known key is the task's: its findings stand
            mine[5], mine[6] = gold, line
            self._take_findings(task, later)
            return
        if task not in self.mixed_grammar:
            if gold[0] != first[0]:
                self.mixed_grammar[task] = (mine[6], line, first[0], gold[0])
            elif task in later.mixed_grammar:  # the same first grammar: the later one's other grammar is other here
                _first, other, _grammar, grammar = later.mixed_grammar[task]
                self.mixed_grammar[task] = (mine[6], other, first[0], grammar)
        if task not in self.mixed_gold:
            if gold[1] != first[1]:
                self.mixed_gold[task] = (mine[6], line)
            elif task in later.mixed_gold:  # the same first gold: the later summary's other gold is other here too
                self.mixed_gold[task] = (mine[6], later.mixed_gold[task][1])

    def _take_findings(self, task: Any, later: Summary) -> None:
        """``later``'s :attr:`mixed_gold` and :attr:`mixed_grammar` entries of ``task`` taken as they are: for a
        task whose first known answer key is the later summary's (none was known here)."""
        if task in later.mixed_gold:
            self.mixed_gold[task] = later.mixed_gold[task]
        if task in later.mixed_grammar:
            self.mixed_grammar[task] = later.mixed_grammar[task]

    def mixed_gold_tasks(self) -> list[tuple[Any, int, int]]:
        """The tasks whose samples are scored against different gold, each ``(task, line of its first sample, first
        line of other gold)``, in the order of that other line: the same whatever the split of the run."""
        return sorted(((task, first, other) for task, (first, other) in self.mixed_gold.items()),
                      key=itemgetter(2))

    def mixed_grammar_tasks(self) -> list[tuple[Any, int, int, str, str]]:
        """The tasks whose samples are scored with different grammars, each ``(task, line of its first sample, first
        line of another grammar, the first sample's grammar, that line's)``, in the order of that other line: the
        same whatever the split of the run."""
        return sorted(((task, *found) for task, found in self.mixed_grammar.items()), key=itemgetter(2))

    def restore_line_order(self, positions: Sequence[int], tasks: Sequence[Any],
                           golds: Sequence[tuple[str, int] | None] | None = None) -> None:
        """Put the episodes of this summary, added in another order, back in line order: the ``i``-th episode
        added has position ``positions[i]`` in line order (any increasing numbering: a chunk's positions), task
        ``tasks[i]`` and answer key ``golds[i]`` (None: not known; default: none known). After it the summary is what
        adding them in line order would have made.

        For a summary that holds those episodes only (a chunk's, fresh from ``RunOptions.new_summary``), with
        its error lines and gold warnings still to be added, in line order. Only the per-episode columns
        depend on the order (rows, lines, exact flags, ids, tasks, sources, export rows), the tasks' sample bits
        and which of a task's samples is its first and which has other gold: the columns are permuted, the bits
        and the gold counted again in line order. Everything else is a sum, a count, a
        ranking keyed by line number (the worst episodes) or a mapping the reports read sorted: the same
        whatever the order.
        """
        n = len(positions)
        by_line = sorted(range(n), key=positions.__getitem__)
        if by_line == list(range(n)):
            return  # added in line order already (or fewer than two episodes)
        pick = itemgetter(*by_line)  # the items of a column in line order, as a tuple (n >= 2 here)
        self.rows_tp = array(self.rows_tp.typecode, pick(self.rows_tp))
        self.rows_fp = array(self.rows_fp.typecode, pick(self.rows_fp))
        self.rows_fn = array(self.rows_fn.typecode, pick(self.rows_fn))
        self.lines = self.lines.picked(pick)
        self.exact_rows = array(self.exact_rows.typecode, pick(self.exact_rows))
        for name in ("ids", "task_ids", "sources", "export"):  # kept per episode, or not at all
            column = getattr(self, name)
            if column:
                if len(column) != n:
                    raise ValueError(f"restore_line_order: {name} holds {len(column)} entries for {n} episodes")
                setattr(self, name, list(pick(column)))
        if self.tasks:
            # a task's sums are the same in any order; its bits, its first sample, the tasks' order and the
            # positions are not
            counted, self.tasks, self.tasked = self.tasks, {}, LineNumbers()
            self.mixed_gold, self.mixed_grammar = {}, {}
            keys = pick(golds) if golds is not None else (None,) * n
            for position, (task, exact, gold, line) in enumerate(zip(pick(tasks), self.exact_rows, keys, self.lines,
                                                                     strict=True)):
                if task is not None:
                    if task not in self.tasks:  # its sums as they were: its samples are counted again, adding 0
                        self.tasks[task] = [0, 0, *counted[task][2:5], gold, line]
                    self._count_sample(task, exact, 0, 0, 0, line, gold)
                    self.tasked.append(position)

    def _count_turn(self, index: int, turn: Score, tp: Exact, fp: Exact, fn: Exact, exact: bool) -> None:
        """Add one turn's counts to the per-turn table (at its position) and its abstention outcome."""
        slot = self.turns_given.get(index)
        if slot is None:
            slot = self.turns_given[index] = [0, 0, 0, 0, 0]
        slot[0] += tp
        slot[1] += fp
        slot[2] += fn
        slot[3] += exact
        slot[4] += 1
        outcome = abstention(turn)
        if outcome is not None:
            self.abstention[outcome] += 1

    def _count_turns(self, episode: EpisodeScore) -> tuple[bool, bool]:
        """The per-turn counts of an episode given as its turns: (exact, some turn's output unparsable)."""
        for turn in episode.turns:
            if turn.explanation is not None:
                failed = turn.explanation.failed_checks()
                if failed:
                    self.arg_failures.update(failed)
        for index, (turn, ok) in enumerate(zip(episode.turns, episode.turn_exact, strict=True)):
            self._count_turn(index, turn, *turn.exact_counts, ok)
        if episode.first_failing_turn is not None:
            self.first_failing[episode.first_failing_turn] += 1
        return episode.exact, any(episode.parse_errors)

    def _push_rows(self, tp: Exact, fp: Exact, fn: Exact) -> None:
        """Append an episode's bootstrap row where a count is not a whole number that fits a compact column."""
        self.rows_tp = _push_count(self.rows_tp, float(tp))
        self.rows_fp = _push_count(self.rows_fp, float(fp))
        self.rows_fn = _push_count(self.rows_fn, float(fn))

    def _offer(self, line: int, episode_id: Any, episode: EpisodeScore | Score, category: str | None,
               total: Score, lost: float) -> None:
        """Keep the episode among the worst if it ranks (``episode``: a one-turn episode may come as its
        :class:`Score`, never wrapped; ``total``: its total score, ``lost``: its weighted FP + FN as a float,
        both as :meth:`add` has them). Only episodes that are not exact are offered."""
        size = self.heap_size
        if size <= 0:
            return
        # fast path: an episode that lost less than the bar is out whatever its F1 (keys compare lost first),
        # so the F1 (an exact fraction) is computed only for those that may rank
        floor = self.floor
        full = len(self._heap) >= size
        if (floor is not None and lost < floor[0]) or (full and lost < self._heap[0][0][0]):
            return
        key = (lost, -total.f1, -line)
        if (floor is not None and key <= floor) or (full and key <= self._heap[0][0]):
            return
        if type(episode) is EpisodeScore:
            entry = (key, digest(line, episode_id, episode, None, category))
            explanation = _explained(episode)
        else:  # a one-turn episode as its Score, not exact (add offers no other): digested when read
            entry = (key, _Candidate(line, episode_id, episode, category))
            explanation = episode.explanation
        if len(self._heap) < size:
            heapq.heappush(self._heap, entry)
        else:
            dropped = heapq.heapreplace(self._heap, entry)
            self._pending.pop(dropped[1].line, None)
        if self.keep_details and explanation is not None:
            self._pending[line] = explanation

    def _digest_all(self) -> None:
        """Digest the candidates still kept, in place, once (the keys are unchanged: still a heap)."""
        self._heap = [(key, _digested(d)) for key, d in self._heap]

    def attach_details(self, detail_of: Any) -> None:
        """Turn the explanations of the episodes still kept into alignment dicts (``detail_of(explanation)``).

        Alignments are built only for episodes that made the cut: ``ek score`` attaches once, at the end,
        for the run's worst (explanations not yet attached follow their episodes through :meth:`merge`, and
        leave with them: at most the heap's size are held). ``--jobs`` workers and Ray blocks send none
        (:meth:`drop_explanations`): the merging process explains the run's worst itself first.
        """
        if not self._pending:
            return
        ranked = sorted(self._heap, key=lambda e: e[0], reverse=True)
        keep = {d.line for _key, d in ranked[: self.keep_details]}
        self._digest_all()
        self._heap = [(key, attrs.evolve(d, detail=detail_of(self._pending[d.line]))
                       if d.line in keep and d.line in self._pending and d.detail is None else d)
                      for key, d in self._heap]
        heapq.heapify(self._heap)
        self._pending.clear()

    def drop_explanations(self) -> None:
        """Let go of the explanations held for the worst episodes' details, keeping the episodes ranked.

        A ``--jobs`` worker does this to its chunk's summary before sending it, and a Ray task to its block's:
        pickling an explanation builds it (its pairs and units), and a part holds one for each of its own worst
        (up to ``keep_details``), most of which the run's worst leave out. The process that merges the parts
        explains only the run's worst, by scoring their lines again (:meth:`lines_to_explain`,
        :meth:`explain`)."""
        self._pending.clear()

    def kept_lines(self) -> set[int]:
        """The lines of the episodes kept among the worst."""
        return {entry[1].line for entry in self._heap}

    def lines_to_explain(self) -> list[int]:
        """The lines whose episodes :meth:`attach_details` gives a detail (the worst ``keep_details``) that have
        none yet and whose explanation is not held (:meth:`drop_explanations`), worst first."""
        ranked = sorted(self._heap, key=lambda e: e[0], reverse=True)[: self.keep_details]
        return [d.line for _key, d in ranked
                if d.line not in self._pending and (type(d) is _Candidate or d.detail is None)]

    def explain(self, line: int, score: Score | EpisodeScore) -> None:
        """Hold the explanation of the kept episode at ``line`` from ``score``, the same line scored again (the
        same score, being a function of the line), as :meth:`add` would have held it."""
        self._pending[line] = _explained(score) if type(score) is EpisodeScore else score.explanation

    def add_error(self, error: LineError) -> None:
        """Count an error line; keep it while fewer than ``keep_errors`` are kept (a wrong file stays cheap)."""
        self.error_count += 1
        if len(self.errors) < self.keep_errors:
            self.errors.append(error)

    def add_gold_warning(self, warning: LineError) -> None:
        """Count a scored line whose gold does not fit its grammar; keep it as :meth:`add_error` keeps errors."""
        self.gold_warning_count += 1
        if len(self.gold_warnings) < self.keep_errors:
            self.gold_warnings.append(warning)

    def merge(self, later: Summary) -> None:
        """Append the summary of the lines that come *after* this one's (order keeps rows aligned)."""
        before = len(self.exact_rows)  # episodes of ours: later's positions come after them
        self.tp += later.tp
        self.fp += later.fp
        self.fn += later.fn
        self.arg_failures.update(later.arg_failures)
        self.rows_tp = _joined(self.rows_tp, later.rows_tp)
        self.rows_fp = _joined(self.rows_fp, later.rows_fp)
        self.rows_fn = _joined(self.rows_fn, later.rows_fn)
        self.lines.extend(later.lines)
        self.ids.extend(later.ids)
        self.sources.extend(later.sources)
        self.error_count += later.error_count
        self.errors.extend(later.errors[: max(0, self.keep_errors - len(self.errors))])
        self.gold_warning_count += later.gold_warning_count
        self.gold_warnings.extend(later.gold_warnings[: max(0, self.keep_errors - len(self.gold_warnings))])
        self.parse_failures += later.parse_failures
        for label, n in later.grammars.items():  # what Counter.update does, in the same order
            self.grammars[label] = self.grammars.get(label, 0) + n
        self.abstention.update(later.abstention)
        self.exact_rows.extend(later.exact_rows)
        self.exact_count += later.exact_count
        for index, theirs in later.turns_given.items():
            mine = self.turns_given.setdefault(index, [0, 0, 0, 0, 0])
            for k, value in enumerate(theirs):
                mine[k] += value
        for k, value in enumerate(later.episodes_given):
            self.episodes_given[k] += value
        self.first_failing.update(later.first_failing)
        for category, (tally, episodes, exact) in later.categories.items():
            mine = self.categories.setdefault(category, [{}, 0, 0])
            _add_tally(mine[0], tally.items())
            mine[1] += episodes
            mine[2] += exact
        for task, (n, bits, tp, fp, fn, gold, line) in later.tasks.items():  # later samples come after ours: their
            mine = self.tasks.get(task)                                       # bits shift past ours
            if mine is None:
                mine = self.tasks[task] = [0, 0, 0, 0, 0, gold, line]
                self._take_findings(task, later)
            elif gold is not None and (gold != mine[5] or task in later.mixed_gold or task in later.mixed_grammar):
                self._merged_gold(task, mine, gold, line, later)
            mine[1] |= bits << mine[0]
            mine[0] += n
            mine[2] += tp
            mine[3] += fp
            mine[4] += fn
        self.tasked.extend(later.tasked.shifted(before))
        self.task_ids.extend(later.task_ids)
        if self.export is not None and later.export is not None:
            self.export.extend(later.export)
        for entry in later._heap:
            if len(self._heap) < self.heap_size:
                heapq.heappush(self._heap, entry)
            elif entry[0] > self._heap[0][0]:
                dropped = heapq.heapreplace(self._heap, entry)
                self._pending.pop(dropped[1].line, None)
            else:
                continue
            # an explanation not yet turned into a detail (see attach_details) follows its kept episode
            pending = later._pending.get(entry[1].line)
            if pending is not None:
                self._pending[entry[1].line] = pending

    def shift_lines(self, offset: int) -> None:
        """Add ``offset`` to every line number held (rows, errors, warnings, worst episodes, tasks' first samples,
        export rows).

        A block scored where its place in the run is not known yet (a Ray task numbers its lines from 1)
        is shifted once its place is known, then merged: the result is what one pass would have built.
        """
        if not offset:
            return
        self.lines = self.lines.shifted(offset)
        self.errors = [attrs.evolve(e, line=e.line + offset) for e in self.errors]
        self.gold_warnings = [attrs.evolve(w, line=w.line + offset) for w in self.gold_warnings]
        self._heap = [((lost, f1, rank - offset), attrs.evolve(_digested(d), line=d.line + offset))
                      for (lost, f1, rank), d in self._heap]  # rank is -line: order within the block is kept
        heapq.heapify(self._heap)
        self._pending = {line + offset: detail for line, detail in self._pending.items()}
        for entry in self.tasks.values():
            entry[6] += offset
        self.mixed_gold = {task: (first + offset, other + offset) for task, (first, other) in self.mixed_gold.items()}
        self.mixed_grammar = {task: (first + offset, other + offset, a, b)
                              for task, (first, other, a, b) in self.mixed_grammar.items()}
        for row in self.export or ():
            row["line"] += offset

    @property
    def per_turn(self) -> dict[int, list[Any]]:
        """Turn index -> [tp, fp, fn, exact turns, episodes with that turn] (exact sums), in turn order.

        Derived, not kept per line: a one-turn episode given as its :class:`Score` (most lines) adds nothing
        to a per-turn table, since its turn 0 is the episode. Turn 0 is the run's totals less those of the
        episodes given as an :class:`EpisodeScore`, plus their turn 0: exact subtraction, the same values a
        table counted line by line holds (the report reads them through ``Score``, which normalises them).
        """
        table = {index: list(row) for index, row in sorted(self.turns_given.items())}
        given = self.episodes_given
        alone = [self.tp - given[0], self.fp - given[1], self.fn - given[2], self.exact_count - given[3],
                 self.episodes - given[4]]
        if alone[4]:
            row = table.get(0)
            if row is None:
                table = {0: alone, **table}
            else:
                for k, value in enumerate(alone):
                    row[k] += value
        return table

    @property
    def tally(self) -> dict[TallyKey, list[Any]]:
        """The run's tally: ``[exact weight, count]`` per key, summed over the categories' tallies.

        Derived, not kept: each line adds its tally to its category's only, one pass instead of two. The sums
        are those a run tally counted line by line would hold: exact (ints and Fractions) addition gives the
        same value in any grouping, and a Fraction sum whenever one term is a Fraction, in any grouping too
        (so even the types agree; :meth:`total` normalises them anyway).
        """
        tally: dict[TallyKey, list[Any]] = {}
        for category_tally, _episodes, _exact in self.categories.values():
            _add_tally(tally, category_tally.items())
        return tally

    def total(self) -> Score:
        """All episodes as one exact :class:`Score` (tallies included)."""
        tally = self.tally
        # fast path (Score.from_summed_tally): the run's sums are its tally's sums whenever every score counted
        # came with its units (a metric's always do); a score given as bare sums (``Score(tp=2)``, no tally)
        # makes them differ, and a key of no unit kind (which the constructor lets by) fails the sums: the
        # general path then keeps the run's own sums, as before
        try:
            score = Score.from_summed_tally(tally, self.episodes)
        except KeyError:
            score = None
        if score is not None and score.exact_counts == (self.tp, self.fp, self.fn):
            return score
        return Score(tp=self.tp, fp=self.fp, fn=self.fn, tally={key: (w, n) for key, (w, n) in tally.items()},
                     episodes=self.episodes)

    def worst(self, limit: int | None = None) -> list[EpisodeDigest]:
        """The worst episodes kept, worst first."""
        self._digest_all()
        ranked = [d for _key, d in sorted(self._heap, key=lambda e: e[0], reverse=True)]
        # only the top keep_details carry alignments, however the run was split into chunks
        ranked = [d if rank < self.keep_details or d.detail is None else attrs.evolve(d, detail=None)
                  for rank, d in enumerate(ranked)]
        return ranked if limit is None else ranked[:limit]

    def rows(self) -> tuple[array[float], array[float], array[float]]:
        return self.rows_tp, self.rows_fp, self.rows_fn

    def tasks_repeat(self) -> bool:
        """Some task has two samples or more in this run (its samples are then its unit: ``ek compare`` pairs
        tasks, and a bootstrap draws them whole)."""
        return any(entry[0] > 1 for entry in self.tasks.values())

    def bootstrap_units(self) -> tuple[list[float], ...] | None:
        """The units a bootstrap resamples when some task has two samples or more: each task with its samples
        summed, and each episode that names no task on its own; as five columns, TP, FP, FN, exact episodes and
        episodes (the tasks in order of first appearance, then the other episodes in line order). None when no
        task repeats: the episodes are the units (:meth:`rows`, :attr:`exact_rows`).

        Samples of one task are not independent draws (a model that fails a task tends to fail each sample of
        it), so resampling them one by one understates the spread. Resampling whole tasks is the cluster
        bootstrap, the unit ``ek compare`` pairs by when tasks repeat. The sums are exact, so the units are the
        same however the run was split into chunks.
        """
        if not self.tasks_repeat():
            return None
        tp: list[float] = []
        fp: list[float] = []
        fn: list[float] = []
        exact: list[float] = []
        episodes: list[float] = []
        for samples, bits, task_tp, task_fp, task_fn, _gold, _line in self.tasks.values():
            tp.append(float(task_tp))
            fp.append(float(task_fp))
            fn.append(float(task_fn))
            exact.append(float(bits.bit_count()))
            episodes.append(float(samples))
        alone_from = 0
        end_of_run = len(self.exact_rows)
        for tasked_from, tasked_to in [*self.tasked.runs(), (end_of_run, end_of_run)]:
            for position in range(alone_from, tasked_from):  # the episodes between two runs of tasked ones
                tp.append(float(self.rows_tp[position]))
                fp.append(float(self.rows_fp[position]))
                fn.append(float(self.rows_fn[position]))
                exact.append(float(self.exact_rows[position]))
                episodes.append(1.0)
            alone_from = tasked_to
        return tp, fp, fn, exact, episodes

    def task_counts(self) -> dict[Any, tuple[int, int]]:
        """Per task, ``(samples n, exact samples c)``."""
        return {task: (entry[0], entry[1].bit_count()) for task, entry in self.tasks.items()}

    def sample_accuracy(self, samples: int) -> list[float]:
        """Accuracy of the r-th sample of every task (r < ``samples``, in line order): one figure per run when
        a corpus holds ``samples`` runs of the same tasks."""
        if not self.tasks:
            return []
        exact = [0] * samples
        for _n, bits, *_sums in self.tasks.values():
            # each task's first flags read as one string, once: a shift per sample (bits >> r) copied the rest
            # of the integer each time, quadratic in one task's samples (20 s at a million)
            flags = format(bits & ((1 << samples) - 1), f"0{samples}b")[::-1]
            for r, flag in enumerate(flags):
                if flag == "1":
                    exact[r] += 1
        return [count / len(self.tasks) for count in exact]

    def category_scores(self) -> dict[str, tuple[Score, int]]:
        """Per category ("" for episodes without one): its exact :class:`Score` and its exact episodes."""
        return {category: (Score.from_summed_tally(tally, episodes), exact)
                for category, (tally, episodes, exact) in sorted(self.categories.items())}


def unit_counts_by_tool(total: Score) -> dict[str, dict[str, int]]:
    """Unweighted unit counts per tool and kind."""
    out: dict[str, dict[str, int]] = {}
    for (kind, tool, _reason), (_w, n) in total.tally.items():
        out.setdefault(tool, {TP: 0, FP: 0, FN: 0})[kind] += n
    return out


def underscored_names(units_by_tool: Mapping[str, Mapping[str, int]]) -> dict[str, str]:
    """Predicted tool names that are a gold tool's name with every ``.`` written ``_`` (``math_hypot`` for
    ``math.hypot``), each with that gold name: the mark of a BFCL run whose model was shown names so
    (BFCL's ``underscore_to_dot``) scored as if it had seen them as they are. ``units_by_tool``: a run's
    unit counts per tool and kind (:func:`unit_counts_by_tool`, or the JSON report's ``per_tool`` units).
    Only names that are never gold themselves (no TP or FN unit) and gave FP units, against gold names
    that missed calls (FN units)."""
    missed = {underscored_name(tool): tool for tool, units in units_by_tool.items()
              if units.get(FN) and "." in tool}
    return {tool: missed[tool] for tool, units in sorted(units_by_tool.items())
            if tool in missed and units.get(FP) and not units.get(TP) and not units.get(FN)}


def reason_kinds(total: Score) -> dict[str, dict[str, tuple[float, int]]]:
    """Per error reason, the weighted total and unit count of its FP and FN units separately."""
    out: dict[str, dict[str, tuple[float, int]]] = {}
    acc: dict[tuple[str, str], list[Any]] = {}
    for (kind, _tool, reason), (w, n) in total.tally.items():
        if kind == TP:
            continue
        slot = acc.get((reason, kind))
        if slot is None:  # [w, n], not [0, 0] then added: the same exact sums (0 + w is w, of w's type)
            acc[reason, kind] = [w, n]
        else:
            slot[0] += w
            slot[1] += n
    for (reason, kind), (w, n) in acc.items():
        out.setdefault(reason, {})[kind] = (float(w), n)
    return out


__all__ = ["EpisodeDigest", "Summary", "digest", "export_row", "reason_kinds", "underscored_names",
           "unit_counts_by_tool"]
