"""`ek gen` on a 1,000-tool grammar: end to end (subprocess) and split into parse / generate / write.

Run: .venv/bin/python benchmarks/codegen.py [--tools N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def schema_text(n_tools: int) -> str:
    """A grammar with ``n_tools`` tools cycling through every construct the DSL has."""
    lines = [
        "# synthetic benchmark grammar",
        "grammar big 1",
        "",
        "type Airport = str /[A-Z]{3}/",
        "type Money = float [0..]",
        "",
    ]
    for i in range(n_tools):
        lines += [f"tool tool_{i:04d} weight {1 + i % 5} {{", f'    "Tool number {i}: does thing {i % 7}."']
        kind = i % 4
        if kind == 0:
            lines += ["    location: str", "    unit: enum(celsius, fahrenheit)?"]
        elif kind == 1:
            lines += [
                "    origin: Airport importance 2",
                "    destination: Airport importance 2",
                "    date: date",
                "    passengers: int [1..9] = 1",
                "    cabin: enum(economy, premium, business, first) = economy",
                "    flexible: bool?",
            ]
        elif kind == 2:
            lines += [
                "    title: str [1..200]",
                "    attendees: list[str] [1..] compare unordered",
                "    start: datetime",
                "    metadata: {",
                "        priority: int [1..5]",
                "        notes: str?",
                "    }?",
            ]
        else:
            lines += ["    x: float", "    y: float compare tol(0.001)", '    "from": str?', "    budget: Money?", "    extra: any?"]
        lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools", type=int, default=1000)
    opts = ap.parse_args(argv)
    from ek.codegen import generate, write_modules
    from ek.grammar import load
    from ek.runtime import compile_grammar

    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp) / "big.ek"
        schema.write_text(schema_text(opts.tools), encoding="utf-8")
        out = Path(tmp) / "gen"

        t0 = time.perf_counter()
        grammar = load(schema)
        t1 = time.perf_counter()
        source = generate(grammar)
        t2 = time.perf_counter()
        write_modules([grammar], out)
        t3 = time.perf_counter()
        print(f"{opts.tools} tools, {len(source.splitlines())} generated lines, {len(source) / 1e6:.1f} MB")
        print(f"  parse+check   {t1 - t0:7.3f} s")
        print(f"  generate      {t2 - t1:7.3f} s   ({opts.tools / (t2 - t1):,.0f} tools/s)")
        print(f"  generate+write{t3 - t2:7.3f} s")
        t10 = time.perf_counter()
        compile_grammar(grammar)
        t11 = time.perf_counter()
        print(f"  compile_grammar (in memory, no separate ast.parse) {t11 - t10:7.3f} s")
        from ek.runtime import GrammarValidator

        t12 = time.perf_counter()
        lazy = GrammarValidator(grammar)
        for tool in grammar.tools[:10]:
            lazy(tool.name, {})
        t13 = time.perf_counter()
        print(f"  validator for the scorer, first use of 10 tools (compiled per tool) {t13 - t12:7.3f} s")

        t4 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "ek", "gen", str(schema), "-o", str(out / "cli")], capture_output=True, text=True, check=False)
        t5 = time.perf_counter()
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            return 1
        print(f"  `ek gen` end to end (new process) {t5 - t4:7.3f} s   ({opts.tools / (t5 - t4):,.0f} tools/s)")
        t6 = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "ek", "gen", "--check", str(schema), "-o", str(out / "cli")], capture_output=True, text=True, check=False
        )
        t7 = time.perf_counter()
        print(f"  `ek gen --check` (fresh, exit {run.returncode})      {t7 - t6:7.3f} s")
        t8 = time.perf_counter()
        probe = f"import sys; sys.path.insert(0, {str(out / 'cli')!r}); import big_v1"
        subprocess.run([sys.executable, "-c", probe], check=True)
        t9 = time.perf_counter()
        print(f"  import of the generated module (new process, cold) {t9 - t8:7.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
