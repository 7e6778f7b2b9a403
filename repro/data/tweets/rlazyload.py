"""R lazy-load databases (an R package's ``data/Rdata.rdb`` and ``Rdata.rdx``), read without R.

An installed R package keeps its data sets in a lazy-load database of two files:

* the **index**, ``.rdx``: a gzip-compressed R serialisation of a list with ``variables`` (each
  object's name -> an integer pair ``[offset, length]`` into the ``.rdb``), ``references``
  (environments the objects refer to; none for plain data frames) and ``compressed``;
* the **database**, ``.rdb``: the objects one after the other. The entry at
  ``[offset, offset + length)`` is a 4-byte big-endian length of the serialisation, then that
  serialisation compressed: with zlib when ``compressed`` is TRUE (or 1), and, when it is 2 or
  3, behind one type byte (``Z`` zlib, ``2`` bzip2, ``X`` xz, ``0`` stored as it is).

The serialisations (``X\\n``, R's XDR format) are parsed and converted to Python objects (a
data frame to a :class:`pandas.DataFrame`) with the ``rdata`` package, imported only here and
only when needed (it is slow to import). Nothing is ever unpickled. Every failure (a missing
or truncated file, a corrupt stream, an unknown name, what ``rdata`` cannot parse) raises
:class:`repro.errors.InputError` whose ``str()`` is the one line ``"<path>: <cause>"``.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import struct
import warnings
import zlib

from repro.errors import InputError


def _one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{e.__class__.__name__}: {lines[0]}" if lines else e.__class__.__name__


def _convert(path: str, raw: bytes):
    """One R serialisation (uncompressed, or compressed as ``rdata`` can detect) as a Python object."""
    try:
        import rdata
    except ImportError:
        raise InputError(path, "reading an R lazy-load database needs the rdata package, which is "
                               "not installed (pip install rdata)") from None
    try:
        with warnings.catch_warnings():
            # "Unknown file type: assumed RDS", and classes without a constructor (POSIXct
            # times stay numbers: epoch seconds, UTC) are expected here
            warnings.simplefilter("ignore", UserWarning)
            return rdata.conversion.convert(rdata.parser.parse_data(raw))
    except Exception as e:  # a third-party parser: any failure is bad input, reported on one line
        raise InputError(path, f"not an R serialisation rdata can read ({_one_line(e)})") from None


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as e:
        raise InputError(path, f"cannot read ({e.strerror or e})") from None


def read_index(rdx_path: str) -> dict:
    """The index of a lazy-load database: ``{"variables": {name: (offset, length)},
    "references": ..., "compressed": int}`` (offsets and lengths as Python ints)."""
    raw = _read_bytes(rdx_path)
    if raw[:2] != b"\x1f\x8b":
        raise InputError(rdx_path, "not an R lazy-load index (not gzip-compressed)")
    try:
        raw = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        raise InputError(rdx_path, f"corrupt gzip stream ({_one_line(e)})") from None
    index = _convert(rdx_path, raw)
    variables = index.get("variables") if isinstance(index, dict) else None
    if not isinstance(variables, dict):
        raise InputError(rdx_path, "not an R lazy-load index (no variables list)")
    out = {}
    for name, pos in variables.items():
        try:
            offset, length = (int(x) for x in pos)
        except (TypeError, ValueError):
            raise InputError(rdx_path, f"bad entry for {str(name)!r} (expected offset and length)") from None
        out[str(name)] = (offset, length)
    return {"variables": out, "references": index.get("references"),
            "compressed": _compression(rdx_path, index.get("compressed", True))}


def _compression(path: str, value) -> int:
    try:
        flag = value[0] if hasattr(value, "__len__") and not isinstance(value, str) else value
        level = int(flag)
    except (TypeError, ValueError, IndexError):
        raise InputError(path, f"bad compressed flag {value!r}") from None
    if level not in (0, 1, 2, 3):
        raise InputError(path, f"unknown compression {level} (R writes 0 to 3)")
    return level


_DECODERS = {b"Z": zlib.decompress, b"2": bz2.decompress, b"X": lzma.decompress, b"0": bytes}


def _inflate(path: str, name: str, entry: bytes, compressed: int) -> bytes:
    """The serialisation held by one ``.rdb`` entry (length prefix, then the compressed bytes)."""
    if len(entry) < 4 + (compressed in (2, 3)):
        raise InputError(path, f"entry {name!r} is truncated ({len(entry)} bytes)")
    size = struct.unpack(">I", entry[:4])[0]
    body, kind = entry[4:], b"Z" if compressed == 1 else b"0"
    if compressed in (2, 3):
        kind, body = entry[4:5], entry[5:]
    decode = _DECODERS.get(kind)
    if decode is None:
        raise InputError(path, f"entry {name!r} has an unknown compression type {kind!r}")
    try:
        raw = decode(body)
    except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError) as e:
        raise InputError(path, f"entry {name!r} is corrupt ({_one_line(e)})") from None
    if len(raw) != size:
        raise InputError(path, f"entry {name!r} is corrupt ({len(raw)} bytes, its header says {size})")
    return raw


def read_object(rdb_path: str, name: str, rdx_path: str | None = None):
    """The object ``name`` of the lazy-load database ``rdb_path`` (its index ``rdx_path``,
    by default the same path ending in ``.rdx``), converted by ``rdata`` (a data frame becomes
    a :class:`pandas.DataFrame`)."""
    rdx_path = rdx_path or os.path.splitext(rdb_path)[0] + ".rdx"
    index = read_index(rdx_path)
    if name not in index["variables"]:
        known = ", ".join(sorted(index["variables"])[:10]) or "none"
        raise InputError(rdx_path, f"no object {name!r} in the index (it holds: {known})")
    offset, length = index["variables"][name]
    if offset < 0 or length < 0:
        raise InputError(rdx_path, f"bad entry for {name!r} (offset {offset}, length {length})")
    try:
        with open(rdb_path, "rb") as f:
            f.seek(offset)
            entry = f.read(length)
    except FileNotFoundError:
        raise InputError(rdb_path, "no such file") from None
    except OSError as e:
        raise InputError(rdb_path, f"cannot read ({e.strerror or e})") from None
    if len(entry) < length:
        raise InputError(rdb_path, f"truncated: entry {name!r} needs bytes {offset} to {offset + length}, "
                                   f"the file ends {length - len(entry)} bytes short")
    return _convert(rdb_path, _inflate(rdb_path, name, entry, index["compressed"]))
