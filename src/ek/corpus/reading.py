"""Reading a scoring corpus: JSON lines in, episodes or located line errors out, nothing lost.

A corpus line is one episode::

    {"id": "ep-1", "pred": "[search(q='cats')]", "gold": [{"name": "search", "arguments": {"q": "cats"}}],
     "grammar": "travel@2"}

The predicted output may sit under ``pred``, ``output``, ``prediction`` or
``completion`` (``result`` in BFCL result files) and be anything :func:`ek.parsing.parse_calls` reads (text or
decoded JSON). ``gold`` is a list of calls in the gold JSON of
:mod:`ek.goldjson`. ``id`` (string or integer) and ``grammar``
(``NAME@VERSION``) are optional; a gold file given separately supplies
``gold``/``grammar`` by ``id``.

Every non-blank line becomes exactly one :class:`Episode` or one
:class:`LineError`; blank lines are counted and skipped, so
``lines_read == episodes + errors + blank_lines`` always holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

import attrs

from ek.bfcl.data import Question, answer_text_reason, read_possible_answers, read_questions, underscored_answer
from ek.bfcl.gold import expects_no_call, expects_some_call, gold_calls
from ek.bfcl.multiturn import category_of_id, ground_truth_turns, is_steps
from ek.bfcl.signatures import Signatures, load_signatures
from ek.bfcl.variation import prompt_variation
from ek.boundedread import open_input
from ek.calls import ANY_CALL, Step
from ek.goldjson import any_call_gold, gold_from_json
from ek.grammar.diagnostics import did_you_mean, one_edit_apart
from ek.limits import CORPUS_LINE_MAX_BYTES, CORPUS_LINE_MAX_DEPTH
from ek.parsing import ParseError, get_format
from ek.parsing.limits import first_past_depth
from ek.parsing.values import long_int_reason
from ek.scorer.accounting import slot_setters
from ek.strictjson import DuplicateKeyError, unique_keys

#: Keys a predicted output may be stored under, in the order they are looked up (``result``: BFCL result files).
PRED_KEYS = ("pred", "output", "prediction", "completion", "result")

#: ``NAME@VERSION``: what a corpus line's ``grammar`` field must look like.
GRAMMAR_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*@[1-9][0-9]*")


@attrs.frozen
class Turn:
    """One turn of an episode: its raw predicted output and its gold calls.

    ``steps``: the output is a list of step outputs (BFCL multi-turn results: each step is one model reply),
    read one by one (:func:`ek.bfcl.multiturn.turn_calls`) rather than as one output.
    """

    pred: Any
    gold: tuple[Step, ...]
    steps: bool = False


@attrs.frozen
class Episode:
    """One scorable line: where it was, its id, the raw predicted output and the decoded gold calls.

    A multi-turn line has ``turns`` (and ``pred=None``, ``gold=()``); ``task`` and ``category`` are optional
    labels from the line (or, for ``category``, from BFCL's id).
    """

    line: int
    id: str | int | None
    pred: Any
    gold: tuple[Step, ...]
    grammar: str | None = None
    turns: tuple[Turn, ...] | None = None
    task: str | int | None = None
    category: str | None = None
    #: the line's model-output format (a registered name, see ek.parsing.format_names); None: the run's
    format: str | None = None

    @property
    def label(self) -> str:
        """How people see this episode: its id, or its line number when it has none."""
        return f"line {self.line}" if self.id is None else str(self.id)

    def all_turns(self) -> tuple[Turn, ...]:
        """The episode's turns; a single-turn line is one turn."""
        return self.turns if self.turns is not None else (Turn(self.pred, self.gold),)


@attrs.frozen
class LineError:
    """A corpus line that could not be scored: its 1-based line number, id when known, and why."""

    line: int
    id: str | int | None
    reason: str

    def __str__(self) -> str:
        who = f" (id {self.id!r})" if self.id is not None else ""
        return f"line {self.line}{who}: {self.reason}"


@attrs.frozen
class GoldEntry:
    """Gold calls (and the grammar they were written against) of one id in a separate gold file.

    ``turns``: per-turn gold of a multi-turn entry (BFCL ``multi_turn_*``); ``category``: its BFCL category.
    """

    gold: tuple[Step, ...]
    grammar: str | None = None
    turns: tuple[tuple[Step, ...], ...] | None = None
    category: str | None = None
    #: Why the gold file's entry for this id could not be read (None: it was): the id's lines are error lines
    #: that say so, rather than "not in the gold file".
    unreadable: str | None = None


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: A ``\\uD800``-``\\uDFFF`` escape: the only way a JSON line can smuggle in text that is not Unicode.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class LineDataError(ValueError):
    """A line that is JSON by syntax but not usable data (the message says why)."""


class NotUnicodeError(LineDataError):
    """A JSON line whose strings hold a lone UTF-16 surrogate: valid JSON syntax, but not text."""


#: Fast path of ``json.loads(text, object_pairs_hook=unique_keys)``, which builds this same decoder for
#: every call (``json.loads`` with a keyword makes a new ``JSONDecoder``): one decoder, built once. The only
#: other thing ``json.loads`` does for a ``str`` is refuse a leading BOM, which the caller sends its way.
_LINE_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)


def _check_unicode(text: str, obj: Any) -> None:
    if _SURROGATE_ESCAPE.search(text) is None:  # the common case costs one scan, no re-encoding
        return
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end].encode("unicode_escape").decode("ascii")
        raise NotUnicodeError(f"a lone UTF-16 surrogate ({bad}) is not Unicode text; "
                              "escape pairs must be complete (e.g. \\ud83d\\ude00)") from None


#: The C scanner behind ``_LINE_DECODER.decode`` (see :func:`_scan_line`).
_SCAN_ONCE = _LINE_DECODER.scan_once


def _scan_line(text: str) -> Any:
    """``_LINE_DECODER.decode(text)`` for a stripped line, calling its scanner directly.

    Fast path: ``decode`` wraps the scanner in two Python calls and two whitespace matches, which a
    stripped line does not need (``str.strip`` removes every JSON whitespace character, so the value
    starts at 0 and must end at the end). Anything else (no value, extra data after it) is decoded
    again the standard way, which raises the very error it always did.
    """
    try:
        obj, end = _SCAN_ONCE(text, 0)
    except StopIteration:
        return _LINE_DECODER.decode(text)
    if end != len(text):
        return _LINE_DECODER.decode(text)
    return obj


