"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, xorout 0."""


def _table():
    t = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        t.append(c & 0xFFFF)
    return tuple(t)


_TABLE = _table()


def crc16(data, crc=0xFFFF):
    """CRC of `data`; pass a previous result as `crc` to continue over several pieces."""
    t = _TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[((crc >> 8) ^ b) & 0xFF]
    return crc
