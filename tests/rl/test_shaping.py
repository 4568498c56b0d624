"""Reward shaping (docs/rl.md): the formulas, their ranges, one implementation behind TRL, verl and OpenRLHF,
and caches that hold up under many threads."""

from __future__ import annotations

import json
import threading
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from ekcli import SCHEMAS
from hypothesis import given, settings
from hypothesis import strategies as st

from ek import ToolCallMetric, rewards
from ek.rewards import RewardOptions, gold_calls, make_tool_call_reward, score_calls, scorer_for, tool_call_reward
from ek.rl.openrlhf import make_reward_func
from ek.rl.verl import compute_score, make_compute_score

GOLD = json.dumps([{"name": "f", "arguments": {"a": 1, "b": "x", "c": True, "d": None}},
                   {"name": "g", "arguments": {}}])
EXTRA = {"num_turns": 1, "rollout_reward_scores": {}}


def _partial(completion: str, gold: str = GOLD, **options: object) -> float:
    return score_calls(completion, gold_calls(gold), RewardOptions(level="partial", **options))  # type: ignore[arg-type]


def test_partial_credit_formula() -> None:
    # one pair f with 4 gold arguments: names right 3/4 (d missing), values right 2/4 (a, b); g is missed
    credit_f = (0.2 + 0.3 * 3 / 4 + 0.5 * 2 / 4) / 1.0
    assert _partial("[f(a=1, b='X', c=False)]") == pytest.approx(2 * credit_f / (1 + 2))
    # an extra argument counts against the names and values shares; a right call without arguments earns 1
    credit_f = 0.2 + 0.3 * 4 / 5 + 0.5 * 4 / 5
    assert _partial("[f(a=1, b='x', c=True, d=None, e=0), g()]") == pytest.approx(2 * (credit_f + 1) / 4)
    assert _partial("[f(a=1, b='x', c=True, d=None), g()]") == 1.0
    assert _partial("[h(a=1)]") == 0.0  # the wrong tool earns nothing
    # custom weights: only the name counts
    assert _partial("[f(a=2), g(z=1)]", partial_weights=(1, 0, 0)) == 1.0
    assert _partial("[]", gold="[]") == 1.0 and _partial("[f()]", gold="[]") == 0.0


def test_partial_credit_follows_the_grammar_weights() -> None:
    gold = json.dumps([{"name": "search_flights", "arguments": {"origin": "SFO", "destination": "JFK",
                                                                "date": "2025-03-14"}}])
    grammar = str(SCHEMAS / "travel-v2.ek")
    right = "[search_flights(origin='SFO', destination='JFK', date='2025-03-14')]"
    assert _partial(right, gold, grammar=grammar) == 1.0
    wrong = _partial("[search_flights(origin='SFO', destination='LAX', date='2025-03-14')]", gold, grammar=grammar)
    assert 0.5 < wrong < 1.0


def test_exact_mode_is_bonus_free() -> None:
    exact = RewardOptions(level="exact")
    gold = gold_calls(GOLD)
    assert score_calls("[g(), f(a=1.0, b=' X ', c=True, d=None)]", gold, exact) == 1.0
    for almost in ["[f(a=1, b='x', c=True, d=None)]", "[f(a=1, b='x', c=True, d=None), g(), g()]",
                   "[f(a=1, b='x', c=1, d=None), g()]"]:
        assert score_calls(almost, gold, exact) == 0.0
    assert score_calls("garbage(", gold_calls("[]"), exact) == 0.0  # garbage is never an abstention


def test_format_penalty() -> None:
    penalised = RewardOptions(unparseable=-0.5)
    assert score_calls("[f(", gold_calls(GOLD), penalised) == -0.5
    assert score_calls("[f()]", gold_calls(GOLD), penalised) == 0.0
    assert penalised.range() == (-0.5, 1.0) and RewardOptions().range() == (0.0, 1.0)