class OversizedLine(bytes):
    """What :func:`bounded_lines` gives in place of a line longer than the limit: ``size``, the bytes it held
    (up to its line break); reading it as a line is a :class:`LineDataError` saying so. Never blank, so it is
    counted as a line, and it pickles (a ``--jobs`` worker or a Ray task reads it)."""

    size: int

    def __new__(cls, size: int) -> OversizedLine:
        line = super().__new__(cls, b"?")
        line.size = size
        return line

    def __reduce__(self) -> tuple[type[OversizedLine], tuple[int]]:
        return OversizedLine, (self.size,)

    def reason(self) -> str:
        return (f"a line of {self.size:,} bytes, longer than ek reads ({CORPUS_LINE_MAX_BYTES:,} bytes, "
                "ek.limits.CORPUS_LINE_MAX_BYTES)")


#: Bytes of the rest of a line past the limit read at a time to skip it: each piece is a ``bytes`` of its own (and
#: a join of the stream's buffers), so pieces as long as the limit tripled the memory a line past it took.
_SKIPPED_PIECE = 1 << 20


def bounded_lines(stream: BinaryIO, limit: int = CORPUS_LINE_MAX_BYTES) -> Iterator[bytes]:
    """The physical lines of ``stream``, each with its line break, as iterating it gives them, except that a
    line longer than ``limit`` bytes is an :class:`OversizedLine` and its rest is skipped a megabyte at a time: a
    file with no line break (``/dev/zero``) holds at most that much in memory, and its next lines are read.

    >>> import io
    >>> [bytes(x) if type(x) is bytes else x.size for x in bounded_lines(io.BytesIO(b'ab\\n' + b'x' * 9 + b'\\nc'), 5)]
    [b'ab\\n', 10, b'c']
    """
    readline = stream.readline
    skip = min(limit, _SKIPPED_PIECE)
    for raw in iter(partial(readline, limit + 1), b""):  # C-level iteration: the usual line costs one check
        if len(raw) <= limit or raw[-1] == 10:  # 10: b"\n"
            yield raw
            continue
        size = len(raw)
        del raw  # held while the rest is skipped, it was a second line's worth of memory at the peak
        while (piece := readline(skip)) and piece[-1] != 10:
            size += len(piece)
        yield OversizedLine(size + len(piece))


def _decode_line(raw: bytes | str) -> Any:
    if type(raw) is OversizedLine:
        raise LineDataError(raw.reason())
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    # a byte order mark (Windows editors, concatenated files) is not part of the JSON text
    text = text.strip().removeprefix("\ufeff")
    if len(text) > 2 * CORPUS_LINE_MAX_DEPTH:  # a shorter line cannot nest past it: one length check
        _refuse_deep_line(text)
    try:
        obj = _scan_line(text) if not text.startswith("\ufeff") else \
            json.loads(text, object_pairs_hook=unique_keys)
    except (json.JSONDecodeError, LineDataError):
        raise
    except DuplicateKeyError as exc:
        raise LineDataError(str(exc)) from None
    except ValueError as exc:  # the only other one json raises: an integer past Python's int/str limit
        raise LineDataError(long_int_reason(exc)) from None
    if "\\u" in text:  # only a \u escape can smuggle in a lone surrogate: a line without one is not scanned
        _check_unicode(text, obj)
    return obj


def _refuse_deep_line(text: str) -> None:
    """A :class:`LineDataError` when the line's JSON nests deeper than :data:`ek.limits.CORPUS_LINE_MAX_DEPTH`
    (brackets inside strings not counted), so that no version of Python's decoder decides by recursing out.
    The brackets are counted first (C speed): a line with fewer cannot nest past it."""
    if text.count("[") + text.count("{") <= CORPUS_LINE_MAX_DEPTH:
        return
    if first_past_depth(text, CORPUS_LINE_MAX_DEPTH) is not None:
        raise LineDataError(f"invalid JSON: nested too deeply (deeper than {CORPUS_LINE_MAX_DEPTH} levels, "
                            "ek.limits.CORPUS_LINE_MAX_DEPTH)")


def _json_error(exc: json.JSONDecodeError) -> str:
    if not exc.doc:  # a line of characters Python counts as space but a blank line has none of (BOM, U+2028)
        return "no JSON on the line: only a byte order mark or Unicode spaces (U+2028, U+0085, ...)"
    if exc.msg.startswith("Invalid control character") and exc.pos < len(exc.doc):
        return (f"invalid JSON at column {exc.colno}: a raw control character (U+{ord(exc.doc[exc.pos]):04X}) "
                "inside a string; JSON needs it escaped (\\t, \\n, \\u0000)")
    cut = exc.pos >= len(exc.doc) or exc.msg.startswith("Unterminated string")
    hint = " (line cut short?)" if cut else ""
    return f"invalid JSON at column {exc.colno}: {exc.msg}{hint}"


def _pred_key(obj: Mapping[str, Any]) -> str | None:
    """The one of :data:`PRED_KEYS` the line (or turn) holds, or None; a ValueError when it holds two (which
    output is the model's would be a guess, as with a key given twice)."""
    found = None
    for key in PRED_KEYS:
        if key in obj:
            if found is not None:
                raise ValueError(f"the output is under both {found!r} and {key!r}: which one to score is "
                                 "ambiguous (keep one)")
            found = key
    return found


#: The keys of a corpus line ek reads, in the order a misspelling is matched against them.
LINE_READ_KEYS = ("id", "task", "category", "format", "grammar", "gold", "turns", *PRED_KEYS)
_LINE_READ_SET = frozenset(LINE_READ_KEYS)
#: The keys of a turn of a multi-turn line, and of a gold file's line.
_TURN_READ_KEYS = ("gold", *PRED_KEYS)
_TURN_READ_SET = frozenset(_TURN_READ_KEYS)
_GOLD_FILE_READ_KEYS = ("id", "gold", "grammar")
_GOLD_FILE_READ_SET = frozenset(_GOLD_FILE_READ_KEYS)


