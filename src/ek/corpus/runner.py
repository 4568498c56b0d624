"""Scoring a corpus file, streaming, in one process or several, with identical results.

Lines are read in chunks; each chunk is scored into a :class:`Summary`
(in-process, or by a worker process) and the chunk summaries are merged in
line order. Sums are exact fractions, so any number of jobs gives the same
report, byte for byte. At most ``2 * jobs`` chunks are in flight, so memory
does not grow with the corpus.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from itertools import chain, islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import attrs

from ek.batchgc import collect_less
from ek.bfcl.data import Question, read_questions, underscored_question
from ek.bfcl.javalike import decode_calls, typed_calls
from ek.bfcl.multiturn import turn_calls
from ek.bfcl.signatures import Signatures
from ek.bfcl.typemap import source_language
from ek.bfcl.variation import PREFIX as VARIATION_PREFIX
from ek.bfcl.variation import decode_variation, prompt_variation
from ek.calls import ANY_CALL, Step
from ek.corpus.grammars import GrammarError, MetricCache
from ek.corpus.reading import (
    Episode,
    GoldEntry,
    LineCounts,
    LineError,
    Turn,
    load_bfcl_abstentions,
    load_bfcl_answers,
    load_bfcl_functions,
    load_gold_file,
    parse_episode,
)
from ek.corpus.sources import FileSpan, open_corpus, run_label
from ek.corpus.summary import Summary
from ek.goldjson import ANY_CALL_JSON, OMIT, ONE_OF
from ek.limits import (
    ALIGNMENT_VALUE_CHARS,
    CHUNK_LINES,
    ERROR_LINES_KEPT,
    GOLD_MEMO_ENTRIES,
    SCORE_WINDOW_LINES,
    TAIL_CHUNK_LINES,
)
from ek.parsing import ParseError, read_plain_bfcl
from ek.parsing.limits import DEFAULT_MAX_SIZE
from ek.runtime.violation import safe_repr
from ek.scorer.accounting import Score
from ek.scorer.alignment import alignment_dict
from ek.scorer.goldcheck import invalid_gold_reason
from ek.scorer.metric import ToolCallMetric
from ek.scorer.turns import EpisodeScore, score_turns
from ek.termination import asked, deferred, restore_in_worker, stop_if_asked
from ek.values import OMITTABLE, OneOf

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor


@attrs.frozen
class RunOptions:
    """How to score: the metric's settings, grammars, and what to keep for the reports."""

    level: str = "call"
    canonicalizer: str = "fold"
    optimal: bool = False
    #: how the order of calls counts: any, strict or gold (see ek.scorer.metric.ORDERS)
    order: str = "gold"
    #: the model-output format of every line that names none (``auto``; ``bfcl`` for BFCL result files)
    format: str = "auto"
    grammar: str | None = None
    search_path: tuple[str, ...] = ()
    gold_file: str | None = None
    #: the gold file is the gold (and grammar) of every line, whatever the line holds (``ek compare --gold``)
    shared_gold: bool = False
    bfcl_answers: str | None = None
    bfcl_questions: str | None = None
    #: BFCL's multi-turn API source folder, for ground truth that passes arguments by position (default: found)
    bfcl_source: str | None = None
    #: the model was shown BFCL's function names with every ``.`` as ``_`` (BFCL's ``underscore_to_dot``: the
    #: function-calling APIs of OpenAI and other hosted models): questions and answers are read so named
    underscore_to_dot: bool = False
    keep_worst: int = 10
    keep_details: int = 0
    keep_ids: bool = False
    keep_errors: int = ERROR_LINES_KEPT
    #: keep one row per episode for ``--episodes-out`` (the runner hands them to ``export`` chunk by chunk)
    keep_export: bool = False
    #: gold the grammar rejects: "error" (the line is not scored) or "warn" (scored, and counted as a warning)
    invalid_gold: str = "error"
    #: check predicted values (and gold) against the grammar's schemas (``--no-validate``: values compared only,
    #: as BFCL's checker compares them)
    validate: bool = True
    #: samples of one task scored against different gold or with different grammars (Summary.mixed_gold,
    #: Summary.mixed_grammar): "warn" (reported), "error" (reported, and ``ek score`` exits 1) or "ignore" (not
    #: compared); every line is scored either way
    task_gold: str = "warn"
    #: every input file is a tau-bench or tau2-bench results file: its entries are the lines, each (task,
    #: trial) an episode (ek.corpus.reading.tau_entry_lines)
    tau_bench: bool = False

    def bfcl_functions(self, questions: Sequence[Question] | None = None) -> dict[str, Any] | None:
        """The function schemas of each BFCL question by id (``--bfcl-questions``), or None. ``questions``:
        that file already read (:meth:`read_bfcl_questions`), else it is read here."""
        if not self.bfcl_questions:
            return None
        return load_bfcl_functions(questions if questions is not None else self._questions_as_shown())

    def read_bfcl_questions(self) -> list[Question] | None:
        """The entries of ``--bfcl-questions``, or None: read once for both the gold (:meth:`load_gold`) and
        the functions (:meth:`bfcl_functions`): 1,000 questions cost 20 ms to read."""
        return self._questions_as_shown() if self.bfcl_questions else None

    def _questions_as_shown(self) -> list[Question]:
        """The entries of ``--bfcl-questions``, their functions named as the model was shown them."""
        questions = read_questions(self.bfcl_questions)  # type: ignore[arg-type]  # callers check it is set
        return [underscored_question(q) for q in questions] if self.underscore_to_dot else questions

    def metric_cache(self, functions: Mapping[str, Any] | None = None) -> MetricCache:
        """Metrics per grammar; ``functions``: already loaded :meth:`bfcl_functions` (else read here)."""
        if functions is None:
            functions = self.bfcl_functions()
        return MetricCache(level=self.level, canonicalizer=self.canonicalizer, optimal=self.optimal,
                           order=self.order, format=self.format, default_grammar=self.grammar,
                           search_path=self.search_path, bfcl_functions=functions, validate=self.validate)

    def load_gold(self, questions: Sequence[Question] | None = None, signatures: Signatures | None = None
                  ) -> tuple[dict[Any, GoldEntry] | None, list[LineError]]:
        """Gold calls by id from ``--gold`` or ``--bfcl-answers`` (None when lines carry their own gold).
        ``questions``: as for :meth:`bfcl_functions`; ``signatures``: ``bfcl_source`` already read."""
        if self.gold_file:
            entries, errors, _ = load_gold_file(self.gold_file)
            return entries, errors
        source = signatures if signatures is not None else self.bfcl_source
        entries, errors = (load_bfcl_answers(self.bfcl_answers, source, (self.bfcl_questions,),
                                             underscore_to_dot=self.underscore_to_dot)
                           if self.bfcl_answers else (None, []))
        if self.bfcl_questions:  # irrelevance questions have no possible answer: their gold is []
            abstentions = load_bfcl_abstentions(questions if questions is not None else self.bfcl_questions)
            if abstentions:
                entries = {**abstentions, **(entries or {})}
        return entries, errors

    def new_summary(self, floor: tuple[float, float, int] | None = None) -> Summary:
        return Summary(keep_worst=self.keep_worst, keep_details=self.keep_details, keep_ids=self.keep_ids,
                       keep_errors=self.keep_errors, floor=floor, export=[] if self.keep_export else None)