def test_bad_options_fail_when_built() -> None:
    for bad, why in [({"level": "strictest"}, "level must be one of"), ({"unparseable": 2}, "unparseable must be"),
                     ({"unparseable": float("nan")}, "unparseable must be"),
                     ({"partial_weights": (1, 1)}, "three finite numbers"),
                     ({"partial_weights": (1, -1, 1)}, "three finite numbers"),
                     ({"partial_weights": "abc"}, "three numbers"), ({"format": "nope"}, "unknown format")]:
        with pytest.raises(ValueError, match=why):
            scorer_for(RewardOptions(**bad))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level must be one of"):
        make_tool_call_reward(level="strictest")


COMPLETIONS = ["[f(a=1, b='x', c=True, d=None), g()]", "[f(a=1, b='y')]", "[g(), g()]", "[h()]", "", "[f(",
               '<tool_call>{"name": "g", "arguments": {}}</tool_call>']


@pytest.mark.parametrize("options", [{}, {"level": "arg"}, {"level": "partial"}, {"level": "exact"},
                                     {"level": "partial", "partial_weights": (0, 1, 1), "unparseable": -1.0},
                                     {"level": "arg", "canonicalizer": "exact", "optimal": True, "order": "strict"}])
def test_one_implementation_behind_trl_verl_and_openrlhf(options: dict) -> None:
    trl = make_tool_call_reward(**options)(COMPLETIONS, gold_calls=[GOLD] * len(COMPLETIONS))
    verl = [compute_score(data_source="t", solution_str=c, ground_truth=GOLD, extra_info=EXTRA, **options)["score"]
            for c in COMPLETIONS]
    openrlhf = make_reward_func(**options)(["P" + c + "<|im_end|>" for c in COMPLETIONS], ["P"] * len(COMPLETIONS),
                                           [GOLD] * len(COMPLETIONS))["rewards"]
    assert trl == verl == openrlhf
    if not options:
        assert trl == tool_call_reward(COMPLETIONS, gold_calls=[GOLD] * len(COMPLETIONS))


names = st.sampled_from(["f", "g", "h"])
arg_values = st.sampled_from([1, 2, 1.5, "x", "X", True, None, [1], {"k": 1}])
call_text = st.builds(lambda n, a: f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})", names,
                      st.dictionaries(st.sampled_from(["a", "b", "c"]), arg_values, max_size=3))


@settings(max_examples=150, deadline=None)
@given(calls=st.lists(call_text, max_size=4), garbage=st.booleans(), level=st.sampled_from(rewards.REWARD_LEVELS),
       unparseable=st.sampled_from([0.0, -1.0]))
def test_every_reward_is_in_its_documented_range(calls: list[str], garbage: bool, level: str,
                                                 unparseable: float) -> None:
    options = RewardOptions(level=level, unparseable=unparseable)
    text = "[" + ", ".join(calls) + "]" + ("(" if garbage else "")
    result = score_calls(text, gold_calls(GOLD), options, details=True)
    low, high = options.range()
    assert low <= result.score <= high
    assert all(0.0 <= v <= 1.0 for v in result.extras().values())
    if level == "partial" and result.format_ok:
        assert result.score >= result.call_f1  # partial credit only adds to exact calls' credit


def test_caches_under_many_threads() -> None:
    golds = [json.dumps([{"name": "f", "arguments": {"a": i}}]) for i in range(50)]
    jobs = [(f"[f(a={i % 7})]", golds[i % 50], level) for i in range(600) for level in ("call", "partial")]
    expected = [score_calls(c, gold_calls(g), RewardOptions(level=lv)) for c, g, lv in jobs]
    built: list[object] = []
    barrier = threading.Barrier(8)

    def first_use(_: int) -> None:
        barrier.wait()  # every thread asks for the scorer of new options at the same moment
        built.append(scorer_for(RewardOptions(level="arg", canonicalizer="exact", optimal=True)))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(first_use, range(8)))
        got = list(pool.map(lambda job: compute_score("t", job[0], job[1], EXTRA, level=job[2])["score"], jobs))
    assert got == expected
    assert all(s is built[0] for s in built)  # one scorer per options, however many threads ask at once


