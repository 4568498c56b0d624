"""Reading a file or a stream whole, but no further than a limit: a file past it is refused, never read to the end.

``ek lint /dev/zero``, ``ek fmt - < /dev/zero`` or an endless pipe would otherwise take all the memory there is.
"""

from __future__ import annotations

from typing import BinaryIO


class TooLargeError(ValueError):
    """A file or stream holding more than the bytes its reader takes."""


def read_at_most(stream: BinaryIO, limit: int, what: str) -> bytes:
    """All of ``stream``'s bytes when they are at most ``limit``; else :class:`TooLargeError` saying so, after
    reading one byte more than ``limit``, no more. ``what`` names it in the message.

    >>> import io
    >>> read_at_most(io.BytesIO(b"abc"), 3, "x")
    b'abc'
    >>> read_at_most(io.BytesIO(b"abcd"), 3, "the schema")
    Traceback (most recent call last):
    ...
    ek.boundedread.TooLargeError: the schema is larger than ek reads (3 bytes)
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise TooLargeError(f"{what} is larger than ek reads ({limit} bytes)")
    return data


__all__ = ["TooLargeError", "read_at_most"]
