"""ek.limits.MATCH_MAX_PAIRS: an episode with more pairs of calls to compare than the limit is refused with the
reason, at once, never scored for minutes; the pairs its exact-match paths take are not counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ekcli import run_ek, write_lines

from ek.calls import Step
from ek.scorer import metric as metric_module
from ek.scorer.metric import ToolCallMetric, TooManyPairs


@pytest.fixture
def limit_100(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metric_module, "MATCH_MAX_PAIRS", 100)


def _wrong(n: int, tool: str = "f") -> tuple[list[Step], list[tuple[str, dict[str, int]]]]:
    return [Step(tool, {"x": i}) for i in range(n)], [(tool, {"x": -i - 1}) for i in range(n)]


@pytest.mark.parametrize("order", ["any", "gold", "strict"])
@pytest.mark.parametrize("optimal", [False, True])
def test_up_to_the_limit_an_episode_is_scored_past_it_refused(limit_100: None, order: str, optimal: bool) -> None:
    metric = ToolCallMetric("arg", order=order, optimal=optimal)
    assert metric(*_wrong(10)).fn == 10  # 100 pairs: the limit (each pair: the name right, x wrong)
    with pytest.raises(TooManyPairs, match=r"too many calls to pair: 11 predicted and 11 gold calls of tool 'f' "
                                           r"to compare pair by pair, 121 pairs in the episode, more than 100"):
        metric(*_wrong(11))


def test_the_pairs_of_every_tool_count_together(limit_100: None) -> None:
    pred_f, gold_f = _wrong(7, "f")
    pred_g, gold_g = _wrong(8, "g")
    with pytest.raises(TooManyPairs, match="of tool 'g'.* 113 pairs"):  # 49 + 64
        ToolCallMetric("arg")(pred_f + pred_g, gold_f + gold_g)


def test_calls_an_exact_match_pairs_are_not_counted(limit_100: None) -> None:
    same = [Step("f", {"x": i}) for i in range(500)]
    pred, gold = _wrong(10)
    score = ToolCallMetric("arg")(same + pred, [(s.name, s.args) for s in same] + gold)
    assert (score.tp, score.fn) == (1010, 10)  # 500 exact calls (name and x), then 10 x 10 to rank


@pytest.mark.slow
def test_ek_score_refuses_such_a_line_and_scores_the_others(tmp_path: Path) -> None:
    n = 1_001  # 1,002,001 pairs: just past the real limit, refused before any pair is compared
    many = {"pred": [{"name": "f", "arguments": {"x": i}} for i in range(n)],
            "gold": [{"name": "f", "arguments": {"x": -i - 1}} for i in range(n)]}
    corpus = write_lines(tmp_path / "c.jsonl", [{"pred": "f(x=1)", "gold": [{"name": "f", "arguments": {"x": 1}}]},
                                                many, {"pred": "f(x=2)", "gold": [{"name": "f", "arguments": {"x": 2}}]}])
    done = run_ek("score", corpus, "--json", tmp_path / "r.json", "--allow-errors", timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["corpus"]["episodes_scored"], report["corpus"]["error_lines"]) == (2, 1)
    assert "line 2: cannot score: too many calls to pair: 1,001 predicted and 1,001 gold calls of tool 'f'" \
        in done.stdout, done.stdout