@attrs.frozen
class RunInputs:
    """What a run reads before its first line (:func:`read_inputs`): the gold by id (None when the lines
    carry their own), the gold file's entries that could not be read, and BFCL's function schemas by question
    id (None without ``bfcl_questions``).

    A caller that has them already hands them to :func:`run`: the ``ek`` command reads them while it
    checks its inputs (a bad file is then a usage error before anything is scored), and ``ek compare``
    scores two files against the same gold (reading them again was 5% of a one-run BFCL file's instructions).
    """

    gold_by_id: Mapping[Any, GoldEntry] | None
    gold_errors: tuple[LineError, ...]
    functions: Mapping[str, Any] | None


def read_inputs(options: RunOptions, questions: Sequence[Question] | None = None,
                signatures: Signatures | None = None) -> RunInputs:
    """The gold and BFCL functions ``options`` name, read once. ``questions``: ``options.bfcl_questions``
    already read (:meth:`RunOptions.read_bfcl_questions`), else it is read here; ``signatures``:
    ``options.bfcl_source`` already read (:func:`ek.bfcl.signatures.read_signatures`), else it is read on
    the first multi-turn answer.
    Raises :class:`ek.bfcl.BfclDataError` when a BFCL file is not BFCL's format."""
    if questions is None:
        questions = options.read_bfcl_questions()
    gold_by_id, gold_errors = options.load_gold(questions, signatures)
    return RunInputs(gold_by_id, tuple(gold_errors), options.bfcl_functions(questions))


@attrs.frozen
class RunResult:
    """A finished run: the summary, line accounting of the corpus, and problems of the gold file."""

    path: str
    summary: Summary
    counts: LineCounts
    gold_errors: tuple[LineError, ...] = ()
    seconds: float = 0.0
    #: the input files in order, with where each starts in the run's line numbering (ek.corpus.sources)
    files: tuple[FileSpan, ...] = ()

    @property
    def accounted(self) -> bool:
        """Every line is scored, an error, or blank: nothing was lost."""
        s = self.summary
        return self.counts.read == s.episodes + s.error_count + self.counts.blank


def _prepare_pred(pred: Any, fmt: str | None = None) -> Any:
    """Raw output as the metric takes it: lists are parsed like their JSON text, so a bad shape is a parse error.
    ``fmt``: the format it is read in (:func:`_saved_calls` reads BFCL's saved function calls at once)."""
    if pred is None:
        return ""
    if isinstance(pred, list):
        if fmt == "bfcl":
            steps = _saved_calls(pred)
            if steps is not None:
                return steps
        return json.dumps(pred)
    if isinstance(pred, (str, dict)):
        return pred
    raise TypeError(f"the predicted output must be text or a JSON object/array, got {type(pred).__name__}: "
                    f"{json.dumps(pred)[:60]}")


#: Characters ``json.dumps`` writes at most for one character of a string (an astral one, as two ``\\uXXXX``).
_ESCAPED_CHARS = 12
#: Characters ``json.dumps`` writes at most around a list (``[]``), an item (``{}, ``) and a key and its value
#: (``"k": "v", ``), besides the strings' own.
_LIST_CHARS, _ITEM_CHARS, _ENTRY_CHARS = 2, 4, 8


def _saved_calls(pred: list[Any]) -> tuple[Step, ...] | None:
    """Fast path of reading a list in the ``bfcl`` format through its JSON text (what the metric would do
    with :func:`_prepare_pred`'s ``json.dumps(pred)``), for BFCL's saved calls of a function-calling model:
    every item a ``dict`` of tool names to JSON argument texts (``[{"f": "{\"x\": 1}"}]``). Their steps, read
    from the list (:func:`ek.parsing.read_plain_bfcl`), or None (then the text is read).

    What it skips: writing the text, decoding it again and finding the reader. Safe: the text would pass
    the parser's size check (``len(text) <= DEFAULT_MAX_SIZE``): a bound of its length from the strings'
    lengths (each character escaped at its longest) decides it, and only a list past that bound is written
    to measure it exactly; its nesting is the list's and the items' (two: the argument texts are strings,
    which the nesting check skips), and each argument text is checked and decoded as the general reader does
    it; anything else (another shape, an argument text to refuse) is None, and read from the text as before.
    """
    bound = _LIST_CHARS + _ITEM_CHARS * len(pred)
    for item in pred:
        if type(item) is not dict:
            return None
        for name, arguments in item.items():
            if type(arguments) is not str or type(name) is not str:
                return None
            bound += _ENTRY_CHARS + _ESCAPED_CHARS * (len(name) + len(arguments))
    if bound > DEFAULT_MAX_SIZE and len(json.dumps(pred)) > DEFAULT_MAX_SIZE:
        return None
    steps = read_plain_bfcl(pred)
    return None if steps is None else tuple(steps)


def _gold_node(value: Any) -> Any:
    """What the canonical gold encoder writes for a value JSON has no type for: a :class:`Step` (a gold call),
    :class:`OneOf` and :data:`OMITTABLE` as :func:`ek.goldjson.gold_to_json` writes them, a mapping as a dict;
    anything else is not JSON-able (TypeError)."""
    if isinstance(value, Step):
        call = {"name": value.name, "arguments": value.args if type(value.args) is dict else dict(value.args)}
        after = getattr(value, "after", ())
        if after:
            call["after"] = list(after)
        return call
    if isinstance(value, OneOf):
        return {ONE_OF: list(value.alternatives)}
    if value is OMITTABLE:
        return {OMIT: True}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


