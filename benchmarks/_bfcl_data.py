"""Where the BFCL benchmarks find BFCL's data, and its Python items (shared by bfcl_check.py, metric.py,
parsing.py and score.py; a helper, not a benchmark: ``scripts/bench`` skips files starting with ``_``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: BFCL's 1,000 Python items of the issue's measurements.
PYTHON_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


def installed_data() -> Path | None:
    """bfcl-eval's bundled data folder, or None when bfcl-eval is not installed (located, never imported)."""
    spec = importlib.util.find_spec("bfcl_eval")
    return None if spec is None or spec.origin is None else Path(spec.origin).parent / "data"


def data_dir(explicit: str | None) -> Path:
    """``--data``, else bfcl-eval's bundled data, else the sample in tests/data/bfcl."""
    if explicit:
        return Path(explicit)
    return installed_data() or ROOT / "tests" / "data" / "bfcl"


def python_text(decoded: list[Any]) -> str | None:
    """A decoded BFCL output (``[{"func": {"arg": value}}, ...]``) as the Python call text a prompting model writes
    (``[func(arg=value)]``), or None when Python cannot spell it (a value with no literal)."""
    from ek.calls import Step
    from ek.parsing import to_python

    try:
        return to_python([Step(name, args) for call in decoded for name, args in call.items()])
    except ValueError:
        return None


def load_items(data: Path, categories: tuple[str, ...] = PYTHON_CATEGORIES) -> list[tuple[str, Any, Any]]:
    """``(category, question, answer)`` for every item of ``categories`` whose two files ``data`` holds."""
    from ek.bfcl import pair_up, read_possible_answers, read_questions

    out = []
    for category in categories:
        q = data / f"BFCL_v4_{category}.json"
        a = data / "possible_answer" / f"BFCL_v4_{category}.json"
        if q.exists() and a.exists():
            out += [(category, qe, ae) for qe, ae in pair_up(read_questions(q), read_possible_answers(a))]
    return out
