import pytest

"""Property-based laws of the scorer (hypothesis)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.canon import bfcl, fold
from ek.scorer.accounting import Score, merge
from ek.scorer.metric import ToolCallMetric, _assign, _Context, _evaluate, coerce_calls

SETTINGS = settings(max_examples=150, deadline=None)

values = st.one_of(
    st.integers(-2, 2), st.sampled_from(["a", "A", "b", " b ", "c"]), st.booleans(), st.none(),
    st.lists(st.integers(0, 2), max_size=2),
)
args = st.dictionaries(st.sampled_from(["x", "y", "z"]), values, max_size=3)
calls = st.lists(st.tuples(st.sampled_from(["s", "t", "u"]), args), max_size=6)
levels = st.sampled_from(["call", "arg"])


def exact(score):
    return score.exact_counts


@pytest.mark.slow
@SETTINGS
@given(calls, calls, levels, st.randoms(use_true_random=False), st.booleans())
def test_permutation_invariance(pred, gold, level, rnd, optimal):
    metric = ToolCallMetric(level, optimal=optimal)
    base = metric(pred, gold)
    p2, g2 = list(pred), list(gold)
    rnd.shuffle(p2)
    rnd.shuffle(g2)
    # argument dicts rebuilt in another insertion order
    p2 = [(n, dict(reversed(list(a.items())))) for n, a in p2]
    assert exact(metric(p2, g2)) == exact(base)


@pytest.mark.slow
@SETTINGS
@given(calls, levels, st.booleans())
def test_perfect_prediction_scores_one(gold, level, optimal):
    assert ToolCallMetric(level, optimal=optimal)(gold, gold).f1 == 1.0


@pytest.mark.slow
@SETTINGS
@given(calls, calls, args, levels, st.booleans())
def test_adding_an_unmatched_call_never_raises_f1(pred, gold, extra_args, level, to_pred):
    metric = ToolCallMetric(level)
    before = metric(pred, gold).f1
    extra = ("never_called_tool", extra_args)
    after = metric(pred + [extra], gold) if to_pred else metric(pred, gold + [extra])
    assert after.f1 <= before


@pytest.mark.slow
@SETTINGS
@given(st.lists(st.tuples(calls, calls), max_size=8), st.integers(0, 8), levels)
def test_merge_of_split_equals_whole(corpus, cut, level):
    metric = ToolCallMetric(level)
    scores = [metric(p, g) for p, g in corpus]
    whole = merge(scores)
    left, right = merge(scores[:cut]), merge(scores[cut:])
    assert right + left == whole == left + right
    assert sum(reversed(scores), Score(episodes=0)) == whole
    assert whole.episodes == len(corpus)


def _total_agreement(pred, gold, optimal):
    ctx = _Context(fold, None, validate=False)
    p, g = coerce_calls(pred, "pred"), coerce_calls(gold, "gold")
    pairs, _, _ = _assign(p, g, ctx, optimal, [{} for _ in p])
    return sum(ev.agreement for _, _, ev in pairs), sum(ev.exact for _, _, ev in pairs)


@SETTINGS
@given(calls, calls)
def test_optimal_total_agreement_at_least_greedy(pred, gold):
    g_agree, g_exact = _total_agreement(pred, gold, False)
    o_agree, o_exact = _total_agreement(pred, gold, True)
    assert o_exact >= g_exact
    assert (o_exact, o_agree) >= (g_exact, g_agree - 1e-9)


def test_optimal_matches_brute_force_on_small_groups():
    import itertools

    rnd = random.Random(7)
    for _ in range(60):
        n, m = rnd.randint(1, 4), rnd.randint(1, 4)
        mk = lambda: ("f", {k: rnd.randint(0, 2) for k in "abc" if rnd.random() < 0.8})  # noqa: E731
        pred, gold = [mk() for _ in range(n)], [mk() for _ in range(m)]
        best = None
        ctx = _Context(fold, None, validate=False)
        ps, gs = coerce_calls(pred, "p"), coerce_calls(gold, "g")
        ev = [[_evaluate(ps[i], gs[j], ctx, {}) for j in range(m)] for i in range(n)]
        k = min(n, m)
        for rows in itertools.permutations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                tot = (sum(ev[r][c].exact for r, c in zip(rows, cols)),
                       sum(ev[r][c].agreement for r, c in zip(rows, cols)))
                best = tot if best is None or tot > best else best
        o_agree, o_exact = _total_agreement(pred, gold, True)
        assert o_exact == best[0] and abs(o_agree - best[1]) < 1e-9


from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec  # noqa: E402
from ek.scorer.agree import arg_keys  # noqa: E402
from ek.scorer.metric import _GroupRanker  # noqa: E402

RANK_GRAMMAR = GraphGrammar("g", 1, tools=(ToolSpec("s", (
    FieldSpec("x", PrimitiveType("int"), importance=3),
    FieldSpec("y", PrimitiveType("str"), required=False, default="a"),
    FieldSpec("z", PrimitiveType("any"), required=False),
), weight=2),))
plain_values = st.one_of(st.integers(-1, 1), st.sampled_from(["a", "A ", "b", "", " "]), st.none(),
                         st.floats(-1, 1, width=16))
plain_args = st.dictionaries(st.sampled_from(["x", "y", "z", "w"]), plain_values, max_size=4)


@SETTINGS
@given(plain_args, plain_args, st.booleans(), st.sampled_from([fold, bfcl]))
def test_fast_ranking_equals_full_comparison(p_args, g_args, with_grammar, canon):
    """Also in BFCL mode, where defaults play no part and a required argument must be given."""
    grammar = RANK_GRAMMAR if with_grammar else None
    ctx = _Context(canon, grammar, validate=False)
    pred, gold = coerce_calls([("s", p_args)], "p"), coerce_calls([("s", g_args)], "g")
    rules = ctx.rules("s")
    ranker = _GroupRanker(pred, gold, ctx, "s", {0: arg_keys(p_args, rules, canon)},
                          {0: arg_keys(g_args, rules, canon)}, [{}])
    full = _evaluate(pred[0], gold[0], ctx, {})
    assert ranker.rank(0, 0) == (full.exact, full.agreement)


from ek.scorer.metric import _finish, _one_call_per_tool, _pair_up  # noqa: E402
from ek.values import OMITTABLE, OneOf  # noqa: E402

gold_values = st.one_of(plain_values, st.builds(OneOf, plain_values, plain_values),
                        st.builds(OneOf, plain_values, st.just(OMITTABLE)), st.just(OMITTABLE))
gold_args = st.dictionaries(st.sampled_from(["x", "y", "z", "w"]), gold_values, max_size=4)
deep_values = st.one_of(plain_values, st.lists(plain_values, max_size=2),
                        st.lists(st.lists(plain_values, max_size=2), max_size=2))


def _calls_of(names, arguments):
    """Calls of tools drawn from ``names``: often one call per tool (the fast path's case), sometimes repeats."""
    call = st.tuples(st.sampled_from(names), arguments)
    return st.one_of(st.lists(call, max_size=4, unique_by=lambda c: c[0]), st.lists(call, max_size=4))


@SETTINGS
@given(_calls_of(["s", "t", "u"], st.dictionaries(st.sampled_from(["x", "y", "z", "w"]), deep_values, max_size=3)),
       _calls_of(["s", "t", "v"], gold_args), st.booleans(), st.booleans(), st.sampled_from([fold, bfcl]))
def test_one_call_per_tool_equals_the_full_assignment(p_calls, g_calls, with_grammar, optimal, canon):
    """The fast path of _assign gives what _pair_up and _finish give, whenever it answers."""
    ctx = _Context(canon, RANK_GRAMMAR if with_grammar else None, validate=False)
    pred, gold = coerce_calls(p_calls, "p"), coerce_calls(g_calls, "g")
    invalid = [{} for _ in pred]
    fast = _one_call_per_tool(pred, gold, ctx, invalid)
    if fast is None:
        return
    evals: dict = {}
    chosen = _pair_up(pred, gold, ctx, optimal, invalid, range(len(pred)), range(len(gold)), evals)
    full = _finish(pred, gold, ctx, invalid, chosen, evals)
    assert fast[1:] == full[1:]
    assert [(i, j, ev.exact, ev.agreement, ev.rows) for i, j, ev in fast[0]] == \
        [(i, j, ev.exact, ev.agreement, ev.rows) for i, j, ev in full[0]]


def test_one_call_per_tool_leaves_repeated_and_deep_groups_to_the_full_path():
    ctx = _Context(fold, None, validate=False)
    pred = coerce_calls([("s", {"x": 1}), ("s", {"x": 2})], "p")
    gold = coerce_calls([("s", {"x": 1})], "g")
    assert _one_call_per_tool(pred, gold, ctx, [{}, {}]) is None
    assert _one_call_per_tool(gold, pred, ctx, [{}]) is None
    deep = coerce_calls([("s", {"x": [[1]]})], "p")
    assert _one_call_per_tool(deep, gold, ctx, [{}]) is None
    # repeated on one side only: those calls are unmatched, the rest still paired by the fast path
    only_pred = coerce_calls([("t", {}), ("t", {}), ("s", {"x": 1})], "p")
    pairs, up, ug = _one_call_per_tool(only_pred, gold, ctx, [{}, {}, {}])
    assert [(i, j) for i, j, _ in pairs] == [(2, 0)] and up == [0, 1] and ug == []


from ek.scorer.agree import content_order_key  # noqa: E402
from ek.scorer.assign import greedy_assignment  # noqa: E402

small_values = st.sampled_from([0, 1, "a", "b"])
one_of = st.builds(OneOf, small_values, small_values)
# mostly calls that name the same one argument (exact pairs are then common), sometimes any shape
pred_args = st.fixed_dictionaries({"x": small_values}) | st.dictionaries(st.sampled_from(["x", "y"]), small_values,
                                                                         max_size=2)
one_of_args = st.fixed_dictionaries({"x": one_of}) | st.dictionaries(st.sampled_from(["x", "y"]), one_of, min_size=1,
                                                                     max_size=2)


@settings(max_examples=400, deadline=None)
@given(st.lists(pred_args, min_size=1, max_size=4), st.lists(one_of_args, min_size=1, max_size=4),
       st.sampled_from([fold, bfcl]))
def test_greedy_fast_paths_take_what_the_greedy_takes(p_args, g_args, canon):
    """With gold values that have no plain normal form (OneOf: no exact-match bucket), the exact-pair fast
    paths of the greedy (_exact_matching, _greedy_exact_star, the one-by-one rest) choose what
    greedy_assignment chooses over the whole group with every pair fully compared."""
    ctx = _Context(canon, None, validate=False)
    pred = coerce_calls([("s", a) for a in p_args], "p")
    gold = coerce_calls([("s", a) for a in g_args], "g")
    invalid = [{} for _ in pred]
    fast = sorted(_pair_up(pred, gold, ctx, False, invalid, range(len(pred)), range(len(gold)), {}))

    def rank(i, j):
        ev = _evaluate(pred[i], gold[j], ctx, {})
        return ev.exact, ev.agreement

    reference = greedy_assignment(list(range(len(pred))), list(range(len(gold))), rank,
                                  {i: content_order_key(p.args) for i, p in enumerate(pred)},
                                  {j: content_order_key(g.args) for j, g in enumerate(gold)})
    assert fast == sorted(reference)
