"""The templates' compiled code cached on disk renders exactly what freshly compiled templates render, and a
cache file that cannot be used is ignored (the template is compiled instead)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest
from handbuilt import travel_v2

from ek.codegen import generate, generate_index
from ek.codegen import layout as ek_layout


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


def test_the_key_follows_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ek_layout._CompiledTemplates(Path("."))
    before = cache.get_cache_key("module_head.py.jinja2")
    assert before != cache.get_cache_key("module_tail.py.jinja2")
    monkeypatch.setitem(ek_layout._OPTIONS, "trim_blocks", False)
    assert cache.get_cache_key("module_head.py.jinja2") != before
