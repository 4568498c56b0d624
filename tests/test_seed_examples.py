"""The seed API page's examples, run verbatim in the namespace of ek.agents.toolcalls."""

import doctest

import ek.agents.toolcalls as toolcalls

SEED_EXAMPLES = '''
>>> from ek.agents.base import Step
>>> pred = [Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})]
>>> gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
>>> ToolCallMetric()(pred, gold).f1
1.0
>>> hallucinated = [Step("search", {"q": "cats"}), Step("delete_all", {})]
>>> round(ToolCallMetric()(hallucinated, gold).f1, 3)     # 1 TP, 1 FP, 1 FN
0.5

>>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
>>> len(pairs), up, ug          # order-insensitive within a tool name
(2, [], [])
'''


def test_seed_examples_pass_verbatim_in_module_namespace():
    test = doctest.DocTestParser().get_doctest(SEED_EXAMPLES, dict(vars(toolcalls)), "seed", "seed", 0)
    runner = doctest.DocTestRunner(optionflags=0)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted == 8
    assert result.failed == 0


def test_seed_hallucination_counts():
    from ek.calls import Step

    gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
    score = toolcalls.ToolCallMetric()([Step("search", {"q": "cats"}), Step("delete_all", {})], gold)
    assert (score.tp, score.fp, score.fn) == (1.0, 1.0, 1.0)
    assert dict(score.detail) == {"tp": 1.0, "fp": 1.0, "fn": 1.0}
    reasons = {(u.kind, u.reason) for u in score.explanation.errors()}
    assert reasons == {("fp", "wrong_tool"), ("fn", "missing_call")}
