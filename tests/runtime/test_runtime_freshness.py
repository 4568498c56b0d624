"""One freshness check however a generated module is named: NAME@VERSION, .py path, folder, dotted
name, module object, the package index. Real schemas, real `write_modules` output, real imports."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest

import ek.grammar
from ek.agents.toolcalls import ToolCallMetric
from ek.codegen import generate_index, write_modules
from ek.runtime import (
    GeneratedModuleError,
    StaleModuleError,
    grammar_of,
    load_module,
    module_of,
    resolve,
    validator_for,
)
from ek.runtime.freshness import recorded_schema

#: stale generated code is refused however it is named (docs/guarantees.md)
pytestmark = pytest.mark.hostile

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
WEIGHT_EDIT = ("tool get_weather {", "tool get_weather weight 5 {")


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in the file at ``path``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def stale_message(info: pytest.ExceptionInfo[StaleModuleError], schemas: Path, gen: Path) -> str:
    message = str(info.value)
    assert "travel_v2.py is stale" in message
    assert str(schemas / "travel-v2.ek") in message
    assert f"ek gen {schemas / 'travel-v2.ek'} -o {gen}" in message
    return message


def test_runtime_module_records_its_schema_relative_to_its_folder(layout: tuple[Path, Path]) -> None:
    schemas, gen = layout
    module = load_module(gen / "travel_v2.py")
    assert module.SCHEMA_PATH == "../schemas/travel-v2.ek"
    assert recorded_schema(module) == (schemas / "travel-v2.ek").resolve()


def test_runtime_every_way_of_naming_a_module_refuses_it_once_its_schema_changed(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    schemas, gen = layout
    (gen / "__init__.py").write_text(generate_index([ek.grammar.load(p) for p in sorted(schemas.glob("*.ek"))]), encoding="utf-8")
    monkeypatch.syspath_prepend(str(gen.parent))
    module = load_module(gen / "travel_v2.py")
    package = importlib.import_module("gen")
    assert package.load("travel@2") is importlib.import_module("gen.travel_v2")  # fresh: handed out
    edit(schemas / "travel-v2.ek", *WEIGHT_EDIT)
    path = gen / "travel_v2.py"
    namings = {
        "resolve": lambda: resolve("travel@2", search_path=[gen]),  # schemas/ is not on the path: the recorded one counts
        "load_module(path)": lambda: load_module(path),
        "load_module(str)": lambda: load_module(str(path)),
        "load_module(dotted)": lambda: load_module("gen.travel_v2"),
        "module_of(module)": lambda: module_of(module),
        "validator_for(path)": lambda: validator_for(path),
        "validator_for(module)": lambda: validator_for(module),
        "grammar_of(path)": lambda: grammar_of(path),
        "grammar_of(module)": lambda: grammar_of(module),
        "ToolCallMetric(path)": lambda: ToolCallMetric(grammar=str(path)),
        "ToolCallMetric(module)": lambda: ToolCallMetric(grammar=module),
        "index load()": lambda: package.load("travel@2"),
    }
    for how, name_it in namings.items():
        with pytest.raises(StaleModuleError) as info:
            name_it()
        assert stale_message(info, schemas, gen), how
    assert load_module(gen / "travel_v1.py").GRAMMAR_VERSION == 1  # the other version is still fresh
    assert resolve("travel@2", search_path=[gen, schemas], on_stale="compile").GRAMMAR.tool("get_weather").weight == 5


def test_runtime_a_comment_edit_keeps_the_module_fresh(layout: tuple[Path, Path]) -> None:
    schemas, gen = layout
    schema = schemas / "travel-v2.ek"
    schema.write_text("# reviewed\n\n" + schema.read_text(encoding="utf-8") + "\n# end of file\n", encoding="utf-8")
    edit(schema, "tool get_weather {", "# forecast\ntool get_weather {   # by city")
    assert load_module(gen / "travel_v2.py").GRAMMAR == ek.grammar.load(schema)
    assert resolve("travel@2", search_path=[gen]).__file__ == str((gen / "travel_v2.py").resolve())


def test_runtime_a_folder_names_its_one_generated_module(layout: tuple[Path, Path], tmp_path: Path) -> None:
    schemas, gen = layout
    with pytest.raises(GeneratedModuleError) as info:
        load_module(gen)
    assert "holds 2 generated modules" in str(info.value)
    assert "travel@1" in str(info.value) and "travel@2" in str(info.value)
    single = tmp_path / "single"
    write_modules([ek.grammar.load(schemas / "travel-v2.ek")], single)
    (single / "__init__.py").write_text(generate_index([ek.grammar.load(schemas / "travel-v2.ek")]), encoding="utf-8")
    assert load_module(single).GRAMMAR_VERSION == 2
    assert grammar_of(f"{single}{'/'}").version == 2
    edit(schemas / "travel-v2.ek", *WEIGHT_EDIT)
    with pytest.raises(StaleModuleError, match="single/travel_v2.py is stale"):
        load_module(single)
    with pytest.raises(FileNotFoundError, match="no generated module in the folder"):
        load_module(schemas)


def test_runtime_a_schema_that_no_longer_loads_or_declares_another_key_makes_it_stale(layout: tuple[Path, Path]) -> None:
    schemas, gen = layout
    schema = schemas / "travel-v2.ek"
    text = schema.read_text(encoding="utf-8")
    edit(schema, "grammar travel 2", "grammar travel 3")
    with pytest.raises(StaleModuleError, match="holds travel@2, but its schema .*travel-v2.ek now declares travel@3"):
        load_module(gen / "travel_v2.py")
    schema.write_text(text.replace("location: str", "location: strng"), encoding="utf-8")
    with pytest.raises(StaleModuleError) as info:
        load_module(gen / "travel_v2.py")
    assert "no longer loads" in str(info.value) and "strng" in str(info.value) and "ek gen" in str(info.value)


def test_runtime_a_module_whose_schema_is_not_there_is_trusted(layout: tuple[Path, Path], tmp_path: Path) -> None:
    """A package deployed without its schemas has nothing to be stale against."""
    _, gen = layout
    deployed = tmp_path / "site" / "travel_tools"
    shutil.copytree(gen, deployed)
    assert load_module(deployed / "travel_v2.py").validate("get_weather", {"location": "Oslo"}) == []


def test_runtime_a_generator_1_module_is_checked_by_its_schema_bytes(tmp_path: Path) -> None:
    """Old modules record the file's hash, not the grammar's: for them any edit, comments too, is a change."""
    old = tmp_path / "travel_v2.py"
    shutil.copy(Path(__file__).parent / "data" / "travel_v2_generator1.py.txt", old)
    schema = tmp_path / "travel-v2.ek"
    # the schema's bytes as generator 1 read them (it records the file's hash): the layout of that day
    shutil.copy(Path(__file__).parent / "data" / "travel-v2_generator1.ek.txt", schema)
    assert load_module(old).GENERATOR_VERSION == 1
    schema.write_text(schema.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    with pytest.raises(StaleModuleError, match=r"SOURCE_SHA256 daa3742b5c07\.\.\..*Regenerate it: ek gen"):
        load_module(old)


def test_runtime_freshness_is_not_parsed_again_for_an_unchanged_schema(layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _, gen = layout
    load_module(gen / "travel_v2.py")
    freshness = sys.modules["ek.runtime.freshness"]

    def no_parse(path: object) -> None:
        raise AssertionError(f"parsed {path} again")

    monkeypatch.setattr(freshness, "load", no_parse)
    for _ in range(3):
        load_module(gen / "travel_v2.py")