#: Writes gold calls as the text :func:`gold_digest` hashes: ``json.dumps(gold_to_json(gold), sort_keys=True,
#: ensure_ascii=False)``, the same text, in C. Fast path: the calls are not copied into JSON-able dicts and
#: lists first (:func:`ek.goldjson.gold_to_json`, in Python), the encoder asks :func:`_gold_node` for the few
#: values JSON has no type for (a call, a marker), and it is built once, not per call of ``json.dumps``: half
#: the cost of a digest (``ek score`` takes one of every line that names a task). It keeps no record of the
#: containers it is in (``check_circular``, a dict update per container): gold read from JSON holds no cycle,
#: and one built in code ends in a RecursionError, which :func:`gold_digest` takes as it took the circular
#: reference error: the gold's repr is hashed.
_GOLD_TEXT = json.JSONEncoder(sort_keys=True, ensure_ascii=False, check_circular=False, default=_gold_node).encode


def gold_digest(gold: tuple[Step, ...]) -> str:
    """A short fingerprint of gold calls (markers included, key order ignored): equal gold, equal digest.
    What "the same gold" means wherever ek checks it: ``ek compare`` (two runs, or a task's samples in one)
    and ``ek score`` (a task's samples, :func:`gold_key`)."""
    try:
        text = _GOLD_TEXT(ANY_CALL_JSON if gold is ANY_CALL else gold)
    except (TypeError, ValueError, RecursionError):  # not JSON-able (gold built in code): its repr, never raising
        text = safe_repr(gold)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def episode_gold_digest(episode: Episode, digest: Callable[[Any], str] = gold_digest) -> str:
    """:func:`gold_digest` of a single-turn episode's gold; of a multi-turn one, of its turns' digests.
    ``digest``: :func:`gold_digest`, or a memo of it (:meth:`_GoldMemo.digest`)."""
    if episode.turns is None:
        return digest(episode.gold)
    joined = "/".join(digest(t.gold) for t in episode.turns)
    return "turns:" + hashlib.sha256(joined.encode("ascii")).hexdigest()[:24]


def gold_key(digest: str) -> int:
    """An episode's gold as a task of ``ek score`` keeps it (:attr:`ek.corpus.summary.Summary.tasks`): 60 bits
    of its :func:`episode_gold_digest`, its last 15 hex digits (a 32-byte int, where the digest's text takes 73).
    Two golds of one task with different digests share it with a chance of 2**-60."""
    return int(digest[-15:], 16)


def _turn_pred(turn: Turn, index: int) -> Any:
    """A turn's output as the metric takes it: BFCL step outputs become the calls of all steps, in order.
    An output of no readable type is the line's error, naming the turn (``index``)."""
    if isinstance(turn.pred, ParseError):  # a turn the output lacks (reading.py's _join_turns): unreadable
        return turn.pred
    try:
        return turn_calls(turn.pred) if turn.steps else _prepare_pred(turn.pred)
    except TypeError as exc:
        raise TypeError(f"turn {index}: {exc}") from None


def score_episode(cache: MetricCache, episode: Episode) -> EpisodeScore:
    """Score one episode, turn by turn, with its grammar's metric (raises GrammarError, TypeError, ValueError)."""
    return _score_with(cache.for_episode(episode.grammar, episode.id), episode)


def _score_with(metric: ToolCallMetric, episode: Episode) -> EpisodeScore:
    """Each turn scored on its own by ``metric`` (:func:`ek.scorer.turns.score_turns`: matches never cross turns),
    reading the outputs in the line's own ``format`` when it names one."""
    if episode.turns is None:  # fast path: a one-turn line's only turn, without building a Turn for it
        return EpisodeScore((_score_one_turn(metric, episode),))
    score_one = metric if episode.format is None else partial(metric, format=episode.format)
    return score_turns(score_one, ((_turn_pred(t, i), t.gold) for i, t in enumerate(episode.turns)))


def _score_one_turn(metric: ToolCallMetric, episode: Episode, gold: Any = None, pred: Any = None) -> Score:
    """A one-turn episode's score: its only turn's :class:`Score`, which :meth:`Summary.add` takes as the
    episode. Fast path of :func:`_score_with`: the same metric call, without the :class:`EpisodeScore` (and
    the ``partial``) built around it for every line; the summary wraps the few it keeps. ``pred``: the
    output already read (:func:`_source_pred`), else the line's."""
    if pred is None:
        pred = _prepare_pred(episode.pred, episode.format or metric.format)
    gold = episode.gold if gold is None else gold
    return metric(pred, gold) if episode.format is None else metric(pred, gold, format=episode.format)


def _source_pred(cache: MetricCache, metric: ToolCallMetric, episode: Episode) -> Any:
    """The output of a one-turn line scored against a BFCL question of a Java or JavaScript category, read as
    BFCL reads it: calls whose argument values are source text (``"5"``, ``"new int[]{1, 2}"``) converted by
    the types the question declares (:func:`ek.bfcl.javalike.typed_calls`), or the :class:`ek.ParseError` of
    an unreadable one. Text in the ``bfcl`` format is a prompting model's ``[Class.method(arg=<source>)]``
    (:func:`ek.bfcl.javalike.decode_calls`); anything else is read by the metric, in the line's format.
    None for every other line (the metric reads its output as it is)."""
    if (cache.bfcl_functions is None or episode.grammar is not None or episode.turns is not None
            or type(episode.id) is not str):
        return None
    language = source_language(episode.id)  # (the rule MetricCache.for_episode picks such a question's metric by)
    if language is None:
        return _variation_pred(metric, episode) if episode.id.startswith(VARIATION_PREFIX) else None
    functions = cache.bfcl_functions.get(episode.id)
    if functions is None:
        return None  # a question for_episode has said it cannot score
    raw = episode.pred
    try:
        if type(raw) is str and (episode.format or metric.format) == "bfcl":
            steps = decode_calls(raw, language)
        else:
            steps = list(metric.read(_prepare_pred(raw), format=episode.format))
    except ParseError as exc:
        return exc
    return typed_calls(steps, functions, language)


