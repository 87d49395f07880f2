"""Atomic writes: a file or a whole folder is built under a temporary name next to its target,
then renamed into place, so a reader (or a failed run) sees the old version or the new one,
never half of one. Used by ``balance report`` (a folder), ``balance snapshot``,
``balance diff --csv/--html`` and :func:`balance.plots.save` (one file).

Every output path goes through :func:`check_output_file` (or :func:`check_output_folder`): an
existing target that is not a regular file (a folder) is refused, so a FIFO, a socket or a
device such as ``/dev/null`` is never replaced, whoever runs the command.

A folder is swapped in with one atomic exchange where the system offers it (Linux
``renameat2(RENAME_EXCHANGE)``); elsewhere with two renames, and a run killed between them leaves
the old folder beside the target (``.NAME.old-XXXXXXXX/report``), which the next write of that
folder moves back before doing anything else (:func:`recover_folder`).
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

__all__ = ["write_file", "write_folder", "check_output_file", "check_output_folder",
           "exchange", "recover_folder"]

_KINDS = ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO (named pipe)"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
          (stat.S_ISSOCK, "socket"))


def _named(what: str | None, path: str | os.PathLike) -> str:
    return f"{what} {path}" if what else str(path)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "special file")


def _stat(path: Path, what: str | None) -> os.stat_result | None:
    """``os.stat(path)`` (following links), None when nothing is there."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise ValueError(f"{_named(what, path)}: a part of the path is a file, not a folder"
                         ) from None
    except OSError as exc:
        raise ValueError(f"{_named(what, path)}: cannot be checked "
                         f"({exc.strerror or exc})") from None
    except ValueError:  # an embedded NUL character
        raise ValueError(f"{_named(what, repr(str(path)))}: not a valid file name") from None


def check_output_file(what: str | None, path: str | os.PathLike) -> Path:
    """``path`` as a Path if it is absent or a regular file (what may be replaced by a file).

    Anything else (a directory, a FIFO, a socket, a character or block device) raises a
    one-line ``ValueError`` naming ``what`` (the argument, e.g. ``"--csv"``), as root too and
    whatever ``--force`` says.
    """
    path = Path(path)
    found = _stat(path, what)
    if found is None or stat.S_ISREG(found.st_mode):
        return path
    raise ValueError(f"{_named(what, path)}: is a {_kind(found.st_mode)}, not a regular file; "
                     "give the name of a new file or of a regular file to replace")


def check_output_folder(what: str | None, path: str | os.PathLike) -> Path:
    """``path`` as a Path if it is absent or a directory (following links); anything else
    (a regular file, a FIFO, a device...) raises a one-line ``ValueError`` naming ``what``."""
    path = Path(path)
    found = _stat(path, what)
    if found is None or stat.S_ISDIR(found.st_mode):
        return path
    kind = "file" if stat.S_ISREG(found.st_mode) else _kind(found.st_mode)
    raise ValueError(f"{_named(what, path)}: is a {kind}, not a folder; give the name of a new "
                     "or empty folder, or of an earlier report")


def write_file(path: str | os.PathLike, content: str | bytes, *, replace: bool = True,
               what: str | None = None) -> Path:
    """Write ``content`` (text as UTF-8) to ``path`` atomically.

    With ``replace=False`` an existing ``path`` is never clobbered: ``FileExistsError``, even
    when the file appears while writing. A ``path`` that exists and is not a regular file is
    refused (:func:`check_output_file`; ``what`` names the argument in the message), checked
    again just before the rename.
    """
    path = check_output_file(what, path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _cannot("write", path, exc) from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the usual permissions
        data = content.encode("utf-8") if isinstance(content, str) else content
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        check_output_file(what, path)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if the file appeared meanwhile
            except FileExistsError:
                raise
            except OSError:  # file systems without hard links
                if path.exists():
                    raise FileExistsError(path) from None
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def write_folder(out: str | os.PathLike, files: Mapping[str, bytes | str], *,
                 what: str | None = None, verify: Callable[[Path], None] | None = None
                 ) -> Path:
    """Write ``files`` (relative path -> content) as the folder ``out``, atomically.

    Everything is written into a temporary folder next to ``out``, then swapped in
    (:func:`exchange`, or two renames with recovery: see the module's docstring); an existing
    folder is replaced only once the new one is complete. On any error the temporary folder is
    removed and the previous ``out`` (if any) is left as it was. ``out`` must be absent or a
    folder (:func:`check_output_folder`); deciding whether its contents may be replaced is the
    caller's job (``balance report`` checks its marker file, :mod:`balance.report.folder`),
    and ``verify(out)``, called under the lock just before the swap, may refuse by raising.
    """
    out = check_output_folder(what, Path(out).resolve())
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot("write the folder", out, exc) from None
    with _locked(out.parent):
        _recover(out)
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        except OSError as exc:
            raise _cannot("write the folder", out, exc) from None
        try:
            for rel, content in files.items():
                path = tmp / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, str):
                    path.write_text(content, encoding="utf-8")
                else:
                    path.write_bytes(content)
            os.chmod(tmp, 0o755)
            check_output_folder(what, out)
            if verify is not None:
                verify(out)
            if out.exists():
                _swap(tmp, out)
            else:
                os.rename(tmp, out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # the new folder unused, or the old swapped
    return out


def _swap(new: Path, out: Path) -> None:
    """Put folder ``new`` at ``out`` (an existing folder); the old one ends at ``new``'s path
    (removed by the caller), or, when two renames are needed, in ``.NAME.old-XXXXXXXX/report``
    between them (recovered by :func:`recover_folder` if the run dies there)."""
    if exchange(new, out):
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    try:
        os.rename(out, old / "report")
    except BaseException:
        os.rmdir(old)
        raise
    try:
        os.rename(new, out)
    except BaseException:
        os.rename(old / "report", out)  # if this fails too, the next run moves it back
        os.rmdir(old)
        raise
    shutil.rmtree(old, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Swap the paths ``a`` and ``b`` (both existing) in one atomic step; False when the system
    cannot (not Linux, an old kernel or C library, a file system without it), doing nothing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # C library without renameat2 (glibc < 2.28, musl...)
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, f"cannot swap {b} with its new version: {os.strerror(code)}")


def recover_folder(out: str | os.PathLike) -> None:
    """Undo what a killed :func:`write_folder` of ``out`` left: if ``out`` is missing and the
    old folder waits beside it (``.NAME.old-XXXXXXXX/report``), move it back; then remove that
    write's temporary folders (``.NAME.tmp-XXXXXXXX``, ``.NAME.old-XXXXXXXX``). Writers of the
    same parent folder hold a lock meanwhile, so a running write's folders are never taken."""
    out = Path(out).resolve()
    if out.parent.is_dir():
        with _locked(out.parent):
            _recover(out)


def _recover(out: Path) -> None:
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(tmp|old)-[a-z0-9_]{{8}}")
    try:
        with os.scandir(out.parent) as entries:
            debris = [Path(e.path) for e in entries if pattern.fullmatch(e.name)
                      and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    if not os.path.lexists(out):
        olds = [p / "report" for p in debris if ".old-" in p.name and (p / "report").is_dir()]
        if olds:
            newest = max(olds, key=lambda p: p.stat().st_mtime)
            os.rename(newest, out)
    for path in debris:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``folder`` (where the system has ``flock``)."""
    try:
        import fcntl
        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)


def _cannot(what: str, target: Path, exc: OSError) -> OSError:
    """An OSError naming the target, not the temporary file next to it."""
    return OSError(exc.errno, f"cannot {what} {target}: {exc.strerror or exc}")
