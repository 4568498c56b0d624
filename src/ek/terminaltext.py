"""Text ek did not write (a corpus id, a model's output, a file name, a schema's line) made safe to print: the one
answer to which characters a terminal is shown as themselves.

A character is shown as itself when Python calls it printable (:meth:`str.isprintable`): letters, marks, digits,
punctuation, symbols and the ASCII space. Every other one is not: the C0 and C1 controls and DEL (ESC starts the
sequences that recolour, move the cursor, retitle the window; BEL rings), the line and paragraph separators, the
format characters (the bidi overrides and isolates that make a line display in another order than it reads,
zero-width characters), other spaces than the ASCII one, lone surrogates (which a UTF-8 terminal cannot be sent),
private-use and unassigned code points. :func:`escaped` writes each as its Python escape (``\\x1b``,
``\\u202e``), which says what was there; :func:`replaced` puts one replacement character in its place, so a caret
under the line stays under the token it points at.

``keep`` is for the layout characters a caller shows as themselves on purpose, and only those: a tab in a
diagnostic's source line (the caret line repeats it, so the caret lines up whatever the terminal's tab width),
newlines and tabs in the HTML report's cells (the page lays them out; they drive nothing).
"""

from __future__ import annotations


def escaped(text: str, *, keep: str = "") -> str:
    r"""``text`` with every character that is not printable, but those in ``keep``, written as its escape.

    Fast path: a text whose every character is printable (what nearly every cell, id and file name is) is
    returned as it is, without the walk character by character.

    >>> escaped("evil\x1b[2J\u202etxt\tx"), escaped("a\tb\nc", keep="\t")
    ('evil\\x1b[2J\\u202etxt\\tx', 'a\tb\\nc')
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else repr(ch)[1:-1] for ch in text)


def replaced(text: str, *, keep: str = "", by: str = "\ufffd") -> str:
    r"""``text`` with every character that is not printable, but those in ``keep``, replaced by ``by`` (one
    character for one: positions in the text still hold).

    >>> replaced("x: \x1b[31m\x07 z\t!", keep="\t")
    'x: \ufffd[31m\ufffd z\t!'
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else by for ch in text)


__all__ = ["escaped", "replaced"]