def _reads_its_own_output(cache: MetricCache, episode: Episode) -> bool:
    """Whether this one-turn line, which names no grammar, is scored with its BFCL question's metric (or the
    default one) reading its output as it is, whatever the output: :func:`_source_pred` gives None for every
    output of a line with this id (a question of no Java, JavaScript or format-sensitivity category, or no BFCL
    questions at all)."""
    if episode.grammar is not None:
        return False
    if cache.bfcl_functions is None or type(episode.id) is not str:
        return True
    return source_language(episode.id) is None and not episode.id.startswith(VARIATION_PREFIX)


def _same_question(memo: _GoldMemo, episode: Episode) -> tuple[Any, Any, ToolCallMetric, tuple[str, ...], Any] | None:
    """Fast path of :func:`_score_line` for a line of the same question as the last one it scored against a
    prepared gold (samples of one question in a row, or a chunk's lines grouped by id): that line's metric,
    gold problems and prepared gold (:attr:`_GoldMemo.last`), or None.

    What it skips: finding the metric (:meth:`MetricCache.for_episode`), the memo's two lookups
    (:meth:`_GoldMemo.problems`, :meth:`_GoldMemo.gold`) and :func:`_source_pred`'s tests. Safe because each is a
    function of what is compared here: the metric of the line's grammar (none) and id, which the cache gives
    again for the same id (built again only after the LRU dropped it, then from the same schemas, so the kept one
    scores alike, and its prepared gold is its own); the problems and the prepared gold of that metric and this
    very gold object (held, so its id is not another's); and no output converted by id, since the last line
    stored it only if :func:`_reads_its_own_output` (one-turn, no grammar, an id of no converted category), and
    this line names no grammar or format of its own either. Any other line takes the general path, and stores
    its question when it qualifies.
    """
    last = memo.last
    if (last is None or episode.gold is not last[0] or episode.id != last[1] or type(episode.id) is not type(last[1])
            or episode.turns is not None or episode.grammar is not None or episode.format is not None):
        return None
    return last


def _variation_pred(metric: ToolCallMetric, episode: Episode) -> Any:
    """The output of a BFCL format-sensitivity line (:mod:`ek.bfcl.variation`), text in the ``bfcl`` format, read
    in the return format its prompt asked for (:func:`ek.bfcl.variation.decode_variation`), or its
    :class:`ek.ParseError`; None for any other line (the metric reads it as it is)."""
    variation = prompt_variation(episode.id)
    if variation is None or type(episode.pred) is not str or (episode.format or metric.format) != "bfcl":
        return None
    try:
        return decode_variation(episode.pred, variation)
    except ParseError as exc:
        return exc


def episode_gold_problems(metric: ToolCallMetric, episode: Episode) -> tuple[str, ...]:
    """What the grammar rejects in an episode's gold, each problem of a multi-turn episode with its turn."""
    if episode.turns is None:
        return metric.gold_problems(episode.gold)
    return tuple(f"turn {i}: {p}" for i, t in enumerate(episode.turns) for p in metric.gold_problems(t.gold))


class _GoldMemo:
    """Fast paths for gold met again: lines answering one question share its gold entry from the gold file
    (``--gold``, ``--bfcl-answers``), the very same object, so its problems under one metric are found once
    instead of once per line, and from its second line on it is scored as the metric prepared it
    (:meth:`ToolCallMetric.prepare`, made once: the same scores, the gold-only work done once; a gold met
    once is not prepared, which would only add that work).

    Safe because both are pure functions of the metric and the gold calls, and the memo holds the gold and
    metric it saw (so their ids cannot be reused by other objects while it lives). It lives for a whole run
    in one process (a corpus that goes over the questions once per model or sample meets each gold again a
    thousand lines later) and keeps at most ``GOLD_MEMO_ENTRIES``, dropping the oldest first (a line's own
    gold, never met again, only passes through).
    """

    def __init__(self, limit: int = GOLD_MEMO_ENTRIES) -> None:
        #: (metric id, gold id) -> [gold, metric, problems, lines seen, prepared gold or None, digest or None],
        #: oldest first
        self._seen: dict[tuple[int, int], list[Any]] = {}
        self._limit = limit
        #: the question of the last line that :func:`_score_line` scored against a prepared gold, when
        #: :func:`_same_question` may reuse it: (gold, id, metric, problems, prepared gold), else None
        self.last: tuple[Any, Any, ToolCallMetric, tuple[str, ...], Any] | None = None
        #: gold id -> (gold, its gold_digest), oldest first: the turns' golds of multi-turn lines (:meth:`digest`)
        self._digests: dict[int, tuple[Any, str]] = {}

    def episode_digest(self, metric: ToolCallMetric, episode: Episode) -> str:
        """:func:`episode_gold_digest` of an episode ``metric`` scored (after :meth:`problems` saw the line), found
        once per gold object: lines answering one question from a gold file (``--gold``, ``--bfcl-answers``) share
        its entry's very gold, so a task's samples read by id (``ek score``) and the lines ``ek compare`` records
        cost a lookup, not a digest (5-10 us). A one-turn line's digest is held beside its gold's problems (no entry
        of its own: a line's own gold, met once, is digested and let go); a multi-turn line's turns' digests in
        :meth:`digest`. Safe as :meth:`problems` is: a digest is a function of the gold, held with it."""
        if episode.turns is not None:
            return episode_gold_digest(episode, self.digest)
        gold = episode.gold
        seen = self._seen.get((id(metric), id(gold)))
        if seen is None or seen[0] is not gold or seen[1] is not metric:
            return gold_digest(gold)
        digest = seen[5]
        if digest is None:
            digest = seen[5] = gold_digest(gold)
        return digest  # type: ignore[no-any-return]

    def digest(self, gold: Any) -> str:
        """:func:`gold_digest` of ``gold``, found once per gold object while the memo holds it (at most
        ``GOLD_MEMO_ENTRIES``, the oldest let go first): the turns of a multi-turn question read by id share its
        gold file entry's golds."""
        seen = self._digests.get(id(gold))
        if seen is not None and seen[0] is gold:
            return seen[1]
        digest = gold_digest(gold)
        digests = self._digests
        digests[id(gold)] = (gold, digest)
        if len(digests) > self._limit:
            del digests[next(iter(digests))]
        return digest

    def problems(self, metric: ToolCallMetric, episode: Episode) -> tuple[str, ...]:
        if episode.turns is not None:
            return episode_gold_problems(metric, episode)
        key = (id(metric), id(episode.gold))
        seen = self._seen.get(key)
        if seen is not None and seen[0] is episode.gold and seen[1] is metric:
            seen[3] += 1
            return seen[2]  # type: ignore[no-any-return]
        problems = episode_gold_problems(metric, episode)
        seen_all = self._seen
        seen_all[key] = [episode.gold, metric, problems, 1, None, None]
        if len(seen_all) > self._limit:
            del seen_all[next(iter(seen_all))]
        return problems

    def gold(self, metric: ToolCallMetric, episode: Episode) -> Any:
        """The gold to score a one-turn line with (after :meth:`problems` saw the line): prepared from its
        second line on, else None (the line's own)."""
        if episode.turns is not None:
            return None
        seen = self._seen.get((id(metric), id(episode.gold)))
        if seen is None or seen[0] is not episode.gold or seen[1] is not metric or seen[3] < 2:
            return None
        if seen[4] is None:
            seen[4] = metric.prepare(episode.gold)
        return seen[4]


