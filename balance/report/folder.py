"""Where ``balance report`` may write: a folder that is absent, empty, or an earlier report.

An earlier report is recognised by its marker file, :data:`MARKER` (``.balance-report.json``:
the ``balance`` version and the list of files the report wrote), and by holding nothing else.
Any other folder is refused before any work, naming what it holds. With ``force`` the report's
files are written among the others, and only they are replaced (and the files of an earlier
report that the new one no longer has removed); everything else stays. A report into an
absent, empty or report folder is swapped in atomically (:func:`balance._atomic.write_folder`,
which also recovers what a killed run left); a forced one is written file by file, each file
atomically.
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .._atomic import (_named, check_output_file, check_output_folder, recover_folder,
                       write_file, write_folder)

__all__ = ["MARKER", "ReportFolder", "inspect_folder", "check_report_folder",
           "write_report_folder"]

#: the marker file a report writes into its folder
MARKER = ".balance-report.json"
#: names a report always writes (its figures go under ``figures/``)
REPORT_NAMES = ("index.html", "report.md", "figures")
#: a marker larger than this, or listing more files, is not one of ours
MAX_MARKER_BYTES = 1_000_000
MAX_MARKER_FILES = 10_000
#: foreign entries named in a refusal
SHOWN = 5
#: the default reports' parent folder (``reports/<name>``, relative to the working folder):
#: the only missing parent a report makes; any other must exist (a typo is not a new tree)
DEFAULT_PARENT = "reports"


@dataclass(frozen=True)
class ReportFolder:
    """What ``path`` holds: ``state`` is ``"absent"``, ``"empty"``, ``"report"`` (an earlier
    report and nothing else) or ``"foreign"``; ``own`` the earlier report's files (from its
    marker), ``foreign`` up to ``SHOWN + 1`` entries that are not the report's."""

    path: Path
    state: str
    own: frozenset[str] = frozenset()
    foreign: tuple[str, ...] = ()


