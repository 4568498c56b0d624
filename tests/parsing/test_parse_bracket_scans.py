"""The two scans that count brackets outside strings before anything parses: ``check_text``'s depth limit
(:func:`ek.parsing.limits.first_past_depth`) and finding a JSON object's end in prose
(:func:`ek.parsing.prose._closing`). Each finds what a one-regex scan finds (the reference here, the way they
were written first), and reads each character a bounded number of times on any text: an unclosed string of
escaped quotes made the reference read to the end from every quote (17 s for 80 kB, quadratic).
"""

from __future__ import annotations

import io
import re
import resource
import subprocess
import sys
import textwrap
import tokenize
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.parsing import limits, prose
from ek.parsing.limits import first_past_depth, python_tokens_past

#: The reference of check_text's scan: one regex of strings, comments and brackets, run by finditer.
_PYTHON_TOKENS = re.compile(
    r'"""(?:[^"\\]++|\\.|"(?!""))*+"""' r"|'''(?:[^'\\]++|\\.|'(?!''))*+'''" r'|"(?:[^"\\\n]++|\\.)*+"'
    r"|'(?:[^'\\\n]++|\\.)*+'" r"|#[^\n]*+" r"|[\[({]|[\])}]", re.S)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\]]', re.S)


def _reference_depth(text: str, limit: int) -> int | None:
    depth = 0
    for match in _PYTHON_TOKENS.finditer(text):
        if match.group() in "[({":
            depth += 1
            if depth > limit:
                return match.start()
        elif match.group() in "])}":
            depth = max(depth - 1, 0)
    return None


def _reference_closing(text: str, pos: int, stop: int) -> int:
    depth = 0
    for match in _JSON_TOKENS.finditer(text, pos, stop):
        if match.group() in "{[":
            depth += 1
        elif match.group() in "}]":
            depth -= 1
            if depth == 0:
                return match.end()
    return -1


#: Texts made of the pieces that decide where strings and comments are: every quoting, escapes of each quote
#: and of a line break, brackets of each kind, comments.
_PIECES = st.sampled_from(list("[](){}\"'#\\\nab ") + ['"""', "'''", '\\"', "\\'", "\\\n", '{"'])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_TEXTS, st.integers(0, 4))
def test_the_depth_scan_finds_what_the_one_regex_scan_finds(text: str, limit: int) -> None:
    assert first_past_depth(text, limit) == _reference_depth(text, limit)


@settings(max_examples=3000, deadline=None)
@given(_TEXTS, st.integers(0, 6), st.integers(0, 50))
def test_the_json_object_end_is_where_the_one_regex_scan_finds_it(text: str, pos: int, stop: int) -> None:
    stop = min(stop, len(text))
    assert prose._closing(text, pos, stop) == _reference_closing(text, pos, stop)


class _CountingBody:
    """A string body's regex that adds up how many characters its matches read."""

    def __init__(self, pattern: re.Pattern[str], read: list[int]) -> None:
        self.pattern, self.read = pattern, read

    def match(self, text: str, pos: int) -> Any:
        found = self.pattern.match(text, pos)
        self.read[0] += found.end() - pos + 1
        return found


@pytest.mark.parametrize("text", [
    '()' * 70 + 'f(x="' + '\\"' * 20_000,  # the audit's case: an unclosed string of escaped quotes
    '(' * 10 + "'" + "\\'" * 20_000 + "\n" + ")" * 10,
    '[' * 70 + '"""' + '\\"""' * 10_000 + "'''" + "\\'''" * 10_000,
    '(' * 70 + '"\\' * 20_000,
    ('[' * 65 + '"a"' * 100 + "'" + "\\'" * 100 + "\n") * 200,
])
def test_the_depth_scan_reads_each_string_body_once(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    read = [0]
    monkeypatch.setattr(limits, "_BODIES", {kind: _CountingBody(body, read) for kind, body in limits._BODIES.items()})
    assert first_past_depth(text, 64) == _reference_depth(text, 64)
    assert read[0] <= 3 * len(text)  # each character in at most one body of each kind: linear


def _child_cpu_seconds(code: str, limit: int) -> str:
    """Run ``code`` in a child process under a CPU-time limit of ``limit`` seconds (the kernel stops it there:
    nothing here can hang the suite); its output."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))

    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=10 * limit, preexec_fn=cap, check=False)
    assert done.returncode == 0, f"stopped by the CPU limit or failed: {done.returncode}\n{done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.slow
def test_a_megabyte_of_unclosed_escaped_quotes_is_refused_in_linear_time() -> None:
    # Quadratic, each of these took tens of minutes at this size; linear, a second. The CPU limit (30 s) is
    # far from both, so a slow machine does not fail it and a quadratic scan cannot pass it.
    out = _child_cpu_seconds("""
        from ek.parsing import ParseError, parse_calls
        body = '\\\\"' * 400_000
        cases = [('()' * 70 + 'f(x="' + body, fmt) for fmt in ("python", "auto", "bfcl", "llama3")]
        cases += [('Sure: {"' + body, "auto"), ('{"' + body, "llama3"),
                  ('<tool_call>{"name": "f", "arguments": {"x": "' + body, "llama3")]
        for text, fmt in cases:
            try:
                parse_calls(text, fmt)
            except ParseError as exc:
                print(fmt, "refused:", exc.reason[:40])
            else:
                print(fmt, "read")
    """, 30)
    assert len(out.splitlines()) == 7, out


# --------------------------------------------------------------------------- the token count before ast.parse

#: Python's token types that are no part of an expression (line breaks, indentation, comments, the end).
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_PYTHON_PIECES = st.sampled_from(
    list("[](){}\"'#\\\n ,=:.+-*_01eEjxfrbt") + ['"""', "'''", '\\"', "f'", 'rb"', "1.5e-3", "0x1f", "1if", "if",
                                                  "name", "é", "1_0", "...", "**"])


def _python_tokens(text: str) -> int:
    """Tokens of ``text`` Python's own tokenizer reads before it ends or fails, layout tokens aside (an error
    token, which 3.11's pure-Python tokenizer reads on from, is where the compiler's tokenizer stops)."""
    count = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.ERRORTOKEN:
                break
            count += token.type not in _LAYOUT
    except (tokenize.TokenError, SyntaxError):
        pass
    return count


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PYTHON_PIECES, max_size=40).map("".join))
def test_the_token_count_is_never_below_pythons(text: str) -> None:
    """Under its limit by python_tokens_past, a text is under it by Python's tokenizer (and so by ``ast.parse``,
    which reads the same tokens): the count may be generous, never short."""
    tokens = _python_tokens(text)
    assert not tokens or python_tokens_past(text, tokens - 1)


def test_the_token_count_reads_strings_as_one_token_and_f_strings_as_code() -> None:
    assert not python_tokens_past("f(x='" + "a, " * 1000 + "', y=\"\"\"" + "b\n" * 1000 + '""")', 12)
    # an f-string's fields are code (and from 3.12 may hold its own quotes): ", 1, 1, ..." is not one string
    assert python_tokens_past('[f"", ' + "1, " * 100 + '""]', 100)
    assert python_tokens_past('[f"{"x", ' + "1, " * 100 + '"y"}"]', 100)