def _refuse_misspelt_key(obj: Mapping[str, Any], read_keys: tuple[str, ...], read_set: frozenset[str]) -> None:
    """A KeyError when the object has a key one edit away from one it lacks of those ek reads
    (:func:`ek.grammar.diagnostics.one_edit_apart`: ``taks``, ``grammer``, ``Gold``).

    Most of the keys are optional, so a misspelt one would be ignored without a word: ``taks`` leaves the
    samples of a task counted as separate tasks, ``grammer`` scores against the default grammar, ``fromat``
    reads the output in another format. Other keys (a result file's ``latency``, a dataset's own fields) are
    left alone, and so is a misspelt output key beside a correct one (only one output is read).
    """
    if read_set.issuperset(obj):
        return
    has_output = any(key in obj for key in PRED_KEYS)
    for key in obj:
        if key in read_set or not isinstance(key, str):
            continue
        for known in read_keys:
            if known in obj or (has_output and known in PRED_KEYS):
                continue
            if one_edit_apart(key, known):
                raise KeyError(f"key {key!r} is not one ek reads: did you mean {known!r}? (a misspelt key would "
                               "be ignored; rename or drop it)")


def _output_key_hint(obj: Mapping[str, Any]) -> str:
    """For a line without an output: the key of it that looks like one of :data:`PRED_KEYS`, if any."""
    for key in obj:
        if isinstance(key, str) and key not in _LINE_READ_SET:
            close = did_you_mean(key, PRED_KEYS)
            if close is not None:
                return f"; the line has {key!r}: did you mean {close!r}?"
    return ""


