"""Replace a text file in one step, durably, with the permissions a plain write would give it.

Every file ek writes (reports, generated modules, imported or formatted
schemas) goes through :func:`write_text_atomic`: a sibling temporary file is
written and flushed to disk (``fsync``), then renamed over the target, and the
folder is synced so the rename survives a crash. A run killed at any moment
leaves the previous file or the complete new one, never a truncated one.
Only regular files are replaced: a device or a pipe (``--json /dev/stdout``)
is written in place, and a symlink keeps pointing where it pointed. A symlink
that points at nothing is refused, naming it: writing through it would create
a file (and folders) wherever it happens to point.

``tempfile.mkstemp`` creates its file readable by the owner only, so a file
renamed from it would be unreadable to everyone else (a generated package
shared by a team, a schema in a group-readable repository). The temporary
file here is created with mode ``0o666`` minus the process umask, as
``open(path, "w")`` would, and a file being replaced keeps its own mode.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ek.jsontext import dumps_indented


def write_text_atomic(path: str | os.PathLike[str], text: str, *, errors: str = "strict") -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through a sibling temp file and ``os.replace``.

    Readers see the old file or the new one, never half of one; an error
    removes the temp file and leaves ``path`` as it was. ``errors`` is the
    encoder's policy for text UTF-8 cannot hold (a lone surrogate read from a
    model's output): ``"backslashreplace"`` for JSON, ``"xmlcharrefreplace"`` for HTML.
    """
    with open_text_atomic(path, errors=errors) as handle:
        handle.write(text)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` as :func:`write_text_atomic` writes text: a sibling temp file, synced,
    then renamed over ``path``; an error removes the temp file and leaves ``path`` as it was."""
    target, _status = _target(path)
    fd, tmp = _create_sibling(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


@contextmanager
def open_text_atomic(path: str | os.PathLike[str], *, errors: str = "strict") -> Iterator[TextIO]:
    """A text handle whose whole content replaces ``path`` when the block ends without an error, as
    :func:`write_text_atomic` does; for files written piece by piece (``--episodes-out``, chunk by chunk).
    An exception in the block removes the temp file and leaves ``path`` as it was."""
    target, status = _target(path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        # /dev/stdout, a pipe, a device: written in place, never replaced
        with open(target, "w", encoding="utf-8", errors=errors, newline="\n") as handle:
            yield handle
        return
    keep_mode = None if status is None else status.st_mode & 0o7777
    fd, tmp = _create_sibling(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline="\n") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def write_texts_atomic(files: Mapping[str | os.PathLike[str], str]) -> None:
    """Write several text files as :func:`write_text_atomic` writes one, and replace none of them unless every one
    could be written: each is written to a sibling temp file and synced first, then each is renamed over its
    target (``ek gen``'s modules and their index: an unwritable one left the others replaced before).

    An error while writing (a target that is a folder or no regular file, a full disk) removes every temp file and
    leaves every target as it was; it is an ``OSError`` whose ``filename`` is the target. The renames that follow
    are each atomic, and only a crash between two of them can leave some files new and some old.
    """
    staged: list[tuple[Path, Path, int | None]] = []
    try:
        for path, text in files.items():
            try:
                _stage(path, text, staged)
            except OSError as exc:  # named by the target, not by a temp file or a folder on its way
                raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        for tmp, target, _mode in staged:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _target, _mode in staged:
            tmp.unlink(missing_ok=True)
        raise
    for folder in dict.fromkeys(target.parent for _tmp, target, _mode in staged):
        _sync_folder(folder)


def _stage(path: str | os.PathLike[str], text: str, staged: list[tuple[Path, Path, int | None]]) -> None:
    """Write ``text`` to a synced sibling temp file of ``path``'s target, and add ``(temp, target, mode to keep)``
    to ``staged`` as soon as the temp file exists (so that the caller removes it whatever happens next)."""
    target, status = _target(path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        folder = stat.S_ISDIR(status.st_mode)
        raise OSError(errno.EISDIR if folder else errno.EINVAL,
                      f"{'a folder' if folder else 'not a regular file'}, which ek does not replace", str(path))
    keep_mode = None if status is None else status.st_mode & 0o7777
    fd, tmp = _create_sibling(target)
    staged.append((tmp, target, keep_mode))
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    if keep_mode is not None:
        os.chmod(tmp, keep_mode)


def write_json_atomic(path: str | os.PathLike[str], payload: Any) -> None:
    """``payload`` as indented UTF-8 JSON (keys in the order given, so files diff cleanly), written atomically.

    Values JSON cannot hold are written by ``repr``; a lone surrogate is written as its ``\\udfff`` escape.
    The text is ``json.dumps(payload, indent=2, ensure_ascii=False, default=repr)``'s, written faster
    (:func:`ek.jsontext.dumps_indented`).
    """
    text = dumps_indented(payload) + "\n"
    write_text_atomic(path, text, errors="backslashreplace")


def writes_over(output: str | os.PathLike[str], source: str | os.PathLike[str]) -> bool:
    """Whether writing the file ``output`` would replace what ``source`` is read from: the same file through
    links and spellings, and for ``source`` ``-`` (stdin) the file the shell redirected into it
    (``ek compare - B.jsonl --json A.jsonl < A.jsonl``). A path that does not exist yet is the same as
    another spelled the same.

    The one answer to "is this output an input?" for every command that writes a file (``ek score`` and
    ``ek compare`` reports, ``ek export -o``, ``ek import -o``)."""
    def identity(status: os.stat_result) -> tuple[int, int]:
        return status.st_dev, status.st_ino

    try:
        written = identity(os.stat(output))
    except OSError:
        written = None
    if os.fspath(source) == "-":
        try:
            status = os.fstat(0)
        except OSError:  # no stdin at all
            return False
        return written is not None and stat.S_ISREG(status.st_mode) and identity(status) == written
    try:
        read = identity(os.stat(source))
    except OSError:
        read = None
    if written is not None and read is not None:
        return written == read
    return os.path.abspath(output) == os.path.abspath(source)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX); a file system that cannot sync a folder is left as it is."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _target(path: str | os.PathLike[str]) -> tuple[Path, os.stat_result | None]:
    """The file ``path`` names (through a symlink: the file it points at is replaced, the link kept), its folder
    created when missing, and its status (None when it does not exist yet).

    A new file is never created through a symlink that points at nothing (``path`` itself, or a folder on its
    way): that would write, and create folders, wherever the link happens to point. It is an ``OSError``
    naming the link and where it points, before anything is written."""
    target = Path(os.path.realpath(path))
    try:
        return target, os.stat(target)
    except FileNotFoundError:
        pass
    link = _dangling_link(path)
    if link is not None:
        what = "a symlink" if link == os.path.abspath(path) else f"on the way, {link} is a symlink"
        raise OSError(errno.ENOENT, f"{what} to {os.readlink(link)}, which does not exist: ek creates no file "
                                    "through a link", link)
    target.parent.mkdir(parents=True, exist_ok=True)
    return target, None


def _dangling_link(path: str | os.PathLike[str]) -> str | None:
    """``path``, or the first folder on its way up, that is a symlink to nothing; None if there is none."""
    here = Path(os.path.abspath(path))
    for candidate in (here, *here.parents):
        if candidate.is_symlink() and not candidate.exists():
            return str(candidate)
    return None


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
