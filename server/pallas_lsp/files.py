"""Every file pallas-lsp reads from disk goes through here.

A workspace is untrusted: a FIFO named ``pyproject.toml`` would block a plain ``open().read()``
for good, a symlink ``evil.py -> /dev/zero`` would be read until memory runs out, and a 177 MB
file would be read whole before anyone looked at its size. So a read here

* opens non-blocking, without acquiring a terminal, and refuses anything that is not a regular
  file (checked with ``stat`` before opening, so no device is ever opened, and with ``fstat`` on
  the opened descriptor, so a swap in between changes nothing);
* applies the size limit to the size ``fstat`` reports, before reading a byte, then reads at
  most ``limit + 1`` bytes (a file that grows while read is refused too);
* raises :class:`FileReadError` with a reason a person can act on ("not a regular file (FIFO)",
  "larger than 5000000 bytes (177000000 bytes)", "permission denied", "symlink loop").

:func:`decode_source` turns the bytes of a Python file into text exactly as CPython decides it
(UTF-8 BOM, PEP 263 coding line on line 1 or 2, UTF-8 otherwise) and raises
:class:`SourceDecodeError` with the line CPython would name when CPython would refuse the file.
"""
from __future__ import annotations

import codecs
import errno
import io
import os
import re
import stat
import tokenize

# The default size limit for a Python file read from disk; the same as the server's
# ``maxFileBytes`` default for open documents.
MAX_SOURCE_BYTES = 5_000_000

# A pyproject.toml, and a package's METADATA (only its first lines are wanted), are small files.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_METADATA_BYTES = 4 * 1024 * 1024

_READ_CHUNK = 1 << 20
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class FileReadError(OSError):
    """A file that was not read, and why. ``kind`` is ``"too-large"`` for a file over the size
    limit (the caller may say so differently) and ``"unreadable"`` otherwise."""

    def __init__(self, path: str | os.PathLike, reason: str, kind: str = "unreadable") -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        self.reason = reason
        self.kind = kind

    def __reduce__(self):  # picklable across ``check -j`` worker processes
        return (type(self), (self.path, self.reason, self.kind))

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class SourceDecodeError(ValueError):
    """Bytes CPython would refuse to decode as Python source; ``line`` is 1-based."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __reduce__(self):
        return (type(self), (self.message, self.line))


def describe_os_error(exc: OSError) -> str:
    """A short, lower-case reason for an ``OSError`` from opening, listing or reading."""
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.ELOOP:
        return "symlink loop"
    if code == errno.ENOENT:
        return "no such file or directory (or a broken symlink)"
    if code == errno.ENOTDIR:
        return "a component of the path is not a folder"
    if code == errno.ENXIO:
        return "not a regular file (no such device or address)"
    if code == errno.EISDIR:
        return "not a regular file (directory)"
    if code is not None:
        return os.strerror(code).lower()
    return str(exc) or type(exc).__name__


def file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISREG(mode):
        return "regular file"
    return "special file"


def folder_problem(path: str | os.PathLike) -> str | None:
    """Why the Python files of a folder were not looked at, or None: it cannot be listed (and
    why: permission denied, symlink loop, ...), or it is a symlinked folder (not followed)."""
    try:
        with os.scandir(path):
            pass
    except OSError as exc:
        return f"cannot list this folder: {describe_os_error(exc)}"
    if os.path.islink(path):
        return f"symlink to a folder ({os.path.realpath(path)}); symlinked folders are not followed"
    return None


def _too_large(path: str | os.PathLike, size: int | None, max_bytes: int) -> FileReadError:
    got = f" ({size} bytes)" if size is not None else " (it grew while being read)"
    return FileReadError(path, f"larger than {max_bytes} bytes{got}", "too-large")


def read_regular(path: str | os.PathLike, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file of at most ``max_bytes`` bytes, and the ``fstat`` of the
    descriptor they were read from (a cache key that matches exactly what was read)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise FileReadError(path, describe_os_error(exc)) from exc
    # Refused before opening: opening a device can have effects of its own (a tape rewinds).
    if not stat.S_ISREG(st.st_mode):
        raise FileReadError(path, f"not a regular file ({file_kind(st.st_mode)})")
    if st.st_size > max_bytes:
        raise _too_large(path, st.st_size, max_bytes)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise FileReadError(path, describe_os_error(exc)) from exc
    try:
        st = os.fstat(fd)  # what was opened, which may differ from what was stat'ed a moment ago
        if not stat.S_ISREG(st.st_mode):
            raise FileReadError(path, f"not a regular file ({file_kind(st.st_mode)})")
        if st.st_size > max_bytes:
            raise _too_large(path, st.st_size, max_bytes)
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            try:
                chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - total))
            except BlockingIOError as exc:  # never for a regular file; never wait if it happens
                raise FileReadError(path, "the read would block") from exc
            except OSError as exc:
                raise FileReadError(path, describe_os_error(exc)) from exc
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            raise _too_large(path, None, max_bytes)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_regular_bytes(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes; :class:`FileReadError`
    otherwise. Never blocks, never reads more than ``max_bytes + 1`` bytes."""
    return read_regular(path, max_bytes)[0]


