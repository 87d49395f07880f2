"""Atomic writes: a file or a whole folder is built under a temporary name next to its target,
then renamed into place, so a reader (or a failed run) sees the old version or the new one,
never half of one. Used by ``balance report`` (a folder), ``balance snapshot`` and
``balance diff --html`` (one file)."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["write_file", "write_folder"]


def write_file(path: str | os.PathLike, content: str | bytes, *, replace: bool = True) -> Path:
    """Write ``content`` (text as UTF-8) to ``path`` atomically.

    With ``replace=False`` an existing ``path`` is never clobbered: ``FileExistsError``, even
    when the file appears while writing.
    """
    path = Path(path)
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


def write_folder(out: str | os.PathLike, files: Mapping[str, bytes | str]) -> Path:
    """Write ``files`` (relative path -> content) as the folder ``out``, atomically.

    Everything is written into a temporary folder next to ``out`` and renamed into place; an
    existing folder is replaced only once the new one is complete. On any error the temporary
    folder is removed and the previous ``out`` (if any) is left as it was.
    """
    out = Path(out).resolve()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    except OSError as exc:
        raise _cannot("write the folder", out, exc) from None
    old = None
    try:
        for rel, content in files.items():
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                path.write_text(content, encoding="utf-8")
            else:
                path.write_bytes(content)
        os.chmod(tmp, 0o755)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, old / "report")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / "report").exists() and not out.exists():
            os.rename(old / "report", out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out


def _cannot(what: str, target: Path, exc: OSError) -> OSError:
    """An OSError naming the target, not the temporary file next to it."""
    return OSError(exc.errno, f"cannot {what} {target}: {exc.strerror or exc}")
