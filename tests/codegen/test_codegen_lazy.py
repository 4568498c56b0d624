"""Generated modules build their attrs classes on first use, and the user cannot tell but by the clock."""

from __future__ import annotations

import pickle
import threading
import types
import typing
from pathlib import Path

import attrs
import pytest
from handbuilt import import_source

from ek.codegen import generate, module_filename
from ek.grammar.model import GraphGrammar


def _fresh(model: GraphGrammar, tmp_path: Path) -> types.ModuleType:
    return import_source(generate(model), tmp_path, module_filename(model)[:-3])


def test_importing_builds_no_class_and_validators_need_none(travel_model: GraphGrammar, tmp_path: Path) -> None:
    m = _fresh(travel_model, tmp_path)
    assert not any(isinstance(v, type) and attrs.has(v) for v in vars(m).values())
    assert "TOOLS" not in vars(m) and "GRAMMAR" not in vars(m)
    assert m.validate("search_flights", {"origin": "jfk"})  # validating builds nothing either
    assert not any(isinstance(v, type) and attrs.has(v) for v in vars(m).values())


def test_a_class_is_built_once_on_first_use_with_the_classes_it_builds(travel_model: GraphGrammar,
                                                                      tmp_path: Path) -> None:
    m = _fresh(travel_model, tmp_path)
    namespace: dict[str, object] = {}
    exec(f"from {m.__name__} import CreateEvent", namespace)  # noqa: S102 - the statement users write
    cls = namespace["CreateEvent"]
    assert cls is m.CreateEvent is vars(m)["CreateEvent"] and attrs.has(cls)
    assert (cls.__name__, cls.__qualname__, cls.__module__) == ("CreateEvent", "CreateEvent", m.__name__)
    assert "CreateEventMetadata" in vars(m)  # its _build makes one
    event = cls.from_args({"title": "t", "attendees": ["a"], "start": "2025-03-14T09:30:00", "duration_minutes": 5,
                           "metadata": {"priority": 2}})
    assert event.metadata == m.CreateEventMetadata(priority=2)
    assert pickle.loads(pickle.dumps(event)) == event
    assert typing.get_type_hints(cls)["metadata"] == m.CreateEventMetadata | None
    assert "SearchFlights" not in vars(m)  # only what was asked for


def test_tools_grammar_and_dir_cover_every_class(travel_model: GraphGrammar, tmp_path: Path) -> None:
    m = _fresh(travel_model, tmp_path)
    listing = dir(m)
    assert {"TOOLS", "GRAMMAR", "SearchFlights", "CreateEvent", "CreateEventMetadata", "validate"} <= set(listing)
    assert listing == sorted(listing)
    assert isinstance(m.TOOLS, dict) and list(m.TOOLS) == [t.name for t in travel_model.tools]
    assert m.TOOLS["search_flights"] is m.SearchFlights and m.TOOLS is m.TOOLS
    assert m.GRAMMAR == travel_model and m.GRAMMAR is m.GRAMMAR


def test_an_unknown_name_is_an_attribute_error(travel_model: GraphGrammar, tmp_path: Path) -> None:
    m = _fresh(travel_model, tmp_path)
    with pytest.raises(AttributeError, match=f"module '{m.__name__}' has no attribute 'NoSuchTool'"):
        m.NoSuchTool  # noqa: B018 - the attribute access is the test
    assert not hasattr(m, "_class_NoSuchTool")


def test_threads_asking_at_once_get_the_same_class(travel_model: GraphGrammar, tmp_path: Path) -> None:
    m = _fresh(travel_model, tmp_path)
    seen: list[type] = []
    start = threading.Barrier(8)

    def ask() -> None:
        start.wait()
        seen.append(m.SearchFlights)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(cls is seen[0] for cls in seen)
