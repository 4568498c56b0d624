"""The one conftest of the test suite: shared fixtures, and the ``slow`` mark for tests that run the CLI.

Shared helpers live beside it as plain modules: :mod:`ekcli` runs the real
``ek`` CLI (the one subprocess runner) and writes corpus files;
:mod:`handbuilt` builds grammars by hand and imports generated source.
``pytest -m "not slow"`` runs everything but the tests that take seconds (subprocesses, large property runs).
"""

from __future__ import annotations

import shutil
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from ekcli import run_ek
from handbuilt import import_source, travel_v2

import ek.grammar
from ek.codegen import generate, module_filename, write_modules
from ek.grammar.model import GraphGrammar
from ek.parsing import register_format, unregister_format

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def bfcl_data() -> Path:
    """Where the sample of BFCL's real data lives (tests/data/bfcl, with its README naming the source)."""
    return TESTS / "data" / "bfcl"


@pytest.fixture(scope="session")
def travel_model() -> GraphGrammar:
    return travel_v2()


@pytest.fixture(scope="session")
def travel_module(travel_model: GraphGrammar, tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    out = tmp_path_factory.mktemp("gen")
    return import_source(generate(travel_model), out, module_filename(travel_model)[:-3])


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """schemas/ with both travel versions, gen/ generated from them (as `ek gen schemas/*.ek -o gen` would)."""
    schemas, gen = tmp_path / "schemas", tmp_path / "gen"
    schemas.mkdir()
    for name in ("travel-v1.ek", "travel-v2.ek"):
        shutil.copy(TESTS.parent / "schemas" / name, schemas / name)
    write_modules([ek.grammar.load(p) for p in sorted(schemas.glob("*.ek"))], gen)
    return schemas, gen


@pytest.fixture
def pipes_format() -> Iterator[str]:
    """A team's own model-output format, registered for the test: one ``tool|query`` call per line."""

    def pipes(text: str) -> list[tuple[str, dict[str, str]]]:
        return [(name, {"q": arg}) for name, arg in (line.split("|", 1) for line in text.splitlines())]

    register_format("test-pipes", pipes)
    yield "test-pipes"
    unregister_format("test-pipes")


HOSTILE = TESTS / "hostile"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test module that imports the CLI runner is subprocess-heavy: all its tests are ``slow``. Tests under
    tests/hostile/ are the hostile-input suite (``-m hostile``)."""
    runs_cli: dict[str, bool] = {}
    for item in items:
        if HOSTILE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.hostile)
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module.__name__ not in runs_cli:
            runs_cli[module.__name__] = any(value is run_ek for value in vars(module).values())
        if runs_cli[module.__name__]:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """One small local Ray for every Ray test of the session (2 CPUs, a 128 MB object store, no dashboard),
    shut down at the end; its address lets CLI runs join it (``ek score --engine ray --address ADDR``)."""
    import logging

    import ray  # the test extra installs ek[ray]: the Ray engine is tested for real, never skipped

    ray.init(num_cpus=2, object_store_memory=128 * 1024 * 1024, include_dashboard=False,
             logging_level=logging.WARNING, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