def _read_id(obj: Mapping[str, Any]) -> str | int | None:
    if "id" not in obj or obj["id"] is None:
        return None
    value = obj["id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"'id' must be a string or an integer, got {type(value).__name__}: {_short(value)}")
    return value


def _read_grammar(obj: Mapping[str, Any]) -> str | None:
    value = obj.get("grammar")
    if value is None:
        return None
    if not isinstance(value, str) or not GRAMMAR_REF.fullmatch(value):
        raise ValueError(f"'grammar' must be NAME@VERSION (e.g. \"travel@2\"), got {_short(value)}")
    return value


def _read_gold(value: Any) -> Any:
    """Gold calls as Steps, or :data:`ek.calls.ANY_CALL` for ``"any_call"``."""
    if any_call_gold(value):
        return ANY_CALL
    if isinstance(value, str):  # gold stored as JSON text (common in datasets with a fixed column type)
        # read as a line is (_decode_line): a key given twice, a lone surrogate or an integer too long to read are
        # refused in it as they are in gold written as JSON
        try:
            value = _decode_line(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"'gold' is a string but not JSON: {exc.msg} at column {exc.colno}") from None
        except RecursionError:
            raise ValueError("'gold' is a string holding JSON nested too deeply") from None
        except NotUnicodeError as exc:
            raise ValueError(f"'gold' is a string holding JSON that is not text: {exc}") from None
        except LineDataError as exc:  # an integer too long to read, a key given twice
            raise ValueError(f"'gold' is a string holding {exc}") from None
    try:
        return tuple(gold_from_json(value, "gold"))
    except RecursionError:
        raise ValueError("'gold' values are nested too deeply") from None


def _read_label(obj: Mapping[str, Any], key: str, kinds: tuple[type, ...]) -> Any:
    """An optional ``task`` (string or integer) or ``category`` (string) field."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        what = " or ".join("a string" if k is str else "an integer" for k in kinds)
        raise TypeError(f"{key!r} must be {what}, got {type(value).__name__}: {_short(value)}")
    return value


def _read_format(obj: Mapping[str, Any]) -> str | None:
    """An optional ``format``: the name of a registered model-output format (``llama3``, ``bfcl``, ...)."""
    value = obj.get("format")
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"'format' must be a string naming a model-output format, got {type(value).__name__}: "
                        f"{_short(value)}")
    get_format(value)  # an unknown name is this line's error, with the known names
    return value


#: Fields of a line that a multi-turn line's turns cannot hold: each applies to the whole line (a turn holding
#: one was read as if it did not, its output in the line's format, its calls checked against the line's grammar).
_LINE_KEYS = ("format", "grammar")


def _read_turns(value: Any) -> tuple[Turn, ...]:
    """The ``turns`` of a multi-turn line: a non-empty list of objects, each with a predicted output and gold."""
    if not isinstance(value, list) or not value:
        raise TypeError(f"'turns' must be a non-empty list of {{\"pred\": ..., \"gold\": [...]}} objects, "
                        f"got {_short(value)}")
    turns = []
    for i, turn in enumerate(value):
        if not isinstance(turn, dict):
            raise TypeError(f"turn {i}: expected an object with 'pred' and 'gold', got {type(turn).__name__}: "
                            f"{_short(turn)}")
        for key in _LINE_KEYS:
            if key in turn:
                raise ValueError(f"turn {i}: {key!r} applies to the whole line: put it beside 'turns', not in a "
                                 "turn")
        try:
            _refuse_misspelt_key(turn, _TURN_READ_KEYS, _TURN_READ_SET)
            pred_key = _pred_key(turn)
        except (KeyError, ValueError) as exc:
            raise type(exc)(f"turn {i}: {exc.args[0]}") from None
        if pred_key is None:
            keys = ", ".join(repr(k) for k in PRED_KEYS)
            raise KeyError(f"turn {i}: no predicted output: expected one of the keys {keys}{_output_key_hint(turn)}")
        if "gold" not in turn:
            raise KeyError(f"turn {i}: no 'gold' calls: every turn needs its own 'gold' (a list, [] for a turn "
                           "where no call is expected)")
        try:
            gold = _read_gold(turn["gold"])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"turn {i}: {exc}") from None
        turns.append(Turn(turn[pred_key], gold))
    return tuple(turns)


def _join_turns(pred: Any, gold_turns: tuple[tuple[Step, ...], ...]) -> tuple[Turn, ...]:
    """A BFCL multi-turn result (one output per turn) joined with per-turn gold.

    Turns the output lacks (a run cut short) are scored as unreadable outputs, so the episode is never exact,
    whatever their gold (BFCL fails such an entry: ``multi_turn:force_terminated``); more turns than gold is an
    error.
    """
    if not isinstance(pred, list):
        raise TypeError(f"the gold of this id has {len(gold_turns)} turns, so the output must be a list with one "
                        f"item per turn, got {type(pred).__name__}: {_short(pred)}")
    if len(pred) > len(gold_turns):
        raise ValueError(f"the output has {len(pred)} turns, the gold only {len(gold_turns)}")
    turns = [Turn(item, gold, steps=is_steps(item)) for item, gold in zip(pred, gold_turns)]
    if len(pred) < len(gold_turns):
        missing = ParseError(f"the output ends after {len(pred)} of the answer's {len(gold_turns)} turns (a run "
                             "cut short; BFCL fails the entry: multi_turn:force_terminated)", None, "bfcl")
        turns.extend(Turn(missing, gold) for gold in gold_turns[len(pred):])
    return tuple(turns)


def _other_type_hint(episode_id: str | int, gold_by_id: Mapping[Any, GoldEntry]) -> str:
    """Point out ``7`` vs ``"7"``: ids are compared with their JSON type."""
    if isinstance(episode_id, int) and str(episode_id) in gold_by_id:
        return f" (the gold file has the string {str(episode_id)!r}; ids must match in type too)"
    if isinstance(episode_id, str) and re.fullmatch(r"-?[0-9]{1,30}", episode_id) and int(episode_id) in gold_by_id:
        return f" (the gold file has the integer {int(episode_id)}; ids must match in type too)"
    return ""


def parse_episode(raw: bytes | str, line: int, gold_by_id: Mapping[Any, GoldEntry] | None = None,
                  *, shared_gold: bool = False, tau_bench: bool = False) -> Episode | LineError:
    """Decode one non-blank corpus line into an :class:`Episode`, or say why it cannot be scored.

    A line's own ``gold`` and ``grammar`` win over ``gold_by_id``; with ``shared_gold`` (``ek compare
    --gold``: two runs scored against one answer key) the gold file's entry wins and theirs are ignored.
    ``tau_bench``: the line is one entry of a tau-bench or tau2-bench results file, as
    :func:`tau_entry_lines` wrote it (``ek score --tau-bench``), read by :func:`_tau_episode`.

    >>> ep = parse_episode('{"id": 1, "pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 1}}]}', 3)
    >>> ep.line, ep.id, ep.pred, ep.gold, ep.turns
    (3, 1, 'f(x=1)', (Step(name='f', args={'x': 1}),), None)
    >>> print(parse_episode('{"turns": [{"pred": "f()", "gold": []}, {"pred": "g()"}]}', 6))
    line 6: turn 1: no 'gold' calls: every turn needs its own 'gold' (a list, [] for a turn where no call is expected)
    >>> print(parse_episode('{"id": "a", "gold": []}', 4))  # doctest: +ELLIPSIS
    line 4 (id 'a'): no predicted output: expected one of the keys 'pred', 'output', ..., 'result'
    >>> print(parse_episode('{"id": "b", "pred": "f()"', 5))
    line 5: invalid JSON at column 26: Expecting ',' delimiter (line cut short?)
    """
    try:
        obj = _decode_line(raw)
    except UnicodeDecodeError as exc:
        return LineError(line, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}")
    except json.JSONDecodeError as exc:
        hint = ""
        if exc.doc.strip() in ("[", "{"):
            hint = ("; is the file one indented JSON document? ek score reads JSON lines (one episode per line: "
                    "e.g. jq -c '.[]' FILE)")
        return LineError(line, None, _json_error(exc) + hint)
    except RecursionError:
        return LineError(line, None, "invalid JSON: nested too deeply")
    except LineDataError as exc:
        return LineError(line, None, str(exc))
    if not isinstance(obj, dict):
        return LineError(line, None, f"expected a JSON object per line, got {type(obj).__name__}: {_short(obj)}")
    if tau_bench:
        return _tau_episode(obj, line)
    if len(obj) == 2 and gold_by_id is not None and not shared_gold:
        fast = _bfcl_result_line(obj, line, gold_by_id)
        if fast is not None:
            return fast
    episode_id: str | int | None = None
    try:
        episode_id = _read_id(obj)
        _refuse_misspelt_key(obj, LINE_READ_KEYS, _LINE_READ_SET)
        task = _read_label(obj, "task", (str, int))
        category = _read_label(obj, "category", (str,))
        output_format = _read_format(obj)
        if "turns" in obj:
            episode = _multi_turn_line(obj, line, episode_id, task, category, gold_by_id, shared_gold)
            return attrs.evolve(episode, format=output_format) if isinstance(episode, Episode) else episode
        pred_key = _pred_key(obj)
        if pred_key is None:
            keys = ", ".join(repr(k) for k in PRED_KEYS)
            raise KeyError(f"no predicted output: expected one of the keys {keys}{_output_key_hint(obj)}")
        shared = shared_gold and gold_by_id is not None
        grammar = None if shared else _read_grammar(obj)
        if "gold" in obj and not shared:
            gold = _read_gold(obj["gold"])
        elif gold_by_id is not None:
            entry = _gold_entry(episode_id, gold_by_id, shared)
            category = category or entry.category
            if entry.turns is not None:
                turns = _join_turns(obj[pred_key], entry.turns)
                return Episode(line, episode_id, None, (), grammar or entry.grammar, turns, task, category,
                               output_format)
            gold = entry.gold
            grammar = grammar or entry.grammar
        else:
            raise KeyError("no 'gold' calls: expected the key 'gold' (a list of {\"name\", \"arguments\"} objects)")
    except (KeyError, TypeError, ValueError) as exc:
        reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        return LineError(line, episode_id, str(reason))
    return Episode(line, episode_id, obj[pred_key], gold, grammar, None, task, category, output_format)


def _bfcl_result_line(obj: dict[str, Any], line: int, gold_by_id: Mapping[Any, GoldEntry]) -> Episode | None:
    """Fast path of :func:`parse_episode` for a line of a BFCL result file, ``{"id": ..., "result": ...}``
    (two keys) whose string id has single-turn gold in the gold file: its :class:`Episode`, or None.

    What it skips, and why that is safe: the readers of the fields such a line does not hold (``task``,
    ``category``, ``format``, ``grammar``, ``turns``, ``gold``, the other output keys), which would each find
    nothing; what is left is what the general reading then does: the id (a string is valid as it is), the
    output under ``result``, and the gold, grammar and category of the id's entry. Any other line (an id
    the gold file lacks, multi-turn gold) returns None and takes the general reading, which words its error.
    """
    episode_id = obj.get("id")
    if type(episode_id) is not str or "result" not in obj:
        return None
    entry = gold_by_id.get(episode_id)
    if entry is None or entry.turns is not None or entry.unreadable is not None:
        return None
    return _one_turn_episode(line, episode_id, obj["result"], entry.gold, entry.grammar, entry.category)


#: Episode's slot setters, in its fields' order (see _one_turn_episode).
_EPISODE_SLOTS = slot_setters(Episode, *(field.name for field in attrs.fields(Episode)))


def _one_turn_episode(line: int, episode_id: str, pred: Any, gold: tuple[Step, ...], grammar: str | None,
                      category: str | None) -> Episode:
    """``Episode(line, episode_id, pred, gold, grammar, None, None, category)``, built as its ``__init__`` builds it
    but through its slots' own setters (:func:`ek.scorer.accounting.slot_setters`: about half the time of the
    ``object.__setattr__`` calls attrs writes for a frozen class; nine a line). Safe because that ``__init__``
    only sets each field (no converter, validator or post-init), which this does, every one."""
    episode = object.__new__(Episode)
    set_line, set_id, set_pred, set_gold, set_grammar, set_turns, set_task, set_category, set_format = _EPISODE_SLOTS
    set_line(episode, line)
    set_id(episode, episode_id)
    set_pred(episode, pred)
    set_gold(episode, gold)
    set_grammar(episode, grammar)
    set_turns(episode, None)
    set_task(episode, None)
    set_category(episode, category)
    set_format(episode, None)
    return episode


def _gold_entry(episode_id: Any, gold_by_id: Mapping[Any, GoldEntry], shared: bool) -> GoldEntry:
    lacks = "the shared gold file is the gold of every line" if shared else "no 'gold' on the line"
    if episode_id is None:
        raise KeyError(f"{lacks} and no 'id' to look it up in the gold file")
    entry = gold_by_id.get(episode_id)
    if entry is None:
        entry = _variation_entry(episode_id, gold_by_id)
    if entry is None:
        raise KeyError(f"{lacks} and id {episode_id!r} is not in the gold file"
                       + _other_type_hint(episode_id, gold_by_id))
    if entry.unreadable is not None:
        raise KeyError(f"{lacks}, and the gold file's entry for id {episode_id!r} could not be read: "
                       f"{entry.unreadable}")
    return entry


def _variation_entry(episode_id: Any, gold_by_id: Mapping[Any, GoldEntry]) -> GoldEntry | None:
    """The gold entry of a BFCL format-sensitivity id (:mod:`ek.bfcl.variation`): its original question's, under
    the category of its prompt configuration; None for any other id, or one whose question has no entry."""
    variation = prompt_variation(episode_id)
    entry = gold_by_id.get(variation.original_id) if variation is not None else None
    return attrs.evolve(entry, category=variation.category) if entry is not None else None  # type: ignore[union-attr]


def _multi_turn_line(obj: Mapping[str, Any], line: int, episode_id: Any, task: Any, category: Any,
                     gold_by_id: Mapping[Any, GoldEntry] | None, shared_gold: bool) -> Episode:
    """A line with ``turns``: per-turn outputs and gold, never mixed with a top-level ``pred``/``gold``."""
    mixed = [k for k in (*PRED_KEYS, "gold") if k in obj]
    if mixed:
        raise ValueError(f"'turns' holds the output and gold of every turn, but the line also has top-level "
                         f"{', '.join(repr(k) for k in mixed)}: give either 'turns' or a single-turn "
                         "'pred' and 'gold'")
    if shared_gold and gold_by_id is not None:
        raise ValueError("the shared --gold file holds single-turn gold, but this line has 'turns'")
    return Episode(line, episode_id, None, (), _read_grammar(obj), _read_turns(obj["turns"]), task, category)


# --------------------------------------------------------------------------- tau-bench and tau2-bench results

#: tau-bench's action that is a message to the user, not a tool call (``tau_bench.types.RESPOND_ACTION_NAME``):
#: left out of the gold, as tau-bench's reward leaves it out of the actions it replays.
TAU_RESPOND = "respond"

#: What a results file must be, for messages.
_TAU_SHAPES = ("a tau-bench results file (a JSON list of {task_id, reward, info, traj, trial} entries) or a "
               "tau2-bench one (a JSON object with 'tasks' and 'simulations')")


class TauFormatError(ValueError):
    """A file given to ``ek score --tau-bench`` that is not a tau-bench or tau2-bench results document."""


def _entry_line(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def tau_entry_lines(data: bytes) -> Iterator[bytes]:
    """The entries of a tau-bench or tau2-bench results file (its bytes, the whole document), each as one JSON
    line that :func:`parse_episode` reads with ``tau_bench=True``: the file's shape is told here, once, and each
    entry's line says which it is. Raises :class:`TauFormatError` when the document is not JSON or has neither
    shape; what is wrong inside one entry is that entry's error line, not the file's.

    tau-bench (``tau_bench/run.py`` writes ``[EnvRunResult.model_dump(), ...]``): each entry as it is, under
    ``tau_bench``. tau2-bench (``Results``: ``{"info", "tasks", "simulations", ...}``): each simulation under
    ``tau2_bench``, beside the ``evaluation_criteria`` of the task it ran (``task``: null when the file has no
    task of that id) and the run's domain (``info.environment_info.domain_name``).

    >>> [json.loads(x) for x in tau_entry_lines(b'[{"task_id": 3, "trial": 0}]')]
    [{'tau_bench': {'task_id': 3, 'trial': 0}}]
    """
    try:
        document = _decode_line(data)
    except UnicodeDecodeError as exc:
        raise TauFormatError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise TauFormatError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}; expected "
                             f"{_TAU_SHAPES}") from None
    except RecursionError:
        raise TauFormatError("invalid JSON: nested too deeply") from None
    except LineDataError as exc:  # a key given twice, a lone surrogate, an integer too long to read
        raise TauFormatError(str(exc)) from None
    if isinstance(document, list):
        for entry in document:
            yield _entry_line({"tau_bench": entry})
        return
    if not (isinstance(document, dict) and isinstance(document.get("tasks"), list)
            and isinstance(document.get("simulations"), list)):
        raise TauFormatError(f"expected {_TAU_SHAPES}, got {_short(document)}")
    if not document["simulations"] and document.get("simulation_index"):
        raise TauFormatError("a tau2-bench results file in the 'dir' format (its simulations are in the "
                             "simulations/ folder beside it), which ek does not read: save the run as one "
                             "JSON file (Results.save(path, format='json'))")
    criteria: dict[Any, Any] = {}
    for task in document["tasks"]:
        task_id = task.get("id") if isinstance(task, dict) else None
        if _is_task_id(task_id):
            criteria.setdefault(task_id, task.get("evaluation_criteria"))
    domain = _tau2_domain(document.get("info"))
    for simulation in document["simulations"]:
        task_id = simulation.get("task_id") if isinstance(simulation, dict) else None
        known = _is_task_id(task_id) and task_id in criteria
        task = {"evaluation_criteria": criteria[task_id]} if known else None
        yield _entry_line({"tau2_bench": simulation, "task": task, "domain": domain})


def _tau2_domain(info: Any) -> str | None:
    """The domain a tau2-bench run ran in (``airline``, ``retail``, ``telecom``, ...), or None."""
    environment = info.get("environment_info") if isinstance(info, dict) else None
    domain = environment.get("domain_name") if isinstance(environment, dict) else None
    return domain if isinstance(domain, str) else None


def _tau_episode(obj: Mapping[str, Any], line: int) -> Episode | LineError:
    """One (task, trial) of a tau-bench or tau2-bench run as an episode: its id ``TASK#TRIAL``, its ``task``
    the task id (so trials are samples: pass@k, pass^k), the agent's tool calls in order as the output (read
    as ``{"name", "arguments"}`` objects, format ``json``), the task's gold actions as the gold; or the
    entry's error line."""
    episode_id: str | None = None
    try:
        if "tau_bench" in obj:
            entry = obj["tau_bench"]
            if not isinstance(entry, dict):
                raise TypeError(f"a tau-bench entry must be an object, got {type(entry).__name__}: "
                                f"{_short(entry)}")
            task_id, trial = _tau_task_id(entry.get("task_id")), _tau_trial(entry.get("trial"))
            episode_id = f"{task_id}#{trial}"
            pred = _tau_bench_calls(entry.get("traj"))
            gold = _tau_bench_gold(entry.get("info"))
            return Episode(line, episode_id, pred, gold, None, None, task_id, None, "json")
        if "tau2_bench" in obj:
            simulation = obj["tau2_bench"]
            if not isinstance(simulation, dict):
                raise TypeError(f"a tau2-bench simulation must be an object, got {type(simulation).__name__}: "
                                f"{_short(simulation)}")
            task_id, trial = _tau_task_id(simulation.get("task_id")), simulation.get("trial")
            episode_id = f"{task_id}#{_tau_trial(trial)}" if trial is not None else f"{task_id}#{simulation.get('id')}"
            pred = _tau2_calls(simulation)
            gold = _tau2_gold(task_id, obj.get("task"))
            domain = obj.get("domain")
            return Episode(line, episode_id, pred, gold, None, None, task_id,
                           domain if isinstance(domain, str) else None, "json")
        raise ValueError(f"not an entry of a tau-bench results file: {_short(obj)}")
    except (KeyError, TypeError, ValueError) as exc:
        reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        return LineError(line, episode_id, str(reason))


