"""Reading BFCL's data files: question entries and possible-answer entries, one JSON object per line.

BFCL names them ``*.json`` but they are JSON lines. Each question has an
``id``, the ``question`` turns and a ``function`` list of schemas; each
possible answer has the same ``id`` and a ``ground_truth`` list of
``{func_name: {param: [acceptable values...]}}`` with ``""`` = may be omitted.
"""

from __future__ import annotations

import json
import json.scanner
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from ek.bfcl.multiturn import is_multi_turn_answer
from ek.boundedread import open_input
from ek.parsing.values import long_int_reason


class BfclDataError(ValueError):
    """A BFCL data line that is not what BFCL writes: ``FILE:LINE: reason``."""


@attrs.frozen
class Question:
    """One BFCL test entry: its id, the conversation turns and the function schemas offered."""

    id: str
    functions: tuple[Mapping[str, Any], ...]
    question: Any = None


@attrs.frozen
class PossibleAnswer:
    """One BFCL ground truth: a list of ``{func_name: {param: [alternatives]}}``."""

    id: str
    ground_truth: tuple[Any, ...]
    #: :func:`is_multi_turn_answer` of ``ground_truth`` when the reader worked it out already (None: not yet).
    #: Not part of equality or the repr: it is a function of ``ground_truth``, kept so it is not worked out twice.
    known_multi_turn: bool | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    @property
    def multi_turn(self) -> bool:
        """Per-turn lists of call strings (``multi_turn_*`` categories) rather than ``{func: {param: [...]}}``."""
        known = self.known_multi_turn
        return known if known is not None else is_multi_turn_answer(self.ground_truth)

    @property
    def answer_text(self) -> bool:
        """The accepted texts of the final answer (``["Michael"]``), not calls: BFCL's agentic categories
        (``web_search``, ``memory``), which BFCL scores by the answer's words. ek scores tool calls:
        :func:`answer_text_reason` says so for such an entry."""
        return bool(self.ground_truth) and all(type(text) is str for text in self.ground_truth)


def answer_text_reason(answer: PossibleAnswer) -> str:
    """Why an entry whose ground truth is answer text (:attr:`PossibleAnswer.answer_text`) is not scored.

    >>> answer_text_reason(PossibleAnswer("memory_0-customer-0", ("Michael",)))
    "memory_0-customer-0 is of BFCL's agentic categories (web_search, memory): its ground truth is the final \
answer's text (['Michael']), not tool calls; ek scores tool calls, so it has no gold calls to score against"
    """
    shown = list(answer.ground_truth[:3]) + (["..."] if len(answer.ground_truth) > 3 else [])
    return (f"{answer.id} is of BFCL's agentic categories (web_search, memory): its ground truth is the final "
            f"answer's text ({str(shown)[:200]}), not tool calls; ek scores tool calls, so it has no gold calls "
            "to score against")


def underscored_name(name: str) -> str:
    """A function name as BFCL shows it to a model whose API takes no ``.`` in names: every ``.`` an ``_``.

    BFCL's model table marks those models ``underscore_to_dot`` (the function-calling APIs of OpenAI and
    other hosted models): they are shown ``math_hypot`` for ``math.hypot``, answer with that name, and
    BFCL's checker compares their calls with the expected names written the same way.

    >>> underscored_name("math.hypot"), underscored_name("get_weather")
    ('math_hypot', 'get_weather')
    """
    return name.replace(".", "_")


def underscored_question(question: Question) -> Question:
    """``question`` with its functions named as an ``underscore_to_dot`` model was shown them
    (:func:`underscored_name`); a question without a dotted name is given back as it is."""
    functions = question.functions
    if not any("." in f["name"] for f in functions):
        return question
    shown = tuple({**f, "name": underscored_name(f["name"])} if "." in f["name"] else f for f in functions)
    return attrs.evolve(question, functions=shown)


