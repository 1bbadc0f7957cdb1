"""Read-only LevelDB reader for Chromium's ``Local Storage/leveldb`` (no native dependency).

LevelDB keeps recent writes in ``*.log`` (a write-ahead log of write batches) and older ones
in ``*.ldb``/``*.sst`` tables (blocks, usually Snappy-compressed). Each entry carries a
sequence number; the newest one per key wins and a deletion hides the key. Only the files of
a copy are read: the source profile is never opened in place.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

__all__ = ["read_all", "LevelDbError"]

_BLOCK = 32768
_TABLE_MAGIC = 0xDB4775248B80FB57


class LevelDbError(ValueError):
    pass


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if pos >= len(data):
            raise LevelDbError("truncated varint")
        b = data[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7


def snappy_decompress(data: bytes) -> bytes:
    size, pos = _varint(data, 0)
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            length += 1
            out += data[pos:pos + length]
            pos += length
            continue
        if kind == 1:
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        elif kind == 2:
            length = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 2], "little")
            pos += 2
        else:
            length = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        if offset <= 0 or offset > len(out):
            raise LevelDbError("bad snappy copy offset")
        for _ in range(length):  # copies may overlap their own output
            out.append(out[-offset])
    if len(out) != size:
        raise LevelDbError("snappy length mismatch")
    return bytes(out)


# -- the write-ahead log ----------------------------------------------------------------------


def _log_records(data: bytes) -> Iterator[bytes]:
    pending = bytearray()
    for start in range(0, len(data), _BLOCK):
        block = data[start:start + _BLOCK]
        pos = 0
        while pos + 7 <= len(block):
            length, kind = struct.unpack_from("<HB", block, pos + 4)
            payload = block[pos + 7:pos + 7 + length]
            pos += 7 + length
            if kind == 0 and length == 0:
                break  # zero padding at a block's end
            if kind == 1:
                yield bytes(payload)
            elif kind == 2:
                pending = bytearray(payload)
            elif kind == 3:
                pending += payload
            elif kind == 4:
                pending += payload
                yield bytes(pending)
                pending = bytearray()


def _read_log(data: bytes, entries: dict[bytes, tuple[int, bytes | None]]) -> None:
    for batch in _log_records(data):
        if len(batch) < 12:
            continue
        seq, count = struct.unpack_from("<QI", batch, 0)
        pos = 12
        try:
            for i in range(count):
                kind = batch[pos]
                klen, pos = _varint(batch, pos + 1)
                key = batch[pos:pos + klen]
                pos += klen
                value = None
                if kind == 1:
                    vlen, pos = _varint(batch, pos)
                    value = batch[pos:pos + vlen]
                    pos += vlen
                _put(entries, key, seq + i, value)
        except (IndexError, LevelDbError):
            continue  # a torn batch at the log's end: what came before it stands


def _put(entries: dict[bytes, tuple[int, bytes | None]], key: bytes, seq: int, value: bytes | None) -> None:
    old = entries.get(key)
    if old is None or old[0] <= seq:
        entries[key] = (seq, value)


# -- tables -----------------------------------------------------------------------------------


def _block(data: bytes, offset: int, size: int) -> bytes:
    raw = data[offset:offset + size]
    kind = data[offset + size] if offset + size < len(data) else 0
    if kind == 1:
        return snappy_decompress(raw)
    if kind != 0:
        raise LevelDbError(f"unsupported block compression {kind}")
    return raw


def _block_entries(block: bytes) -> Iterator[tuple[bytes, bytes]]:
    if len(block) < 4:
        return
    restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    end = len(block) - 4 - 4 * restarts
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        unshared, pos = _varint(block, pos)
        vlen, pos = _varint(block, pos)
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + vlen]
        pos += vlen


def _read_table(data: bytes, entries: dict[bytes, tuple[int, bytes | None]]) -> None:
    if len(data) < 48 or struct.unpack_from("<Q", data, len(data) - 8)[0] != _TABLE_MAGIC:
        raise LevelDbError("not a LevelDB table")
    footer = data[-48:]
    _meta_off, pos = _varint(footer, 0)
    _meta_size, pos = _varint(footer, pos)
    index_off, pos = _varint(footer, pos)
    index_size, pos = _varint(footer, pos)
    for _key, handle in _block_entries(_block(data, index_off, index_size)):
        off, p = _varint(handle, 0)
        size, _ = _varint(handle, p)
        for ikey, value in _block_entries(_block(data, off, size)):
            tag = int.from_bytes(ikey[-8:], "little")
            _put(entries, ikey[:-8], tag >> 8, value if tag & 0xFF == 1 else None)


def read_all(directory: Path) -> dict[bytes, bytes]:
    """Every live key and value of the database in ``directory``."""
    entries: dict[bytes, tuple[int, bytes | None]] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix in (".ldb", ".sst"):
            _read_table(path.read_bytes(), entries)
        elif path.suffix == ".log":
            _read_log(path.read_bytes(), entries)
    return {k: v for k, (_seq, v) in entries.items() if v is not None}