def test_a_grammar_shared_by_many_threads() -> None:
    grammar = str(SCHEMAS / "travel-v2.ek")
    gold = json.dumps([{"name": "search_flights", "arguments": {"origin": "SFO", "destination": "JFK",
                                                                "date": "2025-03-14"}},
                       {"name": "get_weather", "arguments": {"location": "Paris"}}])
    outputs = ["[search_flights(origin='SFO', destination='JFK', date='2025-03-14'), get_weather(location='paris')]",
               "[search_flights(origin='SFO', destination='JFK', date='2025-13-14')]", "[cancel_booking(id=1)]",
               "[get_weather(location=3)]"]
    jobs = [(o, level) for o in outputs for level in ("call", "arg", "partial")] * 25
    options = {level: RewardOptions(level=level, grammar=grammar, unparseable=-1.0) for level in ("call", "arg", "partial")}
    with ThreadPoolExecutor(8) as pool:  # the first uses (grammar load, validators compiled per tool) race here
        got = list(pool.map(lambda job: score_calls(job[0], gold_calls(gold), options[job[1]]), jobs))
    assert got == [score_calls(o, gold_calls(gold), options[level]) for o, level in jobs]
    assert got[:3] == [1.0, 1.0, 1.0] and 0 < got[3 * 1 + 2] < 1