def underscored_answer(answer: PossibleAnswer) -> PossibleAnswer:
    """``answer`` with the functions it expects named as an ``underscore_to_dot`` model was shown them
    (:func:`underscored_name`). A multi-turn answer is given back as it is: its calls are methods of BFCL's
    API classes, whose names hold no ``.``, and BFCL's multi-turn checker renames nothing. So is an answer
    that is text (:attr:`PossibleAnswer.answer_text`: ``["3.5 million"]``), which names no function."""
    if answer.multi_turn or answer.answer_text or not any("." in name for call in answer.ground_truth for name in call):
        return answer
    truth = tuple({underscored_name(name): args for name, args in call.items()} for call in answer.ground_truth)
    return attrs.evolve(answer, ground_truth=truth)


def bfcl_files(path: str | Path) -> list[Path]:
    """The files a BFCL data path names: the file itself, or a folder's ``*.json`` files in name order (BFCL's
    ``data/`` or ``data/possible_answer/``: every category at once), less BFCL's format-sensitivity list
    (``BFCL_v4_format_sensitivity.json``: the ids of other categories' questions, no entries of its own)."""
    given = Path(path)
    if not given.is_dir():
        return [given]
    files = sorted(f for f in given.iterdir() if f.suffix == ".json" and "format_sensitivity" not in f.name
                   and f.is_file())
    if not files:
        raise BfclDataError(f"{path}: a folder without BFCL data files (*.json)")
    return files


def _lines(path: str | Path) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """Each entry of the BFCL data files at ``path`` (:func:`bfcl_files`), with its file and line number."""
    for file in bfcl_files(path):
        yield from _file_lines(file)


def _file_lines(path: Path) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    with open_input(path) as handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BfclDataError(f"{path}:{number}: not UTF-8: {exc.reason} at byte {exc.start} of the line") \
                    from None
            if not line or line.isspace():  # blank (what ``not line.strip()`` says, without a copy of the line)
                continue
            try:
                entry = _json_object(line)
            except json.JSONDecodeError as exc:
                hint = ""
                if number == 1 and line.strip() in ("{", "["):
                    hint = " (BFCL files are JSON lines, one entry per line; this looks like one indented document)"
                raise BfclDataError(f"{path}:{number}: not JSON lines: {exc.msg} (column {exc.colno}){hint}") \
                    from None
            except RecursionError:
                raise BfclDataError(f"{path}:{number}: JSON nests too deeply to read") from None
            except ValueError as exc:  # an integer past Python's int/str conversion limit
                raise BfclDataError(f"{path}:{number}: {long_int_reason(exc)}") from None
            if not isinstance(entry, dict):
                raise BfclDataError(f"{path}:{number}: expected a JSON object, got {type(entry).__name__}")
            yield path, number, entry


#: What ``json.loads`` runs on a text (the C scanner when the interpreter has it), made with its defaults.
_scan_once = json.scanner.make_scanner(json.JSONDecoder())


def _json_object(line: str) -> Any:
    """``json.loads(line)``, with a fast path for a line that is one JSON object and its line break.

    It skips ``json.loads``' Python-level frames and its two whitespace regex matches (around the value)
    by running the scanner they run, at the line's first character: on a line that starts with ``{`` and
    whose value ends at its end or at its ``\n``/``\r\n``, that is the whole of what ``json.loads`` does.
    Any other line, and any line the scanner fails on, goes to ``json.loads`` itself, which gives the
    value or raises its own error. tests/bfcl/test_bfcl_data.py holds it to ``json.loads``.
    """
    if line[:1] == "{":
        try:
            value, end = _scan_once(line, 0)
        except Exception:  # noqa: BLE001 - json.loads below raises what json.loads raises
            return json.loads(line)
        rest = len(line) - end
        if rest == 0 or (rest == 1 and line[end] == "\n") or (rest == 2 and line[end:] == "\r\n"):
            return value
    return json.loads(line)