#: How a kept worst episode's explanation becomes its detail in the reports (Summary.attach_details).
ATTACH = partial(alignment_dict, limit=ALIGNMENT_VALUE_CHARS)


def score_lines(options: RunOptions, cache: MetricCache, lines: Iterable[tuple[int, bytes]],
                gold_by_id: Mapping[Any, GoldEntry] | None,
                floor: tuple[float, float, int] | None = None, *, details: bool = True,
                memo: _GoldMemo | None = None) -> Summary:
    """Score a run of ``(line_number, raw)`` corpus lines into a fresh summary.

    ``floor`` is the rank an episode must beat to count among the worst of the
    whole run so far; it only saves work (the kept worst episodes are the same).
    ``details=False`` leaves the worst episodes' explanations unattached: the caller merges the summary
    into the run's and attaches there (:data:`ATTACH`), once, so alignments are built only for the run's
    worst.
    ``memo``: the process's :class:`_GoldMemo`, kept across the chunks of a run; a fresh one without it.
    The lines are scored grouped by id (:func:`_by_id`), each summed as soon as it is scored, and the summary
    is put back in line order (:meth:`Summary.restore_line_order`): the report is the one of line order.
    """
    summary = options.new_summary(floor)
    if memo is None:
        memo = _GoldMemo()
    parsed = [parse_episode(raw, number, gold_by_id, shared_gold=options.shared_gold, tau_bench=options.tau_bench)
              for number, raw in lines]
    order = _by_id(parsed)
    if order is None:  # the lines of each id already follow each other: each line scored and summed at once
        for item in parsed:
            _sum_line(summary, options, cache, item, _score_line(options, cache, memo, item), memo)
    else:
        # Each line summed as soon as it is scored, in the grouped order: holding a chunk's scores until they
        # could be summed in line order cost the passes layout a fifth of its CPU (the held scores and their
        # explanations walked by the garbage collector, then read back from memory long since evicted from the
        # CPU's caches). What depends on the order is put back after: the summary's per-episode columns, by
        # restore_line_order; error lines and gold warnings, kept aside and added in line order.
        positions: list[int] = []  # the chunk position of each episode the summary took, in the order taken
        tasks: list[Any] = []
        golds: list[tuple[str, int] | None] = []  # their answer keys
        aside: list[tuple[int, bool, LineError]] = []  # (line, is a warning, error or warning)
        for k in order:
            item = parsed[k]
            if _sum_line(summary, options, cache, item, _score_line(options, cache, memo, item), memo, aside, golds):
                positions.append(k)
                tasks.append(item.task)  # type: ignore[union-attr]  # a summed line is an Episode
        summary.restore_line_order(positions, tasks, golds)
        for _line, warning, error in sorted(aside, key=itemgetter(0)):
            (summary.add_gold_warning if warning else summary.add_error)(error)
    if details:
        summary.attach_details(ATTACH)
    return summary


def _by_id(items: Sequence[Episode | LineError]) -> list[int] | None:
    """The positions of a chunk's lines, those with one episode id together, in the order each id first comes
    (line order within an id; lines that are errors, or whose id is no string or integer, each on its own);
    None when that is line order (each id once, as in one run over the questions, or its lines already in a
    row, as with samples of a task written together): those lines are scored and summed one by one, their
    scores not kept for the chunk.

    Scoring in this order changes no result (each line's score depends on its line only; the summary takes
    them in line order): it only makes the lines of a question met again in the chunk (a corpus of several
    passes over the questions, or files of several runs read in a row) follow each other, while what they
    share (their metric, rules, validators and prepared gold) is still in the CPU's caches."""
    groups: dict[Any, list[int]] = {}
    scattered = False  # some id's lines are not in a row
    last: Any = None
    for k, item in enumerate(items):
        key = item.id if type(item) is Episode and type(item.id) in (str, int) else (k,)  # type: ignore[union-attr]
        group = groups.get(key)
        if group is None:
            groups[key] = [k]
        else:
            group.append(k)
            scattered = scattered or key != last
        last = key
    return [k for group in groups.values() for k in group] if scattered else None


def _sum_line(summary: Summary, options: RunOptions, cache: MetricCache, item: Episode | LineError,
              outcome: LineError | tuple[ToolCallMetric, tuple[str, ...], Any], memo: _GoldMemo,
              aside: list[tuple[int, bool, LineError]] | None = None,
              golds: list[tuple[str, int] | None] | None = None) -> bool:
    """Hand one line's outcome (:func:`_score_line`) to the summary: its error, or its score, gold warnings and,
    when it names a task, its answer key: its grammar's identity (:meth:`MetricCache.grammar_identity`) and its
    gold key (:func:`gold_key` of :meth:`_GoldMemo.episode_digest`; a line without a task, or with
    ``--task-gold ignore``, in a run that keeps no ids, takes no digest); whether the summary took a scored
    episode. ``aside``: errors and warnings go there, ``(line, is a warning, error)``, for the caller to add in
    line order, instead of to the summary; ``golds``: the answer key (None without a task) of a scored episode
    is appended there too."""
    if type(outcome) is LineError:
        if aside is None:
            summary.add_error(outcome)
        else:
            aside.append((outcome.line, False, outcome))
        return False
    metric, problems, score = outcome
    if problems:
        warning = LineError(item.line, item.id, invalid_gold_reason(metric.grammar, problems))
        if aside is None:
            summary.add_gold_warning(warning)
        else:
            aside.append((warning.line, True, warning))
    task = item.task
    keyed = task is not None and options.task_gold != "ignore"  # (ignore: no gold key, no digest for it)
    digest = memo.episode_digest(metric, item) if options.keep_ids or keyed else None
    grammar = cache.grammar_identity(item.grammar) if options.keep_ids or keyed else ""
    source = (grammar, digest) if options.keep_ids else None
    key = (grammar, gold_key(digest)) if keyed else None  # type: ignore[arg-type]  # (keyed: digest is set)
    summary.add(item.line, item.id, score, cache.grammar_label(item.grammar), source, task=task,
                category=item.category, gold=key)
    if golds is not None:
        golds.append(key)
    return True