def _is_task_id(value: Any) -> bool:
    """Whether ``value`` can be a tau-bench task id: an integer (not a bool) or a string."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _tau_task_id(value: Any) -> str | int:
    if not _is_task_id(value):
        raise TypeError(f"'task_id' must be an integer or a string, got {_short(value)}")
    return value


def _tau_trial(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"'trial' must be a whole number of at least 0, got {_short(value)}")
    return value


def _tau_messages(value: Any, key: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise TypeError(f"{key!r} must be a list of messages, got {_short(value)}")
    for i, message in enumerate(value):
        if not isinstance(message, dict):
            raise TypeError(f"{key}[{i}]: a message must be an object, got {_short(message)}")
    return value


def _tool_call_list(message: Mapping[str, Any], where: str) -> list[Any]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise TypeError(f"{where}.tool_calls must be a list, got {_short(calls)}")
    return calls


def _tau_bench_calls(traj: Any) -> list[Any]:
    """The agent's tool calls in a tau-bench trajectory, in order, as ``{"name", "arguments"}`` objects.

    A tool-calling agent's calls are the OpenAI ``tool_calls`` of its assistant messages (``arguments`` the JSON
    text the model wrote, read by the parser: a call it cannot read makes the output unparseable, scored as
    such). A ReAct or Act agent writes its action as text, ``Action:`` then ``{"name": ..., "arguments":
    ...}``, as tau-bench reads it (``ChatReActAgent.generate_next_step``); ``respond`` is a message to the user,
    not a call. A trajectory is read one way or the other: action text only when no message has ``tool_calls``
    (a ReAct agent's messages hold ``"tool_calls": null``, so the key alone does not tell). An item that is not
    a tool call is handed over as it is, for the parser to refuse."""
    replies = [(i, m) for i, m in enumerate(_tau_messages(traj, "traj")) if m.get("role") == "assistant"]
    calls: list[Any] = []
    for i, message in replies:
        calls.extend(_openai_call(item) for item in _tool_call_list(message, f"traj[{i}]"))
    if calls:
        return calls
    actions = (_react_call(message.get("content")) for _, message in replies)
    return [action for action in actions if action is not None]


def _openai_call(item: Any) -> Any:
    function = item.get("function") if isinstance(item, dict) else None
    if not isinstance(function, dict):
        return item
    return {"name": function.get("name"), "arguments": function.get("arguments")}


def _react_call(content: Any) -> dict[str, Any] | None:
    """The tool call a ReAct/Act agent's message names after its last ``Action:``, or None (no action, an
    action tau-bench cannot read, which it takes as a reply to the user, or ``respond``)."""
    if not isinstance(content, str) or "Action:" not in content:
        return None
    text = content.rsplit("Action:", 1)[1].strip()
    if not text.startswith("{"):
        return None
    try:
        action = _decode_line(text)
    except (ValueError, RecursionError):  # JSON errors and LineDataError are ValueErrors
        return None
    if not isinstance(action, dict) or not isinstance(action.get("name"), str) or action["name"] == TAU_RESPOND:
        return None
    return {"name": action["name"], "arguments": action.get("arguments")}


def _tau_bench_gold(info: Any) -> tuple[Step, ...]:
    """The gold calls of a tau-bench entry: its task's ``actions`` (``{"name", "kwargs"}``) but ``respond``."""
    if not isinstance(info, dict):
        raise TypeError(f"'info' must be an object holding the task, got {_short(info)}")
    task = info.get("task")
    if task is None and "error" in info:
        raise ValueError(f"the run of this task failed before it could be scored (info.error: "
                         f"{_short(info['error'])}): tau-bench counts it as reward 0, but the entry holds no task, "
                         "so no gold actions")
    if not isinstance(task, dict) or not isinstance(task.get("actions"), list):
        raise TypeError(f"info.task.actions must be a list of {{\"name\", \"kwargs\"}} actions, got "
                        f"{_short(task.get('actions') if isinstance(task, dict) else task)}")
    gold = []
    for i, action in enumerate(task["actions"]):
        if not isinstance(action, dict) or not isinstance(action.get("kwargs"), dict):
            raise TypeError(f"info.task.actions[{i}] must be {{\"name\", \"kwargs\": {{...}}}}, got {_short(action)}")
        if action.get("name") != TAU_RESPOND:
            gold.append({"name": action.get("name"), "arguments": action["kwargs"]})
    return _read_gold(gold)


