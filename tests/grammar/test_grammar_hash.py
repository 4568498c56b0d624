"""A grammar's cached hash: equal grammars hash alike, and a pickled grammar hashes afresh in another process
(string hashes differ between processes, so a hash carried over would break every dict keyed by it)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from ek.grammar.model import FieldSpec, GraphGrammar, PrimitiveType, ToolSpec


def _grammar() -> GraphGrammar:
    return GraphGrammar("g", 1, tools=(ToolSpec("t", (FieldSpec("a", PrimitiveType("str"), default=None,
                                                                required=False),)),))


def test_equal_grammars_hash_alike_and_the_hash_is_kept() -> None:
    one, two = _grammar(), _grammar()
    assert one == two and hash(one) == hash(two) == hash(one)
    assert {one: 1}[two] == 1


@pytest.mark.slow
def test_a_pickled_grammar_hashes_afresh_in_another_process() -> None:
    grammar = _grammar()
    hash(grammar)  # cached here, with this process's string hashes
    code = ("import pickle, sys; sys.path[:0] = [sys.argv[1]]; import test_grammar_hash as t; "
            "g = pickle.loads(sys.stdin.buffer.read()); fresh = t._grammar(); "
            "print(g == fresh, hash(g) == hash(fresh), {fresh: 1}.get(g))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                         input=pickle.dumps(grammar), capture_output=True, check=True,
                         env={"PYTHONHASHSEED": "12345"}).stdout.decode()
    assert out.split() == ["True", "True", "1"]