def _score_line(options: RunOptions, cache: MetricCache, memo: _GoldMemo,
                item: Episode | LineError) -> LineError | tuple[ToolCallMetric, tuple[str, ...], Any]:
    """One line's outcome: its error (it was not read, its gold is invalid, or it cannot be scored), or its
    metric, the problems of its gold (warnings) and its score."""
    if type(item) is LineError:
        return item
    number = item.line
    try:
        last = _same_question(memo, item)
        if last is not None:  # (never a gold with problems under "error": the line returns before it is prepared)
            _gold, _id, metric, problems, prepared = last
            return metric, problems, metric(_prepare_pred(item.pred, metric.format), prepared)
        metric = cache.for_episode(item.grammar, item.id)
        problems = memo.problems(metric, item)
        if problems and options.invalid_gold == "error":
            return LineError(number, item.id, invalid_gold_reason(metric.grammar, problems))
        if item.turns is None:
            prepared = memo.gold(metric, item)
            score: Score | EpisodeScore = _score_one_turn(metric, item, prepared, _source_pred(cache, metric, item))
            if prepared is not None and _reads_its_own_output(cache, item):
                memo.last = (item.gold, item.id, metric, problems, prepared)
        else:
            score = _score_with(metric, item)
    except GrammarError as exc:
        return LineError(number, item.id, f"unknown grammar: {exc}")
    except (TypeError, ValueError, KeyError) as exc:
        return LineError(number, item.id, f"cannot score: {exc}")
    except RecursionError:  # a value deep enough to exhaust the stack somewhere in the metric
        return LineError(number, item.id, "cannot score: values nested too deeply")
    except Exception as exc:  # noqa: BLE001 - a bug in the scorer must cost one line, not a long run
        return LineError(number, item.id, f"cannot score: internal error in the scorer "
                                          f"({type(exc).__name__}: {exc}); please report it with this line")
    return metric, problems, score


# --------------------------------------------------------------------------- worker processes

_WORKER: dict[str, Any] = {}


def _init_worker(options: RunOptions, gold_by_id: Mapping[Any, GoldEntry] | None,
                 functions: Mapping[str, Any] | None) -> None:
    """Workers get the gold and BFCL functions the parent read (input files are read once: they may be pipes).

    A worker is a process of ek's own, started for this run: it collects garbage as :mod:`ek.batchgc` says
    (a forked worker inherits its parent's settings; a spawned one, or the fork of a library caller's
    process, would not have them). It ends with its parent (:func:`_die_with_parent`), and SIGTERM ends it at
    once, as the executor means when it stops its workers (a fork inherits the CLI's own handlers)."""
    restore_in_worker()
    if asked():  # SIGTERM or SIGINT came to the parent while it was starting this worker (deferred), or to it
        os.kill(os.getpid(), signal.SIGTERM)  # before this point: it ends as SIGTERM ends it
    _die_with_parent()
    collect_less()
    _WORKER["options"] = options
    _WORKER["cache"] = options.metric_cache(functions)
    _WORKER["gold"] = gold_by_id
    _WORKER["memo"] = _GoldMemo()


def _die_with_parent() -> None:
    """Linux: the kernel sends this worker SIGKILL when the process that started it ends, however it ends
    (``kill`` of the parent alone, SIGKILL, a crash). A worker waits on its queue, whose write end other workers
    hold too, so it would never see its parent go: re-parented to init, it waited for ever, holding its memory.
    Elsewhere (no ``prctl``), nothing changes."""
    if sys.platform != "linux":
        return
    import ctypes
    import multiprocessing

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no C library to call (a static or unusual build): as elsewhere
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # it ended before the prctl took effect
        os._exit(1)


def _score_chunk(chunk: list[tuple[int, bytes]], floor: tuple[float, float, int] | None) -> Summary:
    """A chunk's summary, its worst episodes ranked but not explained: the parent explains the run's worst
    itself (:func:`explain_kept`), once, instead of each chunk building and sending explanations for its own
    (:meth:`Summary.drop_explanations` says what that cost)."""
    summary = score_lines(_WORKER["options"], _WORKER["cache"], chunk, _WORKER["gold"], floor, details=False,
                          memo=_WORKER["memo"])
    summary.drop_explanations()
    return summary


class KeptRaw:
    """The raw lines of the episodes a run scored in parts (``--jobs`` chunks, Ray blocks) keeps among its
    worst so far, taken from each part as its summary is merged, so that the merging process can score them
    again to explain them (:func:`explain_kept`). Every line the run still keeps is held; lines it dropped are
    let go of once they are as many as it keeps (at most twice the summary's heap size are held, and the
    pruning costs a look at the heap per heap's worth of lines, however large ``--worst`` is)."""

    def __init__(self) -> None:
        self.raw: dict[int, bytes] = {}

    def note(self, total: Summary, part: Summary, chunk: list[tuple[int, bytes]]) -> None:
        """After ``part`` (the summary of ``chunk``) was merged into ``total``: hold the raw lines of the chunk's
        episodes ``part`` kept (``total`` may keep them), and let go of those ``total`` dropped when due."""
        wanted = part.kept_lines()
        if wanted:
            self.raw.update((line, raw) for line, raw in chunk if line in wanted)
        if len(self.raw) > 2 * total.heap_size:
            kept = total.kept_lines()
            self.raw = {line: raw for line, raw in self.raw.items() if line in kept}