def _tau2_calls(simulation: Mapping[str, Any]) -> list[Any]:
    """The tool calls of a tau2-bench simulation, in order: those of the agent and of the user (tau2-bench's
    ``ActionEvaluator.extract_tool_calls`` takes both: the user simulator has tools in some domains, and gold
    actions name either), each ``{"id", "name", "arguments", "requestor"}``."""
    messages = simulation.get("messages")
    if messages is None and simulation.get("ticks") is not None:
        raise ValueError("a full-duplex (voice) simulation: its calls are in 'ticks', which ek does not read")
    calls: list[Any] = []
    for i, message in enumerate(_tau_messages(messages, "messages")):
        if message.get("role") in ("assistant", "user"):
            for item in _tool_call_list(message, f"messages[{i}]"):
                calls.append({"name": item.get("name"), "arguments": item.get("arguments")}
                             if isinstance(item, dict) else item)
    return calls


def _tau2_gold(task_id: Any, task: Any) -> tuple[Step, ...]:
    """The gold calls of a tau2-bench simulation: its task's ``evaluation_criteria.actions`` (none: ``[]``)."""
    if not isinstance(task, dict):
        raise KeyError(f"task {task_id!r} is not among the file's tasks, so its gold actions are unknown")
    criteria = task.get("evaluation_criteria")
    if not isinstance(criteria, dict):
        raise TypeError(f"task {task_id!r} has no evaluation_criteria: nothing to score the calls against")
    actions = criteria.get("actions") or []
    if not isinstance(actions, list):
        raise TypeError(f"evaluation_criteria.actions of task {task_id!r} must be a list, got {_short(actions)}")
    gold = []
    for i, action in enumerate(actions):
        if not isinstance(action, dict) or not isinstance(action.get("arguments"), dict):
            raise TypeError(f"evaluation_criteria.actions[{i}] of task {task_id!r} must be {{\"name\", "
                            f"\"arguments\": {{...}}}}, got {_short(action)}")
        gold.append({"name": action.get("name"), "arguments": action["arguments"]})
    return _read_gold(gold)


