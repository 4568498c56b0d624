"""Regenerate this folder's BFCL sample and BFCL's own verdicts on it (needs ``pip install bfcl-eval``).

Run from the repository root: ``python tests/data/bfcl/make_sample.py``. It copies the first
lines of each category (plus entries the docs cite) from the installed bfcl-eval data, derives
model outputs with :func:`ek.bfcl.variants.variants`, and records BFCL's checker verdict on each
in ``verdicts.jsonl``, so the default test suite compares ek with BFCL without needing BFCL.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "simple_java", "simple_javascript",
)
#: Multi-turn categories: questions and answers are copied (ek scores them turn by turn; BFCL's checker
#: executes them, so there are no AST verdicts to record).
MULTI_TURN = ("multi_turn_base",)
PER_CATEGORY = 20
#: Entries docs/bfcl.md cites as examples of where ek and BFCL differ.
CITED = {"parallel_178", "simple_python_13", "live_simple_116-72-0", "simple_java_35", "simple_java_78"}
HERE = Path(__file__).parent


def _select(path: Path, ids: set[str] | None) -> list[str]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if ids is None:
        return [line for i, line in enumerate(lines) if i < PER_CATEGORY or json.loads(line)["id"] in CITED]
    return [line for line in lines if json.loads(line)["id"] in ids]


def main() -> int:
    from ek.bfcl import check, pair_up, read_possible_answers, read_questions
    from ek.bfcl.oracle import load_bfcl_checker
    from ek.bfcl.variants import variants

    oracle = load_bfcl_checker()
    spec = importlib.util.find_spec("bfcl_eval")
    if oracle is None or spec is None or spec.origin is None:
        print("bfcl-eval is not installed", file=sys.stderr)
        return 1
    data = Path(spec.origin).parent / "data"
    verdicts = []
    for category in CATEGORIES:
        questions = _select(data / f"BFCL_v4_{category}.json", None)
        ids = {json.loads(line)["id"] for line in questions}
        answers = _select(data / "possible_answer" / f"BFCL_v4_{category}.json", ids)
        (HERE / f"BFCL_v4_{category}.json").write_text("\n".join(questions) + "\n", encoding="utf-8")
        (HERE / "possible_answer").mkdir(exist_ok=True)
        (HERE / "possible_answer" / f"BFCL_v4_{category}.json").write_text("\n".join(answers) + "\n", encoding="utf-8")
        rng = random.Random(category)
        pairs = pair_up(read_questions(HERE / f"BFCL_v4_{category}.json"),
                        read_possible_answers(HERE / "possible_answer" / f"BFCL_v4_{category}.json"))
        for question, answer in pairs:
            for label, output in variants(question.functions, answer.ground_truth, category, rng):
                bfcl = oracle(json.loads(json.dumps(question.functions)), json.loads(json.dumps(output)),
                              json.loads(json.dumps(answer.ground_truth)), category)
                verdicts.append({"category": category, "id": question.id, "label": label, "output": output,
                                 "bfcl_valid": bfcl["valid"], "bfcl_error_type": bfcl.get("error_type", "")})
                check(question.functions, output, answer.ground_truth, category)  # must not raise
    with open(HERE / "verdicts.jsonl", "w", encoding="utf-8") as handle:
        for verdict in verdicts:
            handle.write(json.dumps(verdict, separators=(",", ":")) + "\n")
    for category in MULTI_TURN:
        questions = _select(data / f"BFCL_v4_{category}.json", None)
        ids = {json.loads(line)["id"] for line in questions}
        answers = _select(data / "possible_answer" / f"BFCL_v4_{category}.json", ids)
        (HERE / f"BFCL_v4_{category}.json").write_text("\n".join(questions) + "\n", encoding="utf-8")
        (HERE / "possible_answer" / f"BFCL_v4_{category}.json").write_text("\n".join(answers) + "\n", encoding="utf-8")
    for category in ("irrelevance", "live_relevance"):  # no possible answers: the questions alone
        questions = _select(data / f"BFCL_v4_{category}.json", None)
        (HERE / f"BFCL_v4_{category}.json").write_text("\n".join(questions) + "\n", encoding="utf-8")
    print(f"{len(verdicts)} verdicts written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