def explain_kept(total: Summary, options: RunOptions, gold_by_id: Mapping[Any, GoldEntry] | None,
                 functions: Mapping[str, Any] | None, raw_of: Mapping[int, bytes]) -> None:
    """Explain the worst episodes of a run scored in parts that get a detail (:meth:`Summary.lines_to_explain`)
    by scoring their lines again in this process, as a worker scored them: a line's score is a function of the
    line and the options alone (a gold prepared in the worker gives the same score), so its explanation is
    the one the worker's score held. A line that does not score again (which cannot happen) keeps no detail."""
    lines = total.lines_to_explain()
    if not lines:
        return
    cache, memo = options.metric_cache(functions), _GoldMemo()
    for line in lines:
        raw = raw_of.get(line)
        if raw is None:
            continue
        episode = parse_episode(raw, line, gold_by_id, shared_gold=options.shared_gold, tau_bench=options.tau_bench)
        outcome = _score_line(options, cache, memo, episode)
        if type(outcome) is not LineError:
            total.explain(line, outcome[2])


def usable_cpus() -> int:
    """How many CPUs this process may run on: its CPU affinity where the system tells it (Linux: what a
    container's cpuset or ``taskset`` allows, which can be far fewer than the machine has), else every CPU
    of the machine; at least 1. ``ek score --jobs auto`` starts that many workers, and a local Ray gets that
    many CPUs."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity to read (macOS, Windows)
        return os.cpu_count() or 1


def _start_method() -> str:
    """``fork`` on Linux in a process that runs one thread (workers start in milliseconds with ek already
    imported; the CLI runs no threads, and with fork the executor starts all its workers before its own
    manager thread), ``spawn`` otherwise: macOS and Windows, where fork is unsafe or missing, and a process
    that runs other threads, which fork cannot copy safely. One such is a process connected to Ray (its
    gRPC threads are not Python's): a forked worker inherits the driver's gRPC connections and writes on
    them (a garbage-collected ObjectRef sends FreeObjects to the raylet), which corrupts them, and the
    driver's next Ray call waits for ever (docs/ray.md: "A Ray that stops answering")."""
    import multiprocessing  # here: a run without --jobs never loads multiprocessing

    if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods() and _one_thread():
        return "fork"
    return "spawn"


def _one_thread() -> bool:
    """Whether this process runs a single thread, counting threads Python did not start (Linux: /proc)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return threading.active_count() == 1


class WorkerDiedError(RuntimeError):
    """A worker process of a ``--jobs`` run ended before returning its lines (killed by a signal or the
    out-of-memory killer): the run cannot be completed, and its totals must not be reported as if it had."""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _death(pool: ProcessPoolExecutor, wait: float = 2.0) -> str:
    """How the worker that broke ``pool`` ended, as far as its exit status tells (best effort).

    Its pipe closes a moment before it can be reaped, so its status is polled for up to ``wait`` seconds.
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())  # private, so read defensively
    deadline = time.monotonic() + wait
    while True:
        codes = [p.exitcode for p in processes]
        # the executor terminates the survivors (SIGTERM) once one dies: any other code is the cause
        cause = next((c for c in codes if c not in (None, 0, -signal.SIGTERM)), None)
        if cause is not None or None not in codes or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if cause is None:
        return "ended unexpectedly"
    if cause < 0:
        hint = " (the system may have run out of memory)" if -cause == signal.SIGKILL else ""
        return f"was killed by {_signal_name(-cause)}{hint}"
    return f"exited with status {cause}"


