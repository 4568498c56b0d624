"""Positional arguments in BFCL's multi-turn ground truth, bound by BFCL's API signatures (read with ast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.bfcl import signatures as signatures_module
from ek.bfcl.multiturn import ground_truth_turns
from ek.bfcl.signatures import (
    SOURCE_SUBDIR,
    SignatureError,
    Signatures,
    find_source,
    load_signatures,
    read_signatures,
)
from ek.calls import Step

API = '''
import os

class FileSystem:
    def __init__(self, root):
        self.root = root

    def cd(self, folder: str):
        return os.chdir(folder)

    def mv(self, source: str, destination: str, /, overwrite=False):
        pass

    def _private(self, x):
        pass

    @staticmethod
    def helper(a, b):
        pass

class KV:
    def add(self, key, value):
        pass

class Vector:
    def add(self, text):
        pass
'''


def _source(folder: Path, text: str = API) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "api.py").write_text(text, encoding="utf-8")
    return folder


def test_methods_are_read_in_declaration_order_without_self(tmp_path: Path) -> None:
    sig = read_signatures(_source(tmp_path))
    assert sig.params("cd") == ("folder",)
    assert sig.params("mv") == ("source", "destination", "overwrite")  # positional-only ones first
    assert sig.params("helper") == ("a", "b")  # a static method keeps its first parameter
    assert sig.params("_private") is None and sig.params("__init__") is None


def test_a_name_declared_twice_differently_is_ambiguous_not_guessed(tmp_path: Path) -> None:
    sig = read_signatures(_source(tmp_path))
    assert sig.params("add") is None
    assert "different parameters: (key, value); (text)" in sig.why_not("add")
    assert "no API class" in sig.why_not("nope")


def test_the_source_is_parsed_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\nclass A:\n    def f(self, x): pass\n"
    sig = read_signatures(_source(tmp_path / "src", text))
    assert sig.params("f") == ("x",) and not marker.exists()


def test_unreadable_sources_are_refused_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SignatureError, match="not a folder"):
        read_signatures(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SignatureError, match="no Python files"):
        read_signatures(tmp_path / "empty")
    with pytest.raises(SignatureError, match="not Python source"):
        read_signatures(_source(tmp_path / "bad", "class A(:\n"))
    monkeypatch.setattr(signatures_module, "BFCL_SOURCE_MAX_BYTES", 100)
    with pytest.raises(SignatureError, match="more than BFCL's API source could be"):
        read_signatures(_source(tmp_path / "big", "# " + "x" * 200 + "\n"))


def test_the_source_is_found_from_a_data_file_in_bfcl_layout(tmp_path: Path) -> None:
    package = tmp_path / "bfcl_eval"
    source = _source(package / SOURCE_SUBDIR)
    answers = package / "data" / "possible_answer" / "BFCL_v4_multi_turn_base.json"
    answers.parent.mkdir(parents=True)
    answers.write_text("", encoding="utf-8")
    assert find_source([None, answers]) == source.resolve()
    assert load_signatures(None, [answers]).params("cd") == ("folder",)
    assert load_signatures(source).params("cd") == ("folder",)  # a folder named explicitly


def test_positional_ground_truth_is_bound_by_signature() -> None:
    sig = Signatures("<test>", {"cd": (("folder",),), "mv": (("source", "destination"),)})
    turns = ground_truth_turns([["cd('docs')", "mv('a', destination='b')"], []], sig)
    assert turns == ((Step("cd", {"folder": "docs"}), Step("mv", {"source": "a", "destination": "b"})), ())


@pytest.mark.parametrize(("call", "reason"), [
    ("cd('a', 'b')", "'cd' takes 1 parameter(s) (folder), 2 given by position"),
    ("mv('a', source='b')", "keyword argument 'source' given by position and again by name"),
    ("mv(*paths)", "* unpacking in the call to 'mv' is not accepted"),
    ("rm('x')", "no API class in <test> declares 'rm'"),
])
def test_unbindable_ground_truth_is_an_error_naming_the_call(call: str, reason: str) -> None:
    sig = Signatures("<test>", {"cd": (("folder",),), "mv": (("source", "destination"),)})
    with pytest.raises(ValueError, match="ground_truth turn 0 call 0") as caught:
        ground_truth_turns([[call]], sig)
    assert reason in str(caught.value)


def test_without_signatures_the_error_says_where_they_come_from() -> None:
    with pytest.raises(ValueError, match="install bfcl-eval, or pass --bfcl-source"):
        ground_truth_turns([["cd('a')"]])


@pytest.mark.skipif(find_source() is None, reason="bfcl-eval is not installed (the test command installs it)")
def test_every_real_multi_turn_answer_reads_with_bfcl_eval_signatures() -> None:
    source = find_source()
    assert source is not None
    sig = read_signatures(source)
    assert sig.params("sort") == ("file_name",) and sig.params("cd") == ("folder",)
    data = source.parents[2] / "data" / "possible_answer"
    files = sorted(data.glob("BFCL_v4_multi_turn_*.json"))
    assert len(files) == 4
    positional = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            turns = ground_truth_turns(entry["ground_truth"], sig)  # raises on any unreadable call
            assert len(turns) == len(entry["ground_truth"])
            positional += sum("('" in call and "=" not in call.split("(", 1)[1].split(",")[0]
                              for turn in entry["ground_truth"] for call in turn)
    assert positional > 0  # the real data does pass arguments by position
