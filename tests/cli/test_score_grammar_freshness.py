"""`ek score --grammar` refuses a stale generated module however it is named, and says what to run.

Real files, real `ek gen`, real `ek score` subprocesses, run from the folder a user works in.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from ekcli import EXAMPLE, SCHEMAS, run_ek

pytestmark = [pytest.mark.slow, pytest.mark.hostile]  # stale code is refused however it is named


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """A user's folder: schemas/travel-v2.ek, corpus.jsonl, and gen/ from `ek gen schemas/travel-v2.ek -o gen`."""
    (tmp_path / "schemas").mkdir()
    shutil.copy(SCHEMAS / "travel-v2.ek", tmp_path / "schemas" / "travel-v2.ek")
    shutil.copy(EXAMPLE / "corpus.jsonl", tmp_path / "corpus.jsonl")
    gen = run_ek("gen", "schemas/travel-v2.ek", "-o", "gen", cwd=tmp_path)
    assert gen.returncode == 0, gen.stderr
    return tmp_path


NAMINGS = {
    ".py path": ["--grammar", "gen/travel_v2.py"],
    "folder": ["--grammar", "gen"],
    "NAME@VERSION": ["--grammar", "travel@2", "--search-path", "gen"],
}


def score(project: Path, args: list[str], out: str) -> tuple[int, str, dict | None]:
    proc = run_ek("score", "corpus.jsonl", *args, "--allow-errors", "--json", out, cwd=project)
    report = json.loads((project / out).read_text()) if (project / out).exists() else None
    return proc.returncode, proc.stderr, report


def test_score_refuses_a_stale_module_by_path_folder_or_name_and_the_named_command_fixes_it(project: Path) -> None:
    fresh = {how: score(project, args, f"fresh-{n}.json") for n, (how, args) in enumerate(NAMINGS.items())}
    assert {how: code for how, (code, _, _) in fresh.items()} == dict.fromkeys(NAMINGS, 0), fresh
    schema = project / "schemas" / "travel-v2.ek"
    schema.write_text(schema.read_text(encoding="utf-8").replace("tool get_weather {", "tool get_weather weight 5 {"),
                      encoding="utf-8")
    commands = set()
    for n, (how, args) in enumerate(NAMINGS.items()):
        code, stderr, report = score(project, args, f"stale-{n}.json")
        assert code == 2 and report is None, (how, stderr)
        assert "gen/travel_v2.py is stale: schemas/travel-v2.ek changed since it was generated" in stderr, (how, stderr)
        assert "Traceback" not in stderr
        commands.add(re.search(r"Regenerate it: (ek gen \S+ -o \S+)", stderr).group(1))
    assert commands == {"ek gen schemas/travel-v2.ek -o gen"}
    (command,) = commands
    assert run_ek(*shlex.split(command)[1:], cwd=project).returncode == 0
    after = [score(project, args, f"after-{n}.json") for n, args in enumerate(NAMINGS.values())]
    assert [code for code, _, _ in after] == [0, 0, 0]
    assert after[0][2]["overall"] == after[1][2]["overall"] == after[2][2]["overall"] != fresh[".py path"][2]["overall"]


def test_score_a_comment_edit_of_the_schema_keeps_the_module_usable(project: Path) -> None:
    schema = project / "schemas" / "travel-v2.ek"
    schema.write_text("# reviewed by the tools team\n\n" + schema.read_text(encoding="utf-8"), encoding="utf-8")
    for n, args in enumerate(NAMINGS.values()):
        code, stderr, _ = score(project, args, f"r{n}.json")
        assert code == 0, stderr
    check = run_ek("gen", "--check", "schemas/travel-v2.ek", "-o", "gen", cwd=project)
    assert check.returncode == 0, check.stdout


def test_score_a_line_naming_a_stale_module_is_that_line_s_error(project: Path) -> None:
    line = {"id": "by-path", "pred": "get_weather(location='Oslo')",
            "gold": [{"name": "get_weather", "arguments": {"location": "Oslo"}}], "grammar": "travel@2"}
    (project / "one.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    schema = project / "schemas" / "travel-v2.ek"
    schema.write_text(schema.read_text(encoding="utf-8").replace("location: str", "location: str [1..80]"), encoding="utf-8")
    proc = run_ek("score", "one.jsonl", "--search-path", "gen", "--json", "r.json", cwd=project)
    assert proc.returncode == 1
    (error,) = json.loads((project / "r.json").read_text())["errors"]
    assert "gen/travel_v2.py is stale" in error["reason"] and "ek gen schemas/travel-v2.ek -o gen" in error["reason"]