def read_regular_text(path: str | os.PathLike, max_bytes: int, encoding: str = "utf-8",
                      errors: str = "strict") -> str:
    """:func:`read_regular_bytes`, decoded; text that does not decode is a :class:`FileReadError`
    naming the encoding and the line."""
    data = read_regular_bytes(path, max_bytes)
    try:
        return data.decode(encoding, errors)
    except UnicodeDecodeError as exc:
        raise FileReadError(path, f"not valid {encoding} (line {_line_at(data, exc.start)}): {exc.reason}") from exc


# --- Python source ------------------------------------------------------------------------------

# (BOM, name), longest first: the UTF-32-LE mark starts with the UTF-16-LE one.
_FOREIGN_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                 (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def _line_at(data: bytes, offset: int) -> int:
    """The 1-based line of a byte offset, counting ``\\n``, ``\\r\\n`` and ``\\r`` as line ends
    (as CPython's tokenizer and LSP clients do)."""
    head = data[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def _cookie_line(data: bytes) -> int:
    """The line (1 or 2) of the coding declaration, for errors about it."""
    first = io.BytesIO(data).readline()
    return 1 if b"coding" in first else 2


# PEP 263's coding line (the regular expression tokenize uses).
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def _declares_encoding(data: bytes) -> bool:
    """A UTF-8 BOM or a coding line (which ``detect_encoding`` found to say UTF-8)."""
    if data.startswith(codecs.BOM_UTF8):
        return True
    lines = io.BytesIO(data)
    return any(_COOKIE.match(lines.readline()) for _ in range(2))


def decode_source(data: bytes) -> str:
    """Python source bytes as CPython decodes them: a UTF-8 BOM, else a PEP 263 coding line on
    line 1 or 2 (``tokenize.detect_encoding``, CPython's own rules), else UTF-8. Line endings are
    kept as they are. :class:`SourceDecodeError` for what CPython refuses to run: a UTF-16 or
    UTF-32 byte order mark, an unknown or non-ASCII-compatible declared encoding, a BOM with a
    different declared encoding, and bytes that do not decode (at the line of the first)."""
    for bom, name in _FOREIGN_BOMS:
        if data.startswith(bom):
            raise SourceDecodeError(
                f"the file starts with a {name} byte order mark; CPython reads Python source as "
                "UTF-8 or in the encoding its coding line declares (PEP 263), and refuses this file", 1)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        msg = exc.msg if isinstance(exc.msg, str) else str(exc)
        if not msg.startswith("invalid or missing encoding declaration"):
            if msg.startswith("encoding problem: utf-8"):  # a UTF-8 BOM with another declared encoding
                msg = "the file starts with a UTF-8 byte order mark but declares another encoding"
            raise SourceDecodeError(f"{msg} (PEP 263)", _cookie_line(data)) from None
        encoding = "utf-8"  # no declaration, first lines not UTF-8: reported below at the byte
    declared = encoding not in ("utf-8", "utf-8-sig") or _declares_encoding(data)
    if encoding not in ("utf-8", "utf-8-sig") and b"#=:\n".decode(encoding, "replace") != "#=:\n":
        raise SourceDecodeError(f"encoding problem: {encoding} (a coding line must name an "
                                "ASCII-compatible encoding)", _cookie_line(data))
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = _line_at(data, exc.start)
        bad = data[exc.start:exc.start + 1]
        if not declared:
            raise SourceDecodeError(
                f"Non-UTF-8 code starting with '\\x{bad.hex()}' on line {line}, but no encoding "
                "declared (PEP 263)", line) from None
        raise SourceDecodeError(f"the file does not decode as {encoding}, the encoding it "
                                f"declares: byte '\\x{bad.hex()}' on line {line}", line) from None


# --- jedi's own reads ----------------------------------------------------------------------------

def guard_jedi_reads(max_bytes: int = MAX_SOURCE_BYTES) -> None:
    """jedi (import resolution) reads files itself, with plain ``open().read()``: every module it
    follows (parso's ``FileIO.read``) and, in a buildout project, the first line of each file in
    ``bin/``. A FIFO there would block the workspace analysis for good and a 177 MB module would be
    read and parsed whole. Route both through the reader above (regular files of at most
    ``max_bytes``; a refused module is an ``OSError`` jedi's caller reports as not followed).
    Process-wide and idempotent: called before jedi is first used."""
    from parso import file_io

    if getattr(file_io.FileIO.read, "_pallas_bounded", False):
        return

    def read(self) -> bytes:
        return read_regular_bytes(self.path, max_bytes)

    read._pallas_bounded = True  # type: ignore[attr-defined]
    file_io.FileIO.read = read  # jedi's FileIO subclasses parso's; KnownContentFileIO keeps its text
    try:
        from jedi.inference import InferenceState, sys_path
    except ImportError:
        return
    if hasattr(sys_path, "_get_buildout_script_paths"):
        sys_path._get_buildout_script_paths = _buildout_script_paths
    # A module jedi's finder (in its own subprocess) found arrives with its text already read:
    # refuse one over the limit before parso spends minutes on it.
    parse_and_get_code = InferenceState.parse_and_get_code

    def bounded_parse(self, code=None, path=None, *args, file_io=None, **kwargs):
        if code is None and file_io is not None:
            code = file_io.read()
        if code is not None and len(code) > max_bytes:
            raise _too_large(path or getattr(file_io, "path", "<module>"), len(code), max_bytes)
        return parse_and_get_code(self, code, path, *args, file_io=file_io, **kwargs)

    InferenceState.parse_and_get_code = bounded_parse


_MAX_BUILDOUT_SCRIPTS = 200
_MAX_BUILDOUT_SCRIPT_BYTES = 1 << 20


def _buildout_script_paths(search_path):
    """jedi's ``_get_buildout_script_paths`` (the Python scripts in a buildout project's ``bin/``),
    reading only regular files of bounded size, and at most a bounded number of them."""
    from jedi.inference import sys_path

    find_parent = getattr(sys_path, "_get_parent_dir_with_file", None)
    project_root = find_parent(search_path, "buildout.cfg") if find_parent is not None else None
    if not project_root:
        return
    bin_path = project_root.joinpath("bin")
    try:
        names = sorted(os.listdir(bin_path))[:_MAX_BUILDOUT_SCRIPTS]
    except OSError:
        return
    for name in names:
        path = bin_path.joinpath(name)
        try:
            first = read_regular_bytes(path, _MAX_BUILDOUT_SCRIPT_BYTES).split(b"\n", 1)[0]
        except FileReadError:
            continue
        if first.startswith(b"#!") and b"python" in first:
            yield path
