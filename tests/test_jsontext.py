"""ek.jsontext writes exactly what ``json.dumps(value, indent=2, ensure_ascii=False, default=repr)`` and
``json.dumps(value, ensure_ascii=False)`` write: for any mix of containers, scalars and the values that take the
slow paths, and for the reports ek writes."""

from __future__ import annotations

import json
import sys
from collections import OrderedDict
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from ekcli import SCHEMAS, synthetic_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from ek import jsontext
from ek.atomicfile import write_json_atomic
from ek.corpus.runner import RunOptions, run
from ek.jsontext import dumps_compact, dumps_indented
from ek.report.jsonreport import build_report


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
            | st.sampled_from([float("nan"), float("inf"), -float("inf"), "\u2028", "\ud800", "a\nb", '"\\',
                               Fraction(1, 3), Decimal("1.5"), 10**40, -0.0])
            | st.builds(lambda v: type("Tagged", (str,), {})(v), st.text(max_size=3)))
_keys = st.text(max_size=4) | st.integers(-3, 3) | st.floats(allow_nan=False) | st.booleans() | st.none()
_values = st.recursive(
    _scalars,
    lambda inner: (st.lists(inner, max_size=5) | st.dictionaries(_keys, inner, max_size=5)
                   | st.lists(inner, max_size=3).map(tuple)
                   | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(OrderedDict)),
    max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_any_value_is_written_as_json_writes_it(value: Any) -> None:
    assert dumps_indented(value) == _reference(value)


@pytest.mark.parametrize("value", [
    {}, [], {"a": {}}, {"a": []}, [[], {}], {"a": [1, [2, [3, {}]]]}, {1: {"x": 1}}, {"a": 1, 2: [3]},
    {"a": (1, 2)}, [(1, [2])], {"a": 1, "b": {"c": [1, 2]}, "d": 3}, [1, 2, {"a": 1}, 3, 4, [5]],
    {"x": OrderedDict(b=1)}, {"s": {1, 2}}, {None: {"a": 1}}, {True: [1], "t": 2}, {1.5: [1]},
])
def test_edge_shapes_are_written_as_json_writes_them(value: Any) -> None:
    assert dumps_indented(value) == _reference(value)


def test_a_key_json_refuses_is_refused_as_json_refuses_it() -> None:
    for value in ({(1, 2): 1}, {"a": {(1, 2): [1]}}, {"a": 1, (1,): [2]}):
        with pytest.raises(TypeError, match="keys must be str"):
            _reference(value)
        with pytest.raises(TypeError, match="keys must be str"):
            dumps_indented(value)


def test_without_the_c_encoder_the_text_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    monkeypatch.setattr(jsontext, "_RUN_ENCODERS", [])
    monkeypatch.setattr(jsontext, "_COMPACT", jsontext._plain_encoder(", ", json.JSONEncoder().default))
    value = {"a": [1, {"b": 2.5, "c": "x"}], "d": {"e": None, "f": [True, float("nan")]}}
    assert dumps_indented(value) == _reference(value)
    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False)


_json_values = st.recursive(
    _scalars.filter(lambda v: not isinstance(v, (Fraction, Decimal))) | st.sampled_from([sys.float_info.max,
                                                                                          -sys.float_info.max]),
    lambda inner: (st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4)
                   | st.lists(inner, max_size=3).map(tuple)),
    max_leaves=15)


@settings(max_examples=600, deadline=None)
@given(_json_values)
def test_any_json_value_is_written_compact_as_json_writes_it(value: Any) -> None:
    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False)


def test_a_value_json_cannot_hold_is_refused_compact_as_json_refuses_it() -> None:
    for value in (Fraction(1, 3), [1, {2, 3}], {"a": b"x"}):
        with pytest.raises(TypeError) as want:
            json.dumps(value, ensure_ascii=False)
        with pytest.raises(TypeError) as got:
            dumps_compact(value)
        assert str(got.value) == str(want.value)


def test_a_score_report_is_written_byte_for_byte_as_before(tmp_path: Path) -> None:
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 300, accuracy=0.5)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"))
    report = build_report(run(str(corpus), options), options)
    write_json_atomic(tmp_path / "r.json", report)
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == _reference(report) + "\n"
    assert len(report["per_tool"]) > 1 and len(report["worst_episodes"]) == 10


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), sys.float_info.max, -sys.float_info.max,
                                   5e-324, -0.0, 0, -1, 10**30, True, False, None, "", "\x00\u2028\"", 1.5])
def test_a_scalar_is_written_compact_as_json_writes_it(value: Any) -> None:
    assert dumps_compact(value) == json.dumps(value, ensure_ascii=False)
