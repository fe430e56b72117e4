"""Canonical COBS: a full 254-byte block at the end of a frame takes no extra code byte."""


def encode(raw):
    out = bytearray()
    pieces = bytes(raw).split(b"\x00")
    last = len(pieces) - 1
    for k in range(len(pieces)):
        piece = pieces[k]
        had_data = len(piece) > 0
        while len(piece) >= 254:
            out.append(0xFF)
            out.extend(piece[:254])
            piece = piece[254:]
        if k == last and had_data and len(piece) == 0:
            break
        out.append(len(piece) + 1)
        out.extend(piece)
    return bytes(out)


def decode(enc):
    """Raw bytes of one COBS block (no delimiter), or None if it is malformed."""
    out = bytearray()
    i = 0
    n = len(enc)
    while i < n:
        code = enc[i]
        if code == 0:
            return None
        end = i + code
        if end > n:
            return None
        chunk = enc[i + 1:end]
        if 0 in chunk:
            return None
        out.extend(chunk)
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