@attrs.define
class LineCounts:
    """How many physical lines were read and how many of them were blank (mutable: filled while streaming)."""

    read: int = 0
    blank: int = 0


def iter_raw_lines(stream: BinaryIO, counts: LineCounts) -> Iterator[tuple[int, bytes]]:
    """``(line_number, raw_bytes)`` of every non-blank line, counting blank ones in ``counts``.

    >>> import io
    >>> c = LineCounts()
    >>> list(iter_raw_lines(io.BytesIO(b'{"a": 1}\\n\\n  \\n{"b": 2}'), c)), c
    ([(1, b'{"a": 1}\\n'), (4, b'{"b": 2}')], LineCounts(read=4, blank=2))
    """
    for number, raw in enumerate(stream, 1):
        counts.read = number
        if raw.strip():
            yield number, raw
        else:
            counts.blank += 1


def load_bfcl_answers(path: str | Path, source: str | Path | Signatures | None = None,
                      hints: Sequence[str | Path | None] = (), *, underscore_to_dot: bool = False
                      ) -> tuple[dict[Any, GoldEntry], list[LineError]]:
    """Gold calls by id from a BFCL ``possible_answer`` file (alternatives -> OneOf, ``""`` -> OMITTABLE).
    ``underscore_to_dot``: the functions named as a model BFCL marks so was shown them
    (:func:`ek.bfcl.underscored_answer`: ``math_hypot`` for ``math.hypot``).

    Multi-turn ground truth that passes an argument by position is bound by BFCL's API signatures
    (:mod:`ek.bfcl.signatures`: from ``source``, a folder or its signatures already read, else found beside
    ``path`` or ``hints``, else in the installed bfcl-eval), read once, on the first multi-turn answer.
    Raises :class:`ek.bfcl.BfclDataError` when the file is not BFCL's format;
    an entry whose answer cannot be converted is returned as an error. Both that entry and one whose ground
    truth is answer text (BFCL's agentic categories: :func:`ek.bfcl.data.answer_text_reason`) are kept as
    :attr:`GoldEntry.unreadable`, so that each line of their ids says why it is not scored.
    """
    entries: dict[Any, GoldEntry] = {}
    errors: list[LineError] = []
    signatures: Signatures | None = None
    looked = False
    for number, answer in enumerate(read_possible_answers(path), 1):
        if underscore_to_dot:
            answer = underscored_answer(answer)
        if answer.answer_text:  # not an error of the file (BFCL writes it so): the id's lines say why, if any
            entries.setdefault(answer.id, GoldEntry((), unreadable=f"entry {number}: {answer_text_reason(answer)}"))
            continue
        try:
            category = category_of_id(answer.id)
            if answer.multi_turn:
                if not looked:
                    signatures, looked = load_signatures(source, (path, *hints)), True
                turns = ground_truth_turns(answer.ground_truth, signatures)
                entries[answer.id] = GoldEntry((), turns=turns, category=category)
            else:
                entries[answer.id] = GoldEntry(tuple(gold_calls(answer.ground_truth)), category=category)
        except (TypeError, ValueError) as exc:
            errors.append(LineError(number, answer.id, f"entry {number}: {exc}"))
            entries.setdefault(answer.id, GoldEntry((), unreadable=f"entry {number}: {exc}"))
    return entries, errors


