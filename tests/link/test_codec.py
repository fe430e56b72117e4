"""The link codec against docs/protocol.md and the vectors of tools/make_vectors.py, byte for byte."""
import json

import cobs.cobs as reference_cobs
import pytest
from hypothesis import given, settings, strategies as st

from shared_rules.link import cobs, frames
from shared_rules.link.crc import crc16
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import EVENT, HEARTBEAT, HELLO


@pytest.fixture
def vectors():
    from tests.conftest import LINK_VECTORS
    return json.loads(LINK_VECTORS.read_text(encoding="utf-8"))


def frame_of(vector):
    f = dict(vector["fields"])
    f["type"] = vector["type"]
    f["seq"] = vector["seq"]
    return f


def test_crc_check_value(vectors):
    assert crc16(vectors["crc_check"]["input_ascii"].encode()) == int(vectors["crc_check"]["crc"], 16)


def test_cobs_examples_byte_for_byte(vectors):
    assert vectors["cobs_examples"]
    for ex in vectors["cobs_examples"]:
        raw, enc = bytes.fromhex(ex["raw_hex"]), bytes.fromhex(ex["cobs_hex"])
        assert cobs.encode(raw) == enc
        assert cobs.decode(enc) == raw


def test_frames_encode_and_decode_byte_for_byte(vectors):
    assert len(vectors["frames"]) >= 9
    for v in vectors["frames"]:
        wire = bytes.fromhex(v["wire_hex"])
        assert frames.encode(frame_of(v)) == wire, v["name"]
        decoded = frames.decode(wire)
        assert isinstance(decoded, dict), (v["name"], decoded)
        for key, value in frame_of(v).items():
            assert decoded[key] == value, (v["name"], key)
        # The body under COBS is exactly the published decoded frame.
        assert cobs.decode(wire[:-1]).hex() == v["decoded_hex"]


def test_reader_takes_the_whole_vector_stream_in_one_go(vectors):
    stream = b"".join(bytes.fromhex(v["wire_hex"]) for v in vectors["frames"])
    got = FrameReader().feed(stream)
    assert [f["type"] for f in got] == [v["type"] for v in vectors["frames"]]


@given(st.binary(max_size=600))
def test_cobs_matches_the_reference_package_and_round_trips(raw):
    enc = cobs.encode(raw)
    assert enc == reference_cobs.encode(raw)
    assert 0 not in enc
    assert cobs.decode(enc) == raw


events = st.fixed_dictionaries({
    "type": st.just(EVENT), "seq": st.integers(0, 0xFFFF), "t_us": st.integers(0, 2**64 - 1),
    "kind": st.integers(1, 6), "index": st.integers(0, 255), "value": st.integers(0, 0xFFFF),
    "flags": st.integers(0, 255)})
hellos = st.fixed_dictionaries({
    "type": st.just(HELLO), "seq": st.just(0), "boot_id": st.integers(0, 2**32 - 1),
    "fw_major": st.integers(0, 255), "fw_minor": st.integers(0, 255), "pockets": st.just(6),
    "rails": st.just(6), "features": st.integers(0, 15),
    "name": st.text(max_size=8, alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)))})
heartbeats = st.fixed_dictionaries({
    "type": st.just(HEARTBEAT), "seq": st.integers(0, 0xFFFF), "boot_id": st.integers(0, 2**32 - 1),
    "t_us": st.integers(0, 2**64 - 1), "backlog": st.integers(0, 0xFFFF),
    "dropped": st.integers(0, 2**32 - 1)})
any_frame = st.one_of(events, hellos, heartbeats)


@given(st.lists(any_frame, max_size=12))
def test_frames_round_trip_through_the_reader(fs):
    got = FrameReader().feed(b"".join(frames.encode(f) for f in fs))
    assert len(got) == len(fs)
    for sent, rec in zip(fs, got):
        for k, v in sent.items():
            assert rec[k] == v


@settings(max_examples=300)
@given(st.lists(any_frame, min_size=1, max_size=10), st.randoms(use_true_random=False),
       st.binary(max_size=40))
def test_corruption_truncation_and_garbage_never_yield_a_bad_frame(fs, rnd, garbage):
    """Whatever happens on the wire, the reader yields only frames that were sent, in order."""
    wires = [frames.encode(f) for f in fs]
    stream = bytearray()
    intact = []
    for w in wires:
        w = bytearray(w)
        roll = rnd.random()
        if roll >= 0.35:
            intact.append(frames.decode(bytes(w)))
        if roll < 0.2:                       # flip one bit
            i = rnd.randrange(len(w) - 1)
            w[i] ^= 1 << rnd.randrange(8)
            if w[i] == 0:
                w[i] = 0x55
        elif roll < 0.35:                    # truncated: the delimiter arrives early
            w = w[:rnd.randrange(1, len(w) - 1)] + b"\x00"
        stream += w
        if rnd.random() < 0.3:
            stream += garbage + b"\x00"
    reader = FrameReader()
    got = []
    for i in range(0, len(stream), 7):       # arbitrary chunking
        got.extend(reader.feed(bytes(stream[i:i + 7])))
    sent = [frames.decode(w) for w in wires]
    it = iter(sent)
    for g in got:                            # every frame out is one that was sent, in order
        assert any(g == s for s in it)
    assert [g for g in got if g in intact] == intact     # nothing intact was lost


@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data):
    reader = FrameReader()
    for f in reader.feed(data):
        assert isinstance(f, dict) and "type" in f


def test_one_bit_flip_is_counted_as_an_error_not_a_frame():
    w = bytearray(frames.encode({"type": EVENT, "seq": 5, "t_us": 1, "kind": 1, "index": 2,
                                 "value": 8, "flags": 0}))
    w[5] ^= 0x10
    reader = FrameReader()
    assert reader.feed(bytes(w)) == []
    assert reader.error_count() == 1


def test_micropython_runs_the_codec_vectors():
    from tests.conftest import LINK_VECTORS, ROOT, run_micropython
    p = run_micropython(ROOT / "tests" / "mpy" / "codec_vectors.py", LINK_VECTORS)
    assert p.returncode == 0, p.stderr + p.stdout
    assert "vectors ok" in p.stdout


def test_a_hello_with_a_name_that_is_not_utf8_is_still_a_hello():
    """The name is a label; dropping the frame would stall the link (HELLO is reliable)."""
    from shared_rules.link.frames import LAYOUT, pack
    import struct
    payload = struct.pack(LAYOUT[HELLO][0], 7, 1, 1, 0, 6, 6, 15) + b"t\xff\xfe1"
    f = FrameReader().feed(pack(HELLO, 0, payload))
    assert len(f) == 1 and f[0]["boot_id"] == 7 and f[0]["name"] == "t??1"