@pytest.mark.parametrize("level", ["arg", "partial"])
def test_an_output_too_large_to_pair_earns_the_unparseable_reward(level: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # never a TooManyPairs out of a reward function: a degenerate output gets the format penalty (the call and
    # exact levels count normal forms, never pairing: they score it, 0)
    from ek.scorer import metric

    monkeypatch.setattr(metric, "MATCH_MAX_PAIRS", 100)
    gold_json = json.dumps([{"name": "f", "arguments": {"x": -i - 1}} for i in range(11)])
    completion = "[" + ", ".join(f"f(x={i})" for i in range(11)) + "]"  # 121 pairs, none exact
    options = RewardOptions(level=level, unparseable=-0.5)
    assert score_calls(completion, gold_calls(gold_json), options) == -0.5
    assert score_calls(completion, gold_calls(gold_json), options, details=True).format_ok is False
    assert make_tool_call_reward(level, unparseable=-0.5)([completion], gold_calls=[gold_json]) == [-0.5]
    assert compute_score("ek", completion, gold_json, {}, level=level, unparseable=-0.5)["score"] == -0.5
    for other in ("call", "exact"):
        assert score_calls(completion, gold_calls(gold_json), RewardOptions(level=other, unparseable=-0.5)) == 0.0
    fewer = "[" + ", ".join(f"f(x={i})" for i in range(9)) + "]"  # 99 pairs: scored
    assert score_calls(fewer, gold_calls(gold_json), options) >= 0.0


@pytest.mark.parametrize("level", ["call", "arg", "partial"])
def test_an_order_too_entangled_to_score_earns_the_unparseable_reward(level: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # the gold a chain (each call after the one before), the completion its reverse: every pairing breaks the
    # order, and with a search of 3 nodes the metric refuses it (OrderTooComplex), never out of a reward
    from functools import partial

    from ek.scorer import assign, metric

    monkeypatch.setattr(metric, "ordered_assignment", partial(assign.ordered_assignment, max_nodes=3))
    n = 7
    gold_json = json.dumps([{"name": "f", "arguments": {"x": j}, **({"after": [j - 1]} if j else {})}
                            for j in range(n)])
    completion = "[" + ", ".join(f"f(x={j})" for j in reversed(range(n))) + "]"
    options = RewardOptions(level=level, unparseable=-0.5)
    assert score_calls(completion, gold_calls(gold_json), options) == -0.5
    assert make_tool_call_reward(level, unparseable=-0.5)([completion], gold_calls=[gold_json]) == [-0.5]
    in_order = "[" + ", ".join(f"f(x={j})" for j in range(n)) + "]"
    assert score_calls(in_order, gold_calls(gold_json), options) == 1.0


def _recurses_out(text: str) -> bool:
    """Whether the running Python's json decoder runs out of recursion on ``text``."""
    try:
        json.loads(text)
    except RecursionError:
        return True
    return False


def test_gold_json_too_deep_for_the_decoder_is_a_value_error_naming_the_row() -> None:
    # past Python's recursion limit, json.loads itself gives up (3.11, 3.12); 3.13's decoder reads it, and the
    # gold's own depth limit refuses it at the value's path: either way a ValueError naming the row
    deep = '[{"name": "f", "arguments": {"x": ' + "[" * 3000 + "]" * 3000 + "}}]"
    then = (": JSON nested too deeply to decode" if _recurses_out(deep) else
            r"\[0\]\.arguments\.x\[0\]\S*: gold value nested too deeply")
    with pytest.raises(ValueError, match="^gold" + then):
        gold_calls(deep)
    with pytest.raises(ValueError, match="nested too deeply"):
        make_tool_call_reward()(["f()"], gold_calls=[deep])
    with pytest.raises(ValueError, match=r"^ground_truth \(data_source 'ek'\)" + then):
        compute_score("ek", "f()", deep, {})



def test_a_gold_call_with_an_empty_tool_name_is_a_value_error_naming_the_row() -> None:
    # no output can name it: scored, it could only ever count as missed (with or without a grammar)
    empty = '[{"name": "", "arguments": {"x": 1}}]'
    with pytest.raises(ValueError, match=r"^gold\[0\]: a gold call names the tool it expects"):
        gold_calls(empty)
    with pytest.raises(ValueError, match="gold call names the tool it expects"):
        make_tool_call_reward()(["f(x=1)"], gold_calls=[empty])
    with pytest.raises(ValueError,
                       match=r"ground_truth \(data_source 'ek'\)\[0\]: a gold call names the tool it expects"):
        compute_score("ek", "f(x=1)", empty, {})


def test_gold_arguments_under_another_key_are_a_value_error_naming_the_row() -> None:
    # read as f() with no arguments, the policy would be rewarded for calling f bare
    misnamed = '[{"name": "f", "input": {"x": 1}}]'
    with pytest.raises(ValueError, match=r"""^gold\[0\]\[0\] 'f': no "arguments" key, but 'input' given"""):
        make_tool_call_reward()(["f()"], gold_calls=[misnamed])
    with pytest.raises(ValueError, match=r"ground_truth \(data_source 'ek'\)\[0\] 'f': no \"arguments\" key"):
        compute_score("ek", "f()", misnamed, {})


@pytest.mark.parametrize(("gold", "problem"), [
    ([{"name": "frobnicate", "arguments": {}}], "gold[0] frobnicate: $: unknown tool 'frobnicate'"),
    ([{"name": "get_weather", "arguments": {"location": 5}}], "gold[0] get_weather: $.location: expected str, got int"),
])
def test_a_gold_the_grammar_rejects_is_refused_in_every_trainer(gold: list[Any], problem: str) -> None:
    """As ``ek score`` refuses the line: scored, such a gold could never be matched by a call the grammar accepts
    (and an unknown tool's call matched it: 1.0), so the policy was pushed away from right answers silently."""
    grammar, reason = str(SCHEMAS / "travel-v2.ek"), f"gold does not fit travel@2: {problem}"
    for label in (json.dumps(gold), gold):
        for _ in range(2):  # decoded and checked, then both read back
            with pytest.raises(ValueError) as trl:
                make_tool_call_reward(grammar=grammar)(["get_weather(location='Paris')", "frobnicate()"],
                                                       gold_calls=[json.dumps([]), label])
            assert str(trl.value) == f"gold[1]: {reason}"
            with pytest.raises(ValueError) as verl:
                compute_score("travel", "frobnicate()", label, {"ek_grammar": grammar})
            assert str(verl.value) == f"ground_truth (data_source 'travel'): {reason}"
            with pytest.raises(ValueError) as openrlhf:
                make_reward_func(grammar=grammar)(["P frobnicate()"], ["P "], [label])
            assert str(openrlhf.value) == f"label 0: {reason}"
    assert make_tool_call_reward()(["frobnicate()"], gold_calls=[json.dumps(gold)]) in ([1.0], [0.0])  # no grammar


@pytest.mark.parametrize("optimal", ["yes", 1, None])
def test_optimal_must_be_a_bool_and_fails_when_the_reward_is_built(optimal: object) -> None:
    with pytest.raises(ValueError, match="optimal must be True or False"):
        make_tool_call_reward(optimal=optimal)  # type: ignore[arg-type]



def _schema(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.ek"
    path.write_text(f"grammar {name} 1\n\n{text}\n", encoding="utf-8")
    return str(path)


def _weighted(name: str, text: str, weights: dict[str, float], importance: dict[str, float] | None = None) -> Any:
    """A grammar built in code (the DSL keeps costs within 1e-6..1e6; a GraphGrammar made by hand does not):
    ``text``'s tools with the weights, and arguments with the importance, given."""
    import attrs

    from ek.grammar import parse

    grammar = parse(f"grammar {name} 1\n\n{text}\n")
    tools = []
    for tool in grammar.tools:
        fields = tuple(attrs.evolve(f, importance=(importance or {}).get(f"{tool.name}.{f.name}", f.importance))
                       for f in tool.fields)
        tools.append(attrs.evolve(tool, weight=weights.get(tool.name, tool.weight), fields=fields))
    return attrs.evolve(grammar, tools=tuple(tools))


def test_weights_past_a_floats_range_fail_when_the_reward_is_built(tmp_path: Path) -> None:
    """A tool weight times its arguments' importance past 1.8e308 made every sample raise (``score counts must be
    finite``), after the reward was built; the docs promise bad options fail when it is built. A schema file
    cannot hold such costs (the DSL's bounds); a grammar built in code can."""
    huge = _weighted("huge", "tool f {\n    x: int\n}", {"f": 1e308}, {"f.x": 1e308})
    why = r"grammar huge@1: tool 'f': its weight \(1e\+308\) times 1 plus its arguments' importance .* float's range"
    for build in (lambda: make_tool_call_reward(level="arg", grammar=huge), lambda: make_compute_score(grammar=huge),
                  lambda: make_reward_func(grammar=huge)):
        with pytest.raises(ValueError, match=why):
            build()
    in_file = _schema(tmp_path, "huge", "tool f weight 1e308 {\n    x: int importance 1e308\n}")
    with pytest.raises(ValueError, match=r"^extra_info\['ek_grammar'\] = .* cannot be used: .*weight 1e\+308 is out of "
                                         "range"):
        compute_score("t", "f(x=1)", '[{"name": "f", "arguments": {"x": 1}}]', {"ek_grammar": in_file})
    near = _weighted("near", "tool f {\n    x: int\n}", {"f": 1e300}, {"f.x": 1e7})  # 1e307: it fits
    assert make_tool_call_reward(level="arg", grammar=near)(["f(x=1)"], gold_calls=['[{"name": "f", '
                                                                                    '"arguments": {"x": 1}}]']) == [1.0]


def test_partial_credit_of_weights_near_a_floats_limit_is_that_of_small_ones() -> None:
    """``partial`` summed the calls' weights as floats: calls of weight 1e308 summed to infinity, and the reward
    was NaN clipped to 1.0, or 0.0, for any answer. The weights' scale does not change a ratio of them."""
    tools = "tool h {\n}\ntool k {\n    x: int importance 0.5\n    y: int\n}"
    big = _weighted("big", tools, {"h": 2.0 ** 1023, "k": 2.0 ** 1022})  # powers of two:
    small = _weighted("small", tools, {"h": 2.0, "k": 1.0})  # the same ratios, exactly
    golds = [json.dumps([{"name": "h", "arguments": {}}] * 3), json.dumps([{"name": "k", "arguments": {"x": 2, "y": 1}}]),
             json.dumps([{"name": "h", "arguments": {}}, {"name": "k", "arguments": {"x": 3, "y": 1}}])]
    completions = ["[h(), h()]", "[k(x=1, y=1)]", "[h(), k(x=2, y=1)]"]
    credit = 0.2 + 0.3 + 0.5 * 1 / 1.5  # names right, y right and x (importance 0.5) wrong
    expected = make_tool_call_reward(level="partial", grammar=small)(completions, gold_calls=golds)
    assert expected == [0.8, pytest.approx(credit), pytest.approx((2 + credit) / 3)]
    assert make_tool_call_reward(level="partial", grammar=big)(completions, gold_calls=golds) == expected


@pytest.mark.parametrize("scale", [2.0 ** 1023, 1e308, 2.0 ** -1074, 5e-320])
def test_partial_weights_of_any_finite_size_give_the_reward_of_their_ratios(scale: float) -> None:
    """``partial_weights`` near a float's limit summed to infinity: the credit was NaN, clipped to 1.0 (a half-right
    call earned full credit) or 0.0; subnormal ones rounded ``c * values`` to 0. Only their ratios count."""
    gold = json.dumps([{"name": "f", "arguments": {"x": 1, "y": 2}}])
    completions = ["f(x=1, y=3)", "f(x=2, y=3)", "g()", "f(x=1, y=2)", "[f(x=1, y=3), f(x=1, y=2)]"]
    for ratios in [(1, 1, 1), (0, 1, 1), (0, 0, 1), (1, 0, 0), (0.5, 1, 0)]:
        expected = make_tool_call_reward(level="partial", partial_weights=ratios)(completions, gold_calls=[gold] * 5)
        scaled = tuple(r * scale for r in ratios)
        got = make_tool_call_reward(level="partial", partial_weights=scaled)(completions, gold_calls=[gold] * 5)
        assert got == pytest.approx(expected), (ratios, scale)


def test_the_decoded_gold_cache_is_bounded_in_memory() -> None:
    """Gold strings up to ``_GOLD_CACHE_MAX_CHARS`` are kept decoded, 1,024 of them; decoded, a character of JSON
    can take ~26 bytes (``{}`` is a 64-byte dict), so at 64 KiB a string the cache could hold 1.6 GB."""
    size = rewards._GOLD_CACHE_MAX_CHARS

    def largest(i: int) -> str:  # the gold that decodes largest for its length: empty objects in a list
        head = '[{"name": "f", "arguments": {"i": %d, "x": [' % i
        return head + ",".join(["{}"] * ((size - len(head) - 4) // 3)) + "]}}]"

    rewards._cached_gold.cache_clear()
    tracemalloc.start()
    try:
        for i in range(8):
            assert len(largest(i)) <= size and gold_calls(largest(i))[0].args["i"] == i
        each = tracemalloc.get_traced_memory()[0] / 8
    finally:
        tracemalloc.stop()
    assert rewards._cached_gold.cache_info().currsize == 8  # all kept
    assert each * rewards._GOLD_CACHE_SIZE <= 64 * 2 ** 20, f"a full cache of such golds: {each * 1024:,.0f} bytes"


@settings(max_examples=150, deadline=None)
@given(calls=st.lists(call_text, max_size=4))
def test_the_name_reward_is_the_name_level_f1_and_partial_credit_for_names_alone(calls: list[str]) -> None:
    """``level="name"``: tool selection, the metric's F1 at level ``name``; the same number as ``partial``
    weighing only the names (each pair of one tool earns its name)."""
    text = "[" + ", ".join(calls) + "]"
    name = score_calls(text, gold_calls(GOLD), RewardOptions(level="name"), details=True)
    assert name.score == score_calls(text, gold_calls(GOLD), RewardOptions(level="partial", partial_weights=(1, 0, 0)))
    assert name.score == ToolCallMetric("name")(text, gold_calls(GOLD)).f1


def test_the_name_reward_ignores_arguments_and_is_logged_as_a_name_f1() -> None:
    reward = make_tool_call_reward(level="name")
    gold = '[{"name": "search", "arguments": {"q": "cats"}}, {"name": "book", "arguments": {"id": 3}}]'
    assert reward(["[search(q=1), book()]", "search(q=1)", "No call.", "[x()]"], gold_calls=[gold] * 4) == \
        [1.0, 2 / 3, 0.0, 0.0]
    assert reward.__name__ == "tool_call_name_f1"
    assert compute_score("tools", "[search(q=1), book()]", gold, {}, level="name")["score"] == 1.0