def _plain(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


def _safe_relative(name: object) -> bool:
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
        return False
    parts = name.split("/")
    return all(p not in ("", ".", "..") for p in parts) and name != MARKER


def _read_marker(path: Path) -> frozenset[str] | None:
    """The files listed by the marker at ``path``; None if it is not a valid marker."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MARKER_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    files = doc.get("files") if isinstance(doc, dict) else None
    if (not isinstance(files, list) or len(files) > MAX_MARKER_FILES
            or not all(_safe_relative(f) for f in files)):
        return None
    return frozenset(files)


def marker_text(files) -> str:
    """The marker's JSON for a report made of ``files`` (relative paths)."""
    from .. import __version__
    return json.dumps({"balance": __version__, "what": "balance report",
                       "files": sorted(files)}, indent=1) + "\n"


def inspect_folder(path: str | os.PathLike) -> ReportFolder:
    """Classify the folder ``path`` (which must be absent or a folder). Bounded: only the
    folders an earlier report wrote are walked, and it stops at ``SHOWN + 1`` foreign
    entries."""
    path = Path(path)
    if not os.path.lexists(path):
        return ReportFolder(path, "absent")
    with os.scandir(path) as entries:
        if next(entries, None) is None:
            return ReportFolder(path, "empty")
    own = _read_marker(path / MARKER)
    valid = own is not None
    own = own or frozenset()
    folders = {str(PurePosixPath(f).parents[i]) for f in own
               for i in range(len(PurePosixPath(f).parts) - 1)}
    foreign: list[str] = []
    todo = [""]
    while todo and len(foreign) <= SHOWN:
        here = todo.pop()
        with os.scandir(path / here) as entries:
            for entry in entries:
                rel = f"{here}/{entry.name}" if here else entry.name
                is_dir = entry.is_dir(follow_symlinks=False)
                if (rel == MARKER and valid) or (rel in own and entry.is_file(
                        follow_symlinks=False)):
                    continue
                if is_dir and rel in folders:
                    todo.append(rel)
                    continue
                foreign.append(rel + ("/" if is_dir else ""))
                if len(foreign) > SHOWN:
                    break
    state = "report" if valid and not foreign else "foreign"
    return ReportFolder(path, state, own, tuple(sorted(foreign)))


def check_report_folder(out: str | os.PathLike, *, force: bool = False,
                        what: str | None = "out") -> ReportFolder:
    """Check, before any work, that a report may be written to ``out``; recover first what a
    killed run left beside it (:func:`balance._atomic.recover_folder`).

    Raises
    ------
    ValueError
        One line naming ``what`` (the argument): ``out`` is not a folder (a file, a FIFO, a
        device: even with ``force``), or holds files that are not an earlier report (unless
        ``force``), or, with ``force``, a report file's name is taken by something that is not
        a regular file; or the folder ``out`` is in does not exist (only the default
        :data:`DEFAULT_PARENT` folder is made when missing: a typo never creates a tree).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> check_report_folder(root / "new").state
    'absent'
    >>> check_report_folder(root / "typo" / "new", what="--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: --out .../typo/new: the folder .../typo does not exist; create it first ...
    >>> root.rmdir()
    """
    shown = _plain(_named(what, out))
    check_output_folder(what, out)
    path = Path(out).resolve()
    parent = path.parent
    if not os.path.isdir(parent) and parent != Path(DEFAULT_PARENT).resolve():
        raise ValueError(f"{shown}: the folder {_plain(str(Path(out).parent))} does not exist; "
                         f"create it first or choose another {what or 'out'}")
    recover_folder(path)
    folder = inspect_folder(path)
    if folder.state != "foreign":
        return folder
    if not force:
        names = ", ".join(_plain(n) for n in folder.foreign[:SHOWN])
        more = ", ..." if len(folder.foreign) > SHOWN else ""
        flag = "--force" if what and what.startswith("--") else "force=True"
        taken = [n for n in folder.foreign if n.rstrip("/") in REPORT_NAMES]
        also = f" (it would overwrite {', '.join(taken)})" if taken else ""
        raise ValueError(f"{shown}: the folder holds files that are not a balance report "
                         f"({names}{more}); choose an empty or new folder, or pass {flag} to "
                         f"replace only the report's own files{also}")
    for name in ("index.html", "report.md", MARKER):
        check_output_file(what, path / name)
    figures = path / "figures"
    if os.path.lexists(figures) and (figures.is_symlink() or not figures.is_dir()):
        raise ValueError(f"{_plain(_named(what, figures))}: is not a folder; the report "
                         "writes its figures there")
    return folder


def write_report_folder(out: str | os.PathLike, files: Mapping[str, bytes | str], *,
                        force: bool = False, what: str | None = "out") -> Path:
    """Write the report ``files`` (relative path -> content) and the marker into ``out``,
    after :func:`check_report_folder`; returns the folder's resolved path."""
    folder = check_report_folder(out, force=force, what=what)
    names = set(files)
    if folder.state != "foreign":
        def unchanged(path: Path) -> None:  # nothing of the user's appeared meanwhile
            if inspect_folder(path).state == "foreign":
                check_report_folder(path, force=False, what=what)
        return write_folder(folder.path, {MARKER: marker_text(names), **files}, what=what,
                            verify=unchanged)
    path = folder.path  # forced, among other files: each file replaced atomically
    write_file(path / MARKER, marker_text(names | folder.own), what=what)
    for rel, content in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        write_file(path / rel, content, what=what)
    for rel in sorted(folder.own - names):
        stale = path / rel
        inside = [stale, *(p for p in stale.parents if path in p.parents)]
        if stale.is_file() and not any(p.is_symlink() for p in inside):
            stale.unlink()
            for parent in inside[1:]:  # its folders, once empty (figures/)
                with contextlib.suppress(OSError):
                    parent.rmdir()
    write_file(path / MARKER, marker_text(names), what=what)
    return path

