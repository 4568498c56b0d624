"""``ek gen``'s work leaves no reference cycles, so it can run with the collector paused (``ek.cli.gen.run``)
without holding garbage, and the command leaves the collector as it found it."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ekcli import REPO, SCHEMAS

from ek.cli import main
from ek.codegen import compile_checked, render
from ek.grammar import parse
from ek.grammar.parser import gc_paused

sys.path.insert(0, str(REPO / "benchmarks"))
try:
    from codegen import varied_schema_text
finally:
    sys.path.remove(str(REPO / "benchmarks"))


@contextmanager
def collector_off() -> Iterator[None]:
    """The collector paused as the parser pauses it, after a collection (so what is found after is new)."""
    gc.collect()
    with gc_paused():
        yield


def generate(text: str) -> None:
    grammar = parse(text, "g.ek")
    compile_checked(render(grammar, None), grammar.key)


def test_parse_render_and_the_gate_leave_no_cycles() -> None:
    texts = [(SCHEMAS / "travel-v2.ek").read_text(encoding="utf-8"), varied_schema_text(30)]
    for text in texts:
        generate(text)  # first: whatever is loaded once (the parser, the templates) is loaded
        with collector_off():
            generate(text)
            assert gc.collect() == 0


def test_gen_leaves_the_collector_as_it_found_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert gc.isenabled()
    assert main(["gen", str(SCHEMAS / "travel-v2.ek"), "-o", str(tmp_path)]) == 0
    assert gc.isenabled()
    with collector_off():
        assert main(["gen", str(SCHEMAS / "travel-v2.ek"), "-o", str(tmp_path / "again")]) == 0
        assert not gc.isenabled()
    capsys.readouterr()
