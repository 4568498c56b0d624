"""How fast does a schema parse and check, and does it stay linear?

Generates grammars of 100, 1,000 and 5,000 tools (six arguments each, every
construct of the DSL), times reading them (Lark parse + syntax tree) and
checking them, in CPU seconds, (semantic checks + model), and prints tools per second and the
per-tool time at 5,000 tools relative to 1,000 (1.00 means linear growth).
Peers measured in the same run: a bare Lark parse tree of the same text (the
floor for a Lark-based reader) and ``json.loads`` of the same tools written as
JSON Schema function definitions (no checking at all). Then the same growth
check for files with an error in every tool, whose report must stay linear too.

    python benchmarks/grammar_parse.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from importlib import resources

from lark import Lark

from ek.grammar import SchemaError, parse
from ek.grammar.checker import check
from ek.grammar.parser import gc_paused, lark_parser, normalize, parse_syntax

SIZES = (100, 1_000, 5_000)


def make_grammar(tools: int) -> str:
    """A grammar with ``tools`` tools that uses named types, enums, lists, objects, defaults and policies."""
    out = ["# generated for benchmarks/grammar_parse.py", f"grammar bench{tools} 1", "", "type Code = str /[A-Z]{3}/", ""]
    for i in range(tools):
        out += [
            f'tool "svc{i % 7}.op_{i}" weight {1 + i % 5} {{',
            f'    "Operation number {i}."',
            f"    code: Code importance {1 + i % 3}",
            f"    count: int [1..{10 + i}] = 1",
            '    mode: enum(fast, slow, "very slow") = fast compare exact',
            "    tags: list[str] [..8]? compare unordered",
            "    ratio: float compare tol(0.01)",
            "    extra: {",
            '        note: str? "free text"',
            "        level: int [0..5] = 0",
            "    }?",
            "}",
            "",
        ]
    return "\n".join(out)


def make_misspelt(tools: int) -> str:
    """As many declared types as tools, and every tool misspells the one it uses (an error per tool).

    Each error looks for a "did you mean" among every type name: without a bound that is quadratic.
    """
    out = ["grammar misspelt 1"]
    out += [f"type Type{i} = str" for i in range(tools)]
    out += [f"tool t{i} {{\n    x: Typo{i}\n}}" for i in range(tools)]
    return "\n".join(out) + "\n"


def errors_cpu(text: str) -> tuple[float, int]:
    """CPU seconds for ``parse`` to reject ``text`` and render its report, and how many errors it found."""
    with gc_paused():
        start = time.process_time()
        try:
            parse(text, "bench.ek")
        except SchemaError as err:
            report = str(err)
            found = len(err.diagnostics)
        else:
            raise AssertionError("the misspelt grammar parsed")
        assert report
        return time.process_time() - start, found


def make_json_tools(tools: int) -> str:
    """The same tools as OpenAI-style JSON Schema function definitions (what teams keep today)."""
    defs = []
    for i in range(tools):
        props = {
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10 + i, "default": 1},
            "mode": {"type": "string", "enum": ["fast", "slow", "very slow"], "default": "fast"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
            "ratio": {"type": "number"},
            "extra": {
                "type": "object",
                "properties": {"note": {"type": "string", "description": "free text"}, "level": {"type": "integer", "minimum": 0, "maximum": 5, "default": 0}},
            },
        }
        defs.append(
            {
                "type": "function",
                "function": {
                    "name": f"svc{i % 7}.op_{i}",
                    "description": f"Operation number {i}.",
                    "parameters": {"type": "object", "properties": props, "required": ["code", "ratio"]},
                },
            }
        )
    return json.dumps(defs, indent=2)


def cpu(fn: Callable[[], object]) -> float:
    with gc_paused():
        start = time.process_time()
        fn()
        return time.process_time() - start


def timed(text: str) -> tuple[float, float]:
    """CPU seconds to read (parse_syntax) and to check one grammar text, as ``ek.grammar.parse`` does.

    CPU time, not wall time: on a shared machine other processes would otherwise
    make the growth ratio meaningless.
    """
    with gc_paused():
        start = time.process_time()
        syntax = parse_syntax(normalize(text), "bench.ek")
        middle = time.process_time()
        grammar, diagnostics = check(syntax)
        end = time.process_time()
    assert grammar is not None and not diagnostics
    return middle - start, end - middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2, help="runs per size up to 1,000 tools; the best is kept")
    parser.add_argument("--quick", action="store_true", help="sizes up to 1,000 tools, one run each: a smoke run")
    args = parser.parse_args()
    sizes = [s for s in SIZES if s <= 1_000] if args.quick else SIZES
    if args.quick:
        args.repeat = 1

    start = time.perf_counter()
    lark_parser()
    print(f"building the LALR parser once per process: {1000 * (time.perf_counter() - start):.0f} ms")
    parse(make_grammar(10))  # warm up

    plain_lark = Lark(
        resources.files("ek.grammar").joinpath("ek.lark").read_text(encoding="utf-8"), parser="lalr", lexer="contextual"
    )
    per_tool: dict[int, float] = {}
    peers: dict[int, tuple[float, float]] = {}
    print(f"{'tools':>6} {'lines':>7} {'read s':>8} {'check s':>8} {'total s':>8} {'tools/s':>8} {'us/tool':>8}")
    for size in sizes:
        text = make_grammar(size)
        runs = [timed(text) for _ in range(args.repeat if size <= 1_000 else 1)]
        read, checked = min(runs, key=sum)
        total = read + checked
        per_tool[size] = total / size
        if size == 1_000:
            as_json = make_json_tools(size)
            peers[size] = (cpu(lambda: plain_lark.parse(text + "\n")), cpu(lambda: json.loads(as_json)))
        lines = text.count("\n")
        print(f"{size:>6} {lines:>7} {read:>8.3f} {checked:>8.3f} {total:>8.3f} {size / total:>8.0f} {1e6 * total / size:>8.0f}")
    bare, loads = peers[1_000]
    ours = per_tool[1_000] * 1_000
    print(
        f"peers at 1,000 tools: bare Lark parse tree of the same text {bare:.3f} s (ek.grammar.parse = {ours / bare:.2f}x); "
        f"json.loads of the same tools as JSON Schema {loads:.3f} s ({ours / loads:.0f}x, no checks at all)"
    )
    if 5_000 in per_tool:
        ratio = per_tool[5_000] / per_tool[1_000]
        print(f"per-tool time, 5,000 vs 1,000 tools: {ratio:.2f}x (1.00 = linear growth; well above 1 = super-linear)")

    print("\nfiles with an error in every tool (a misspelt type name among as many declared types):")
    per_error: dict[int, float] = {}
    for size in sizes:
        seconds, found = errors_cpu(make_misspelt(size))
        per_error[size] = seconds / found
        print(f"{size:>6} tools {found:>6} errors {seconds:>8.3f} s {1e6 * seconds / found:>8.0f} us/error")
    if 5_000 in per_error:
        ratio = per_error[5_000] / per_error[1_000]
        print(f"per-error time, 5,000 vs 1,000 errors: {ratio:.2f}x (1.00 = linear growth)")


if __name__ == "__main__":
    main()
