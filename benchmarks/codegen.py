"""`ek gen` and importing its module, against fastjsonschema on the equivalent JSON Schemas, in one run.

Run: ``.venv/bin/python benchmarks/codegen.py [--quick] [--tools N] [--rounds N]``; exit 1 when a target is missed
(a ``--quick`` smoke run prints the verdicts and exits 0).

The grammar has N tools (default 1,000) cycling through every construct the DSL has (four kinds of tool, so
their validators share four shapes: see ``ek.codegen.shapes``); ``--varied``: tools that differ in their
arguments' names, types and constraints, seeded random (a shape each), for information. The peer gets the
same tools as JSON Schemas (``ek export --to jsonschema``: one schema per tool). Each measurement is a
fresh process (``sys.executable``), run in interleaved rounds (ek, peer, ek, ...); the time is the child's
CPU time (user + system, ``resource.getrusage``: the machine is shared), the median is reported, and the
ratio is ek / peer (lower is better).

1. Generate: ``ek gen SCHEMA -o DIR`` into a new folder each round (parse and check the DSL, generate,
   compile-check, write) against a script that reads the JSON Schemas, runs
   ``fastjsonschema.compile_to_code`` on each and writes them as one module. Also the peak memory (max
   RSS) of each process, and ``ek gen`` again over its own output (nothing to write, so nothing is
   compiled), for information.
2. Import: ``import <module>`` of the generated module against the module of fastjsonschema's 1,000
   validators, bytecode cached (what every import after the first costs) and from source (the first).
   The time is measured inside the child around the import statement, so interpreter start-up is left out.

Without fastjsonschema installed (``pip install -e '.[bench]'``) only ek's side is measured, and said so.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

#: the issue's targets: ek / fastjsonschema at most
TARGETS = {"gen CPU": 1.0, "gen peak memory": 3.0, "import (bytecode cached)": 2.0}


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


#: Argument names the varied grammar draws from (real tools share names, not whole argument lists).
WORDS = ("location unit query city date start end limit offset name id user email amount currency lang format page "
         "sort order filter tags title body priority count radius lat lon mode verbose timeout retries path url "
         "method headers level kind status").split()


def varied_schema_text(n_tools: int, seed: int = 7) -> str:
    """A grammar of ``n_tools`` tools that differ in their arguments' names, types and constraints (seeded
    random), unlike :func:`schema_text`'s four kinds of tool: nearly every validator has a shape of its own."""
    import random

    rnd = random.Random(seed)

    def type_text(nested: bool) -> str:
        kind = rnd.choice(["str", "int", "float", "bool", "date", "enum", "list", "str-len", "int-range"]
                          + ([] if nested else ["object"]))
        if kind == "enum":
            return "enum(" + ", ".join(rnd.sample(["a", "b", "c", "d", "e", "f", "g"], rnd.randint(2, 5))) + ")"
        if kind == "list":
            return f"list[{rnd.choice(['str', 'int', 'float'])}]" + rnd.choice(["", " [1..]", f" [1..{rnd.randint(2, 20)}]"])
        if kind == "str-len":
            return f"str [1..{rnd.randint(5, 500)}]"
        if kind == "int-range":
            return f"int [{rnd.randint(0, 5)}..{rnd.randint(10, 1000)}]"
        if kind == "object":
            inner = rnd.sample(WORDS, rnd.randint(1, 3))
            return "{\n" + "".join(f"        {w}: {type_text(True)}{rnd.choice(['', '?'])}\n" for w in inner) + "    }"
        return kind

    lines = ["# synthetic benchmark grammar: varied tools", "grammar big 1", ""]
    for i in range(n_tools):
        lines += [f"tool tool_{i:04d} weight {1 + i % 5} {{", f'    "Tool number {i}."']
        lines += [f"    {w}: {type_text(False)}{rnd.choice(['', '?'])}" for w in rnd.sample(WORDS, rnd.randint(1, 7))]
        lines += ["}", ""]
    return "\n".join(lines)


#: The peer's generator, as a script: read the schemas, compile each to code, write one module. Each
#: validator's functions and regex table get the tool's number, so the thousand live side by side.
PEER_GEN = r'''
import json, re, sys
import fastjsonschema
schemas = json.loads(open(sys.argv[1], encoding="utf-8").read())
header = ("from decimal import Decimal\nimport re\n"
          "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n\nNoneType = type(None)\n")
chunks = [header]
for i, schema in enumerate(schemas):
    code = fastjsonschema.compile_to_code(schema)
    head, _, body = code.partition("\nNoneType = type(None)\n")
    patterns = re.search(r"REGEX_PATTERNS = \{.*?\n\}\n", head, re.S)
    if patterns:
        chunks.append(patterns.group(0).replace("REGEX_PATTERNS", f"REGEX_PATTERNS_{i}"))
    body = re.sub(r"\bvalidate(\w*)\(", lambda m: f"validate_{i}{m.group(1)}(", body)
    chunks.append(body.replace("REGEX_PATTERNS", f"REGEX_PATTERNS_{i}"))
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("\n".join(chunks))
'''

#: Run inside the child: the CPU time of one import statement, printed.
IMPORT_PROBE = "import time; t = time.process_time(); import {name}; print(time.process_time() - t)"


