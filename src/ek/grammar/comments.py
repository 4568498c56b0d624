"""Comments of a schema's text: where each is (the formatter puts them back), and what none may hold.

Comments are not part of the grammar Lark reads (``%ignore``), so they are found by a scan of their own that
skips ``#`` inside strings and regexes.
"""

from __future__ import annotations

import attrs

from ek.grammar.diagnostics import Diagnostic
from ek.grammar.strings import UNSHOWN_BUT_TAB, unshown_description

#: What a comment may not hold: :data:`ek.grammar.strings.UNSHOWN_BUT_TAB`. ``ek fmt`` and ``ek diff`` write
#: comments out as they are, so an ESC sequence in one would reach the terminal (retitle it, clear it), and a
#: bidi override would show the line in another order than it reads (the "Trojan Source" attack; rustc refuses
#: these in comments too).
_NOT_IN_COMMENTS = UNSHOWN_BUT_TAB


@attrs.frozen
class Comment:
    """``# text`` at ``line``; ``own_line`` when nothing but spaces comes before it."""

    line: int
    text: str
    own_line: bool


def scan_comments(text: str) -> list[Comment]:
    """Every comment of schema ``text``, skipping ``#`` inside strings and regexes.

    >>> scan_comments('# top\\ntool t { # open\\n  x: str /#/ = "#"  # end\\n}')
    [Comment(line=1, text='# top', own_line=True), Comment(line=2, text='# open', own_line=False), Comment(line=3, text='# end', own_line=False)]
    """
    comments: list[Comment] = []
    i, n, line, line_start = 0, len(text), 1, 0
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
            line_start = i
        elif ch == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            own = text[line_start:i].strip() == ""
            comments.append(Comment(line, text[i:end].rstrip(), own))
            i = end
        elif ch == '"':
            closer = '"""' if text.startswith('"""', i) else '"'
            j = i + len(closer)
            while j < n and not text.startswith(closer, j):
                if closer == '"' and text[j] == "\n":
                    break
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + len(closer))
            line += text.count("\n", i, j)
            if "\n" in text[i:j]:
                line_start = text.rfind("\n", i, j) + 1
            i = j
        elif ch == "/":
            j = i + 1
            while j < n and text[j] not in "/\n":
                j += 2 if text[j] == "\\" else 1
            i = min(n, j + 1) if j < n and text[j] == "/" else j
        else:
            i += 1
    return comments


def comment_problems(text: str, filename: str) -> list[Diagnostic]:
    """An error at each comment of ``text`` holding a character comments may not hold (the first one of each).

    >>> [d.message for d in comment_problems('grammar t 1  # ok\\ttab\\n# \\x1b[2J\\n', "s.ek")]
    ['a comment cannot hold the control character U+001B: ek fmt and ek diff would write it to the terminal as it is']
    """
    if _NOT_IN_COMMENTS.search(text.replace("\n", "")) is None:
        return []  # fast path: nothing to refuse anywhere in the text (most schemas)
    lines = text.split("\n")
    found = []
    for comment in scan_comments(text):
        bad = _NOT_IN_COMMENTS.search(comment.text)
        if bad is None:
            continue
        column = len(lines[comment.line - 1].rstrip()) - len(comment.text) + bad.start() + 1
        found.append(Diagnostic(filename, comment.line, column, f"a comment cannot hold "
                                f"{unshown_description(bad.group())}: ek fmt and ek diff would write it to the "
                                "terminal as it is"))
    return found
