"""Whether BFCL's prompting decoder finds calls in a text (what its irrelevance and relevance categories
ask), answered without running anything, and held to BFCL's own decoder when bfcl-eval is installed."""

from __future__ import annotations

import pytest

from ek.bfcl.decoding import decodes_to_calls
from ek.bfcl.oracle import load_bfcl_decoder
from ek.parsing.limits import Limits

CALLS = [
    "[get_weather(city=city)]",                    # a bare name: BFCL takes it as the string "city"
    "get_primes(1, 64)",                           # positional arguments: BFCL drops them, the call stays
    "[lookup(value=fetch(key='a'))]",              # a nested call with keywords: read as a call
    "[lookup(value=fetch('a'))]",                  # a nested call without: kept as its text
    "[add(n=4 + 5, m=2 ** 3)]",                    # arithmetic of constants: BFCL evaluates it
    "```\n[f(a=1)]\n```",
    "[f(x=-1.5), g(y=data[0])]",
    "[f(x={'a': 1, 'b': [1, (2, 3)]})]",
    "[handover({'agent_id': 'a1'})",               # the closing bracket is BFCL's to add
    "  [ f(a=1) ]  ",
    "[f(a=1)",                                     # the closing bracket added
    "f(a=1)",
]
NO_CALLS = [
    "No function can answer that.",
    "[]",
    "",
    "[f(x=lambda: 1)]",                            # BFCL's decoder fails on a lambda
    "[f(x=a + b)]",                                # arithmetic of names: BFCL's evaluation fails
    "[f(x=-y)]",                                   # a minus of a name: BFCL's negation fails
    "[f(x={**d})]",
    "[f(x=1 if y else 2)]",
    "[f(a=1)]\n[g(b=2)]",                          # two expressions: not one for BFCL's parse
    "x = f(a=1)",
    "[f(a=1), 3]",                                 # an item that is no call
    "[f(x=f'{y}')]",
    "[f(x=" + "[" * 200 + "]" * 200 + ")]",        # deeper than the parsing limits: not read
]


@pytest.mark.parametrize("text", CALLS)
def test_texts_bfcl_decodes_to_calls(text: str) -> None:
    assert decodes_to_calls(text)


@pytest.mark.parametrize("text", NO_CALLS)
def test_texts_bfcl_does_not_decode_to_calls(text: str) -> None:
    assert not decodes_to_calls(text)


@pytest.mark.parametrize(("terms", "found"), [(100, True), (2_000, False), (5_000, False)])
def test_a_long_chain_of_constant_arithmetic_is_answered_without_a_recursion_error(terms: int, found: bool) -> None:
    """Operators chain without brackets: too long a chain is refused by Python's parser, or too deep to walk."""
    assert decodes_to_calls("[f(n=" + "+".join(["1"] * terms) + ")]", Limits(max_size=100_000)) is found


@pytest.mark.parametrize("text", CALLS + NO_CALLS[:-1])
def test_the_answer_is_bfcls_own_decoder(text: str) -> None:
    decode = load_bfcl_decoder()
    if decode is None:
        pytest.skip("bfcl-eval is not installed")
    try:
        found = bool(decode(text))
    except Exception:  # noqa: BLE001 - BFCL's decoder raises anything on text it cannot read
        found = False
    assert decodes_to_calls(text) == found


FUNCTIONS = [{"name": "get_weather", "parameters": {"type": "dict", "properties": {
    "city": {"type": "string"}}, "required": ["city"]}}]


#: Read as calls by ek, not by BFCL's decoder: one list a line (docs/bfcl.md, "Reading raw text").
EK_READS = {"[f(a=1)]\n[g(b=2)]"}


@pytest.mark.parametrize("text", [t for t in CALLS + NO_CALLS if t not in EK_READS])
def test_check_asks_whether_bfcl_finds_calls_where_eks_reader_refuses_the_text(text: str) -> None:
    """(Ir)relevance verdicts: calls came iff BFCL's decoder finds them, also where ek's reader refuses the
    text (a bare name, a positional argument, a nested call), for check and a prepared entry alike."""
    from ek.bfcl import check, prepare

    found = decodes_to_calls(text)
    irrelevance = check(FUNCTIONS, text, [], "irrelevance")
    relevance = check(FUNCTIONS, text, [], "live_relevance")
    assert (irrelevance.valid, relevance.valid) == (not found, found)
    assert irrelevance.error_type == ("irrelevance_error:decoder_success" if found else "")
    assert prepare(FUNCTIONS, [], "irrelevance").check(text) == irrelevance
    assert prepare(FUNCTIONS, [], "live_relevance").check(text) == relevance