def load_bfcl_functions(path: str | Path | Sequence[Question]) -> dict[str, tuple[Mapping[str, Any], ...]]:
    """The function schemas offered by each BFCL question, by id (raises ``BfclDataError`` on a bad file).
    ``path``: a question file, or its questions already read (:func:`ek.bfcl.data.read_questions`)."""
    return {q.id: q.functions for q in _questions(path)}


def load_bfcl_abstentions(path: str | Path | Sequence[Question]) -> dict[str, GoldEntry]:
    """Gold by id for the questions of BFCL's categories that have no possible answers: ``[]`` for
    ``irrelevance``/``live_irrelevance`` (calling nothing is right), :data:`ek.calls.ANY_CALL` for
    ``live_relevance`` (some call, whichever, is right). ``path``: as for :func:`load_bfcl_functions`."""
    entries = {}
    for question in _questions(path):
        category = category_of_id(question.id)
        if expects_no_call(category):
            entries[question.id] = GoldEntry((), category=category)
        elif expects_some_call(category):
            entries[question.id] = GoldEntry(ANY_CALL, category=category)
    return entries


def _questions(path: str | Path | Sequence[Question]) -> Sequence[Question]:
    return read_questions(path) if isinstance(path, (str, Path)) else path


class _TooLong:
    """An integer too long to read, in :func:`_id_of_refused`'s lenient reading (no id can be one)."""


def _int_or_too_long(digits: str) -> int | _TooLong:
    try:
        return int(digits)
    except ValueError:  # past Python's int/str conversion limit
        return _TooLong()


def _id_of_refused(raw: bytes) -> str | int | None:
    """The id of a gold file line whose JSON ek refuses (a key given twice, a lone surrogate, an integer too long to
    read), read leniently: duplicate keys keep the last value, integers too long are no value. None when the line
    is no object, or has no ``id``, an ``id`` given twice, or one that is no id.

    >>> _id_of_refused(b'{"id": "q1", "gold": [{"name": "f", "arguments": {"x": 1, "x": 2}}]}')
    'q1'
    >>> _id_of_refused(b'{"id": 1, "id": 2, "gold": []}') is None
    True
    """
    top: list[list[tuple[str, Any]]] = [[]]

    def last_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        top[0] = pairs  # nested objects end first: the last one is the line's own
        return dict(pairs)

    try:
        obj = json.loads(raw, object_pairs_hook=last_object, parse_int=_int_or_too_long)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or [key for key, _ in top[0]].count("id") != 1:
        return None
    try:
        return _read_id(obj)
    except TypeError:
        return None


def load_gold_file(path: str | Path) -> tuple[dict[Any, GoldEntry], list[LineError], LineCounts]:
    """Read a gold file (JSON lines with ``id`` and ``gold``, optional ``grammar``) into a dict by id.

    Duplicate ids and bad lines are returned as errors, with their line numbers.
    """
    entries: dict[Any, GoldEntry] = {}
    first_line: dict[Any, int] = {}
    errors: list[LineError] = []
    counts = LineCounts()
    with open_input(path, streams=True) as stream:
        for number, raw in iter_raw_lines(bounded_lines(stream), counts):  # type: ignore[arg-type]
            try:
                obj = _decode_line(raw)
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, LineDataError) as exc:
                reason = (_json_error(exc) if isinstance(exc, json.JSONDecodeError) else str(exc)
                          if isinstance(exc, LineDataError) else f"unreadable: {exc}")
                # JSON that ek refuses but can read leniently: its id, so that the lines needing it say why
                salvaged = _id_of_refused(raw) if isinstance(exc, LineDataError) else None
                errors.append(LineError(number, salvaged, reason))
                if salvaged is not None and salvaged not in entries:
                    entries[salvaged] = GoldEntry((), unreadable=f"line {number}: {reason}")
                continue
            episode_id = None
            try:
                if not isinstance(obj, dict):
                    raise TypeError(f"expected a JSON object per line, got {type(obj).__name__}")
                episode_id = _read_id(obj)
                _refuse_misspelt_key(obj, _GOLD_FILE_READ_KEYS, _GOLD_FILE_READ_SET)
                if episode_id is None:
                    raise KeyError("a gold file line needs an 'id'")
                if "gold" not in obj:
                    raise KeyError("no 'gold' calls on this gold file line")
                if episode_id in first_line:
                    raise ValueError(f"duplicate id {episode_id!r} (first on line {first_line[episode_id]})")
                entries[episode_id] = GoldEntry(_read_gold(obj["gold"]), _read_grammar(obj))
                first_line[episode_id] = number
            except (KeyError, TypeError, ValueError) as exc:
                reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
                errors.append(LineError(number, episode_id, str(reason)))
                if episode_id is not None and episode_id not in entries:  # its lines say why (a later line may
                    # still give the id's gold: only a read entry counts as the first)
                    entries[episode_id] = GoldEntry((), unreadable=f"line {number}: {reason}")
    return entries, errors, counts


__all__ = [
    "GRAMMAR_REF",
    "LINE_READ_KEYS",
    "PRED_KEYS",
    "TAU_RESPOND",
    "Episode",
    "GoldEntry",
    "LineCounts",
    "LineDataError",
    "LineError",
    "NotUnicodeError",
    "OversizedLine",
    "TauFormatError",
    "Turn",
    "bounded_lines",
    "iter_raw_lines",
    "load_bfcl_abstentions",
    "load_bfcl_answers",
    "load_bfcl_functions",
    "load_gold_file",
    "parse_episode",
    "tau_entry_lines",
]
