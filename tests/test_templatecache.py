"""The templates' compiled code cached on disk (ek.templatecache: the generator's templates and the HTML
report's) renders exactly what freshly compiled templates render, and a cache file that cannot be used is
ignored (the template is compiled instead)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from ekcli import SCHEMAS, synthetic_corpus
from handbuilt import travel_v2

from ek.codegen import generate, generate_index
from ek.codegen import layout as ek_layout
from ek.report import html as html_report
from ek.templatecache import CompiledTemplates


@pytest.fixture()
def cache_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The templates' cache redirected to ``tmp_path``, written even under PYTHONDONTWRITEBYTECODE, with a
    fresh environment before and after."""
    monkeypatch.setattr(ek_layout, "_cache_folder", lambda: tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(ek_layout, "_ENV", None)
    yield tmp_path
    ek_layout._ENV = None


def outputs() -> list[str]:
    return [generate(travel_v2()), generate_index([("a", 1), ("b", 2)])]


def test_cached_templates_render_as_compiled_ones(cache_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = outputs()
    written = sorted(p.name for p in cache_in.iterdir())
    assert len(written) == 4 and all(n.startswith("ek.jinja2.") for n in written)  # head, validators, tail, index

    def no_compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cached template was compiled again")

    monkeypatch.setattr(ek_layout, "_ENV", None)
    monkeypatch.setattr(jinja2.Environment, "compile", no_compiling)
    assert outputs() == compiled


@pytest.mark.parametrize("content", [b"", b"not a cache", b"\x80\x05N."])
def test_unusable_cache_is_compiled_again(cache_in: Path, monkeypatch: pytest.MonkeyPatch, content: bytes) -> None:
    compiled = outputs()
    for path in cache_in.iterdir():
        path.write_bytes(content)
    monkeypatch.setattr(ek_layout, "_ENV", None)
    assert outputs() == compiled


def test_nothing_is_written_without_bytecode(cache_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    outputs()
    assert list(cache_in.iterdir()) == []


def test_the_key_follows_the_options() -> None:
    cache = CompiledTemplates(Path("."), ek_layout._OPTIONS)
    before = cache.get_cache_key("module_head.py.jinja2")
    assert before != cache.get_cache_key("module_tail.py.jinja2")
    changed = CompiledTemplates(Path("."), {**ek_layout._OPTIONS, "trim_blocks": False})
    assert changed.get_cache_key("module_head.py.jinja2") != before
    assert CompiledTemplates(Path("."), dict(ek_layout._OPTIONS)).get_cache_key("module_head.py.jinja2") == before


def test_a_callable_option_is_keyed_by_its_name_the_same_in_every_process() -> None:
    """A finalize function's repr holds its address, another in each process: the key names it instead."""
    probe = ("import sys; from pathlib import Path; from ek.templatecache import CompiledTemplates; "
             "from ek.report import html; "
             "print(CompiledTemplates(Path('.'), html._OPTIONS).get_cache_key('report.html.jinja2'))")
    keys = {subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert len(keys) == 1 and len(keys.pop().strip()) == 20
    other = CompiledTemplates(Path("."), {**html_report._OPTIONS, "finalize": str})
    assert other.get_cache_key("report.html.jinja2") != CompiledTemplates(
        Path("."), html_report._OPTIONS).get_cache_key("report.html.jinja2")


def test_the_report_page_from_its_cached_template_is_the_page_compiled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ek score --html`` compiled the page's template in every process (100 ms): kept like the generator's,
    the page is the same, byte for byte."""
    from ek.corpus.runner import RunOptions, run
    from ek.report.jsonreport import build_report

    monkeypatch.setattr(html_report, "_cache_folder", lambda: tmp_path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    corpus = synthetic_corpus(tmp_path / "c.jsonl", 60, accuracy=0.5)
    options = RunOptions(grammar=str(SCHEMAS / "travel-v2.ek"), keep_details=5)
    result = run(str(corpus), options)
    report = build_report(result, options)
    compiled = html_report.render_html(report, result.summary.worst(5))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("ek.jinja2.")]

    def no_compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cached template was compiled again")

    monkeypatch.setattr(jinja2.Environment, "compile", no_compiling)
    assert html_report.render_html(report, result.summary.worst(5)) == compiled