def child_cpu(cmd: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, str]:
    """(CPU seconds, stdout) of one child process running ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed:\n{run.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), run.stdout


def peak_rss(cmd: list[str], env: dict[str, str]) -> float:
    """Max RSS (MB) of ``cmd``, measured by a wrapper process that runs only it (``ru_maxrss`` of the children
    of this process is the largest child so far, so it cannot be read here)."""
    wrapper = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def interleaved(runs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            samples[name].append(run())
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 tools and 3 rounds, for a smoke run")
    ap.add_argument("--tools", type=int, help="tools in the grammar (default 1000; 200 with --quick)")
    ap.add_argument("--rounds", type=int, help="rounds per measurement (default 5; 3 with --quick)")
    ap.add_argument("--varied", action="store_true",
                    help="tools that differ in their arguments' types (not four kinds of tool): for information")
    opts = ap.parse_args(argv)
    n_tools = opts.tools or (200 if opts.quick else 1000)
    rounds = opts.rounds or (3 if opts.quick else 5)
    try:
        import fastjsonschema  # noqa: F401 - only whether it is there
        peer = True
    except ImportError:
        peer = False
    from ek.grammar import load
    from ek.interop import export_tools

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    print(f"python {sys.version.split()[0]}; {n_tools} {'varied ' if opts.varied else ''}tools; median of {rounds} "
          "interleaved rounds, child CPU time; ratio = ek / fastjsonschema (lower is better)")
    if not peer:
        print("fastjsonschema is NOT installed: only ek is measured (pip install -e '.[bench]')")
    results: dict[str, tuple[float, float | None]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        schema = root / "big.ek"
        schema.write_text((varied_schema_text if opts.varied else schema_text)(n_tools), encoding="utf-8")
        schemas, issues = export_tools(load(schema), "jsonschema")
        assert not issues, issues
        (root / "big.json").write_text(json.dumps(schemas), encoding="utf-8")
        fresh = itertools.count()

        def gen_ek(out: str | None = None) -> list[str]:
            """``ek gen`` into ``out``, by default a new folder (every module written, as a first run)."""
            return [sys.executable, "-m", "ek", "gen", str(schema), "-o", out or str(root / f"ek_new_{next(fresh)}")]

        gen_peer = [sys.executable, "-c", PEER_GEN, str(root / "big.json"), str(root / "peer_out" / "fjs_big.py")]
        (root / "peer_out").mkdir()

        runs = {"ek": lambda: child_cpu(gen_ek(), env)[0]}
        if peer:
            runs["peer"] = lambda: child_cpu(gen_peer, env)[0]
        gen = interleaved(runs, rounds)
        memory = {"ek": peak_rss(gen_ek(), env)} | ({"peer": peak_rss(gen_peer, env)} if peer else {})
        results["gen CPU"] = (gen["ek"], gen.get("peer"))
        results["gen peak memory"] = (memory["ek"], memory.get("peer"))
        # ek gen again over its own output (schemas unchanged: nothing written, nothing compiled); the
        # peer has no such case, its figure is its generation again
        child_cpu(gen_ek(str(root / "ek_out")), env)
        runs = {"ek": lambda: child_cpu(gen_ek(str(root / "ek_out")), env)[0]}
        if peer:
            runs["peer"] = lambda: child_cpu(gen_peer, env)[0]
        again = interleaved(runs, rounds)
        results["gen again (unchanged)"] = (again["ek"], again.get("peer"))

        module_dirs = {"ek": (root / "ek_out", "big_v1"), "peer": (root / "peer_out", "fjs_big")}
        for who, (folder, name) in module_dirs.items():  # write the bytecode once, as the first import would
            if who == "ek" or peer:
                subprocess.run([sys.executable, "-c", f"import {name}"], env=env, cwd=folder, check=True)

        def importer(who: str, cached: bool) -> Callable[[], float]:
            folder, name = module_dirs[who]
            flags = [] if cached else ["-X", f"pycache_prefix={root / 'no-cache'}", "-B"]
            cmd = [sys.executable, *flags, "-c", IMPORT_PROBE.format(name=name)]
            return lambda: float(child_cpu(cmd, env, cwd=str(folder))[1])

        for cached, label in [(True, "import (bytecode cached)"), (False, "import (from source)")]:
            runs = {"ek": importer("ek", cached)} | ({"peer": importer("peer", cached)} if peer else {})
            med = interleaved(runs, rounds)
            results[label] = (med["ek"], med.get("peer"))

    print(f"\n{'':<28} {'ek':>10} {'fastjsonschema':>15} {'ratio':>8}  target")
    met_all = True
    for label, (ours, theirs) in results.items():
        unit = "MB" if "memory" in label else "s"
        need = TARGETS.get(label)
        if theirs is None:
            print(f"{label:<28} {ours:>8.3f} {unit} {'-':>15} {'-':>8}  {'(peer not installed)' if need else ''}")
            continue
        ratio = ours / theirs
        verdict = ""
        if need is not None:
            met = ratio <= need
            met_all &= met
            verdict = f"{'MET' if met else 'MISSED'} <= {need:g}x"
        print(f"{label:<28} {ours:>8.3f} {unit} {theirs:>12.3f} {unit} {ratio:>7.2f}x  {verdict}")
    if opts.quick:  # a smoke run: the targets are the issue's at 1,000 tools, judged by a full run
        print(f"(--quick: {n_tools} tools, {rounds} rounds; the targets are judged by a full run, so this run exits 0)")
        return 0
    return 0 if met_all else 1


if __name__ == "__main__":
    raise SystemExit(main())
