"""ek.extras: an optional dependency that is missing, and one that is installed but fails to import, are told
apart, at each place ek imports one, as a user meets them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ekcli import EXAMPLE, run_ek

from ek.extras import import_failure


def _broken_package(folder: Path, name: str) -> Path:
    """A package ``name`` in ``folder`` that is installed but imports a module nobody installed (as Ray Data
    2.60 imports ``typing_extensions`` on Python 3.13 without requiring it)."""
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text("import ek_test_undeclared_dependency\n", encoding="utf-8")
    return folder


def _import_error(name: str) -> ImportError:
    try:
        __import__(name)
    except ImportError as exc:
        return exc
    raise AssertionError(f"{name} imported")


def test_a_missing_package_gets_the_hint_alone() -> None:
    exc = _import_error("ek_test_not_installed.sub")
    assert import_failure(exc, "ek_test_not_installed", "needs it: pip install 'ek[x]'") == "needs it: pip install 'ek[x]'"


def test_an_installed_package_that_fails_to_import_names_what_is_missing(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(_broken_package(tmp_path, "ek_test_broken")))
    exc = _import_error("ek_test_broken")
    assert import_failure(exc, "ek_test_broken", "needs it: pip install 'ek[x]'") == (
        "needs it: pip install 'ek[x]' (ek_test_broken is installed, but importing it failed: "
        "No module named 'ek_test_undeclared_dependency')")
    sys.modules.pop("ek_test_broken", None)


def test_an_error_raised_while_the_package_loads_is_named_too() -> None:
    exc = ImportError("cannot import name 'x' from partially initialized module 'ray'", name="ray")
    assert "ray is installed, but importing it failed: cannot import name" in import_failure(exc, "ray", "hint")


def test_ek_score_on_ray_with_a_broken_ray_says_what_ray_lacks(tmp_path: Path) -> None:
    fake = _broken_package(tmp_path / "site", "ray")
    done = run_ek("score", EXAMPLE / "corpus.jsonl", "--grammar", EXAMPLE / "travel-v2.ek", "--engine", "ray",
                  env={"PYTHONPATH": str(fake)})
    assert done.returncode != 0
    assert "the Ray engine needs Ray: pip install 'ek[ray]' (ray is installed, but importing it failed: No module " \
           "named 'ek_test_undeclared_dependency')" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_ek_score_of_parquet_with_a_broken_pyarrow_says_what_pyarrow_lacks(tmp_path: Path) -> None:
    fake = _broken_package(tmp_path / "site", "pyarrow")
    (tmp_path / "c.parquet").write_bytes(b"PAR1" + b"\0" * 16 + b"PAR1")
    done = run_ek("score", tmp_path / "c.parquet", "--grammar", EXAMPLE / "travel-v2.ek",
                  env={"PYTHONPATH": str(fake)})
    assert done.returncode != 0
    assert "reading Parquet needs pyarrow: pip install 'ek[parquet]' (pyarrow is installed, but importing it " \
           "failed: No module named 'ek_test_undeclared_dependency')" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_scipy_backend_without_scipy_says_to_install_it(tmp_path: Path) -> None:
    # a fresh interpreter whose SciPy is hidden (a finder refusing it), asked for backend="scipy"
    import subprocess
    import textwrap

    code = textwrap.dedent("""
        import sys
        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "scipy":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Hide())
        from ek.scorer.assign import max_weight_assignment
        try:
            max_weight_assignment([[1.0]], backend="scipy")
        except ImportError as exc:
            print(exc)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "backend='scipy' needs SciPy: pip install 'ek[fast]'"
