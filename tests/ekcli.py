"""Running the real ``ek`` CLI as a subprocess (the one runner every CLI test uses), corpus files for it, and the
BFCL sample data's entries."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "travel"
SCHEMAS = REPO / "schemas"
#: BFCL's sample questions and answers bundled for the tests (tests/data/bfcl)
BFCL_SAMPLE = REPO / "tests" / "data" / "bfcl"


def bfcl_entry(entry_id: str) -> tuple[Any, Any, str]:
    """The question of ``entry_id`` in the bundled BFCL sample, its possible answer (None where the category
    has none) and its category."""
    from ek.bfcl import read_possible_answers, read_questions
    from ek.bfcl.multiturn import category_of_id

    category = category_of_id(entry_id)
    questions = {q.id: q for q in read_questions(BFCL_SAMPLE / f"BFCL_v4_{category}.json")}
    path = BFCL_SAMPLE / "possible_answer" / f"BFCL_v4_{category}.json"
    answers = {a.id: a for a in read_possible_answers(path)} if path.exists() else {}
    return questions[entry_id], answers.get(entry_id), category


def run_ek(*args: str | Path, stdin: str | None = None, cwd: Path | None = None,
           timeout: float = 120, env: dict[str, str] | None = None,
           stdin_file: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m ek ARGS``: the one way tests run the real CLI, with captured text output (stderr is not a
    TTY, so no progress bar), ``stdin`` as text (no stdin at all when None) and a timeout, so a hang fails;
    ``env``: variables set on top of this process's environment; ``stdin_file``: a file redirected to stdin, as
    the shell's ``< FILE`` does (the process can tell which file that is)."""
    if stdin_file is not None:
        with open(stdin_file, "rb") as handle:
            return subprocess.run([sys.executable, "-m", "ek", *map(str, args)], cwd=cwd, check=False,
                                  capture_output=True, text=True, stdin=handle, timeout=timeout,
                                  env=None if env is None else {**os.environ, **env})
    return subprocess.run([sys.executable, "-m", "ek", *map(str, args)], cwd=cwd, check=False, capture_output=True,
                          text=True, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          timeout=timeout, env=None if env is None else {**os.environ, **env})


def write_lines(path: Path, lines: list[Any]) -> Path:
    """Write each item as one line: dicts as JSON, strings verbatim (for corrupt lines)."""
    with open(path, "w", encoding="utf-8") as out:
        out.writelines((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in lines)
    return path


def gold(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Doha", "Quito", "Accra"]


def synthetic_corpus(path: Path, n: int, *, seed: int = 1, accuracy: float = 0.7, ids: bool = True,
                     with_gold: bool = True, corrupt_every: int = 0) -> Path:
    """A travel-like corpus of ``n`` lines: weather and flight calls, some wrong, some extra, some missing."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            if corrupt_every and i % corrupt_every == corrupt_every - 1:
                out.write(f'{{"id": "broken-{i}", "pred": "get_weather(\n')
                continue
            city = CITIES[i % len(CITIES)]
            gold_calls = [gold("get_weather", location=city)]
            right = rng.random() < accuracy
            said = city if right else rng.choice(CITIES)
            pred = f"get_weather(location={said!r})"
            if i % 7 == 0:
                gold_calls.append(gold("search_flights", origin="SFO", destination="JFK", date="2025-03-14"))
                if rng.random() < accuracy:
                    pred = f"[{pred}, search_flights(origin='SFO', destination='JFK', date='2025-03-14')]"
            if i % 11 == 0:
                pred = f"[{pred}, get_weather(location='Nowhere')]" if not pred.startswith("[") else pred
            line: dict[str, Any] = {"pred": pred}
            if ids:
                line["id"] = f"ep-{i}"
            if with_gold:
                line["gold"] = gold_calls
            out.write(json.dumps(line) + "\n")
    return path


def gold_file_for(path: Path, n: int) -> Path:
    """The gold calls of :func:`synthetic_corpus` by id, as a separate gold file."""
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            city = CITIES[i % len(CITIES)]
            gold_calls = [gold("get_weather", location=city)]
            if i % 7 == 0:
                gold_calls.append(gold("search_flights", origin="SFO", destination="JFK", date="2025-03-14"))
            out.write(json.dumps({"id": f"ep-{i}", "gold": gold_calls}) + "\n")
    return path