def _process_pool(workers: int, initargs: tuple[Any, ...]) -> ProcessPoolExecutor:
    """The pool of a ``--jobs`` run's ``workers`` processes, each set up by :func:`_init_worker`. Imported here,
    not at the top: multiprocessing and the executor cost a few milliseconds at every start, and a run without
    ``--jobs`` never needs them."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(_start_method()),
                               initializer=_init_worker, initargs=initargs)


def _score_in_workers(options: RunOptions, gold_by_id: Mapping[Any, GoldEntry] | None,
                      functions: Mapping[str, Any] | None, chunks: Iterator[list[tuple[int, bytes]]],
                      total: Summary, jobs: int, absorb: Callable[[Summary], None] | None = None) -> None:
    """Score ``chunks`` in ``jobs`` processes, merging their summaries into ``total`` in line order, then
    explain the run's worst here (:func:`explain_kept`: the workers send their worst unexplained).

    A worker that dies (SIGKILL, the OOM killer) raises :class:`WorkerDiedError` at once: a
    ``multiprocessing.Pool`` would wait forever for the lost chunk, while this executor watches
    its workers' sentinels and fails every pending chunk. ``absorb`` merges a chunk (default ``total.merge``).
    """
    absorb = absorb or total.merge
    # no more workers than the corpus has chunks to start with (a small corpus, or --jobs auto on many CPUs):
    # each worker costs its start (with spawn, an import of ek) and builds its own metrics
    ahead = list(islice(chunks, jobs))
    if not ahead:  # an empty corpus: nothing to start workers for
        return
    from concurrent.futures.process import BrokenProcessPool

    pool = _process_pool(len(ahead), (options, gold_by_id, functions))
    pending: deque[tuple[int, Future[Summary], list[tuple[int, bytes]]]] = deque()
    kept = KeptRaw()

    def next_done() -> None:  # the oldest chunk merged (left in pending until it is: its line names a death)
        stop_if_asked()  # a SIGTERM or SIGINT swallowed where it landed (a fork's callbacks) ends the run here
        part = pending[0][1].result()
        _first, _future, chunk = pending.popleft()
        absorb(part)
        if total.keep_details:
            kept.note(total, part, chunk)

    try:
        try:
            for chunk in chain(ahead, chunks):
                pending.append((chunk[0][0], _submit(pool, chunk, total.worst_floor()), chunk))
                while len(pending) >= 2 * jobs:
                    next_done()
            while pending:
                next_done()
        except BrokenProcessPool:
            first = pending[0][0] if pending else None
            where = f"; lines from {first} on were not scored" if first is not None else ""
            raise WorkerDiedError(f"a worker process {_death(pool)} while scoring{where}. The run is "
                                  "incomplete, so no report was written; try fewer --jobs or more "
                                  "memory") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    explain_kept(total, options, gold_by_id, functions, kept.raw)


def _submit(pool: ProcessPoolExecutor, chunk: list[tuple[int, bytes]],
            floor: tuple[float, float, int] | None) -> Future[Summary]:
    """``pool.submit`` of a chunk. The first one starts the workers (with fork, all of them): when the system
    refuses one (no file descriptors or processes left: ``ulimit -n``, ``ulimit -u``), the workers already
    started are stopped here, since the executor would never stop them (its manager thread is not running yet
    and the interpreter's exit waits for them), and the run ends as with a dead worker (exit 3), saying why."""
    try:
        with deferred():  # the first one starts the workers: a raise amid that leaves a pool shutdown cannot end
            return pool.submit(_score_chunk, chunk, floor)
    except OSError as exc:
        for process in list((getattr(pool, "_processes", None) or {}).values()):  # no public way to reach them
            process.kill()  # not SIGTERM: a worker not yet through _init_worker still has the CLI's handler
            process.join()
        raise WorkerDiedError(f"a worker process could not be started ({exc.strerror or exc}); no line was "
                              "scored and no report was written; try fewer --jobs, or raise the limit the "
                              "system named (ulimit -n for open files, ulimit -u for processes)") from None


def _chunks(lines: Iterator[tuple[int, bytes]], size: int, *, grow_every: int = 0, largest: int = 0,
            tail: int = 0) -> Iterator[list[tuple[int, bytes]]]:
    """``lines`` in lists of ``size`` (the last one shorter), each taken by ``islice`` in C, not line by line.
    ``grow_every``: the size doubles after that many chunks, up to ``largest``. ``tail`` > 0: past the first
    ``grow_every`` chunks (those a run starts its workers with, as it always did), each chunk is given once the
    next one is read, so the end is seen a chunk early, and the last full chunk with the lines after it come as
    :func:`_shrinking` pieces, ``tail`` of what is left each."""
    made = 0
    chunk = list(islice(lines, size))
    while chunk:
        made += 1
        if grow_every and made % grow_every == 0 and size < largest:
            size = min(2 * size, largest)
        if not tail or made <= grow_every:
            yield chunk
            chunk = list(islice(lines, size))
            continue
        following = list(islice(lines, size))
        if len(following) < size:  # the corpus ends in it: ``chunk`` and ``following`` are the run's last lines
            yield from _shrinking(chunk + following, tail)
            return
        yield chunk
        chunk = following


def _shrinking(lines: list[tuple[int, bytes]], parts: int) -> Iterator[list[tuple[int, bytes]]]:
    """``lines`` in pieces of a ``parts``-th of what is left each (at least :data:`TAIL_CHUNK_LINES`): a run's
    tail, so that its workers end together. Its chunks are taken by whichever worker is free, and the last
    ones are large: one worker could still score a full chunk while the others wait. Pieces that shrink as
    they go (a "guided" schedule) keep every worker busy until the last, short, piece."""
    start, n = 0, len(lines)
    while start < n:
        size = max(TAIL_CHUNK_LINES, (n - start) // parts)
        yield lines[start : start + size]
        start += size


def _run_chunks(lines: Iterator[tuple[int, bytes]], jobs: int) -> Iterator[list[tuple[int, bytes]]]:
    """A run's chunks: :data:`CHUNK_LINES` lines first (``jobs`` of them: a small corpus keeps every worker
    busy), doubling every ``jobs`` chunks up to :data:`SCORE_WINDOW_LINES` (lines of one question met again
    within a chunk are scored together: see :func:`_by_id`); with more than one job, its tail in pieces that
    shrink (:func:`_shrinking`, ``2 * jobs`` parts: the chunks a run keeps in flight)."""
    return _chunks(lines, CHUNK_LINES, grow_every=max(jobs, 1), largest=max(SCORE_WINDOW_LINES, CHUNK_LINES),
                   tail=2 * jobs if jobs > 1 else 0)


class _Metered:
    """Wraps the raw line stream to report bytes consumed to a progress callback."""

    def __init__(self, lines: Iterator[tuple[int, bytes]], tick: Callable[[int, int], None] | None) -> None:
        self._lines = lines
        self._tick = tick
        self.bytes = 0

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        for number, raw in self._lines:
            self.bytes += len(raw)
            if self._tick is not None and number % 256 == 0:
                self._tick(self.bytes, number)
            yield number, raw


def run(path: str | Sequence[str], options: RunOptions, *, jobs: int = 1,
        progress: Callable[[int, int], None] | None = None,
        export: Callable[[list[dict[str, Any]]], None] | None = None,
        inputs: RunInputs | None = None) -> RunResult:
    """Score the corpus at ``path`` (``-`` reads stdin; several paths or globs are read in order, see
    :mod:`ek.corpus.sources`). ``progress(bytes_read, lines_read)`` is called as it goes;
    with ``options.keep_export``, ``export(rows)`` gets each chunk's episode rows, in line order.
    ``inputs``: the gold and functions ``options`` name, already read (:func:`read_inputs`), else read here."""
    started = time.perf_counter()
    if inputs is None:
        inputs = read_inputs(options)
    gold_by_id, gold_errors, functions = inputs.gold_by_id, inputs.gold_errors, inputs.functions
    counts = LineCounts()
    total = options.new_summary()

    def absorb(part: Summary) -> None:
        """Merge the next chunk's summary, then hand its episode rows to ``export`` (memory stays flat)."""
        total.merge(part)
        if total.export:
            if export is not None:
                export(list(total.export))
            total.export.clear()

    with open_corpus(path, counts, tau_bench=options.tau_bench) as (lines, spans):
        metered = _Metered(lines, progress)
        # without a progress callback nothing reads the byte count: the lines are not passed through the meter
        stream = iter(metered) if progress is not None else lines
        if jobs <= 1:
            cache, memo = options.metric_cache(functions), _GoldMemo()
            for chunk in _run_chunks(stream, 1):
                absorb(score_lines(options, cache, chunk, gold_by_id, total.worst_floor(), details=False, memo=memo))
        else:
            _score_in_workers(options, gold_by_id, functions, _run_chunks(stream, jobs), total, jobs, absorb)
        # the kept explanations (at most the heap's size) followed their episodes through each merge:
        # alignments are built once, for the run's worst only
        total.attach_details(ATTACH)
        if progress is not None:
            progress(metered.bytes, counts.read)
    return RunResult(run_label(spans), total, counts, tuple(gold_errors), time.perf_counter() - started,
                     tuple(spans))


def file_size(path: str) -> int | None:
    """Size in bytes for the progress bar, or None for stdin."""
    if path == "-":
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


__all__ = ["CHUNK_LINES", "KeptRaw", "RunInputs", "RunOptions", "RunResult", "WorkerDiedError", "explain_kept",
           "read_inputs", "run", "score_episode", "score_lines"]