def _require(entry: dict[str, Any], key: str, kind: type, path: str | Path, number: int) -> Any:
    """``entry[key]`` when it is a ``kind``; else the error, at ``path:number`` (the place written only then)."""
    value = entry.get(key)
    if not isinstance(value, kind):
        raise BfclDataError(f"{path}:{number}: {key!r} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def read_questions(path: str | Path) -> list[Question]:
    """Every question entry of a BFCL question file, or of a folder of them (:func:`bfcl_files`); entries
    without functions get an empty tuple."""
    out = []
    for file, number, entry in _lines(path):
        functions = entry.get("function", [])
        if not isinstance(functions, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                                      for f in functions):
            raise BfclDataError(f"{file}:{number}: 'function' must be a list of objects with a 'name'")
        out.append(Question(_require(entry, "id", str, file, number), tuple(functions), entry.get("question")))
    return out


def read_possible_answers(path: str | Path) -> list[PossibleAnswer]:
    """Every entry of a BFCL ``possible_answer`` file, or of a folder of them (:func:`bfcl_files`)."""
    out = []
    for file, number, entry in _lines(path):
        truth = _require(entry, "ground_truth", list, file, number)
        # (a first call that is a dict, as in every answer but multi_turn_*'s, is no turn: not multi-turn,
        # which is_multi_turn_answer would say after a generator's first step)
        if (not truth or type(truth[0]) is not dict) and is_multi_turn_answer(truth):  # per turn, call strings
            out.append(PossibleAnswer(_require(entry, "id", str, file, number), tuple(truth), known_multi_turn=True))
            continue
        if truth and all(type(text) is str for text in truth):  # answer text (PossibleAnswer.answer_text)
            out.append(PossibleAnswer(_require(entry, "id", str, file, number), tuple(truth), known_multi_turn=False))
            continue
        for i, call in enumerate(truth):
            if not isinstance(call, dict) or len(call) != 1 or not isinstance(next(iter(call.values())), dict):
                raise BfclDataError(f"{file}:{number}: ground_truth[{i}] must be {{func_name: {{param: [values]}}}}")
        out.append(PossibleAnswer(_require(entry, "id", str, file, number), tuple(truth), known_multi_turn=False))
    return out


def pair_up(questions: list[Question], answers: list[PossibleAnswer]) -> list[tuple[Question, PossibleAnswer]]:
    """Questions with their answers, matched by id; a question without an answer is an error."""
    by_id = {a.id: a for a in answers}
    missing = [q.id for q in questions if q.id not in by_id]
    if missing:
        raise BfclDataError(f"no possible answer for {len(missing)} question(s), e.g. {missing[:3]}")
    return [(q, by_id[q.id]) for q in questions]


@attrs.frozen
class Episode:
    """One BFCL entry ready to score: its category, function schemas and ground truth."""

    id: str
    category: str
    functions: tuple[Mapping[str, Any], ...]
    ground_truth: tuple[Mapping[str, Any], ...]

    def gold(self) -> list[Any]:
        """The ground truth as gold steps (``OneOf``/``OMITTABLE`` values)."""
        from ek.bfcl.gold import gold_calls

        return gold_calls(self.ground_truth)

    def grammar(self, version: int = 1) -> Any:
        """The entry's functions as a grammar named after the entry (issues: ``to_grammar``)."""
        from ek.bfcl.grammar import to_grammar

        return to_grammar(self.functions, name=self.id, version=version).grammar


_CATEGORY = re.compile(r"BFCL_v\d+_(?P<category>.+)\.json$")


def category_of(path: str | Path) -> str:
    """The category in a BFCL file name.

    >>> category_of("data/BFCL_v4_live_parallel_multiple.json")
    'live_parallel_multiple'
    """
    match = _CATEGORY.search(Path(path).name)
    if match is None:
        raise BfclDataError(f"{path}: not a BFCL file name (BFCL_v<N>_<category>.json); pass category=")
    return match.group("category")


def load_category(questions: str | Path, answers: str | Path | None = None,
                  category: str | None = None) -> list[Episode]:
    """Every entry of a BFCL question file with its answer (default: ``possible_answer/`` beside it).

    The category comes from the file name unless given.
    """
    questions = Path(questions)
    answers = Path(answers) if answers is not None else questions.parent / "possible_answer" / questions.name
    category = category or category_of(questions)
    pairs = pair_up(read_questions(questions), read_possible_answers(answers))
    for _q, a in pairs:
        if a.answer_text:
            raise BfclDataError(f"{answers}: {answer_text_reason(a)}")
    return [Episode(q.id, category, q.functions, a.ground_truth) for q, a in pairs]
