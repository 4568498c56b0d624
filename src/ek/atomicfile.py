"""Replace a text file in one step, with the permissions a plain write would give it.

``tempfile.mkstemp`` creates its file readable by the owner only, so a file
renamed from it would be unreadable to everyone else (a generated package
shared by a team, a schema in a group-readable repository). The temporary
file here is created with mode ``0o666`` minus the process umask, as
``open(path, "w")`` would, and a file being replaced keeps its own mode.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through a sibling temp file and ``os.replace``.

    Readers see the old file or the new one, never half of one; an error
    removes the temp file and leaves ``path`` as it was.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep_mode: int | None = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        keep_mode = None
    fd, tmp = _create_sibling(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _create_sibling(target: Path) -> tuple[int, Path]:
    """A new, exclusively created file next to ``target``: (descriptor, path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file next to {target}")
