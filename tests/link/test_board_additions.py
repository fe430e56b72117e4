"""The link's additions of firmware 1.2 (FAULT_TEXT, LOOP_RATE): the daemon takes them as
information (the text journaled with its FAULT, the loop's rate in state.link.loop), and they
are harmless to a host that does not know them (a contract v1 host) and to the board itself
over a noisy line; every event still arrives once and in order."""
from host.link.session import Session, INFO
from shared_rules.link import frames
from shared_rules.link.names import FAULT_TEXT, LOOP_RATE, HELLO, EVENT, FAULT, FAULT_BOARD
from shared_rules.link.sender import Sender
from tests.link import noisy
from tests.link.test_interop import BOOT, FAULTS, delivered_once_in_order
from tests.link.v1 import V1Host


def test_the_session_takes_them_as_information_and_keeps_its_place():
    s = Session()
    s.on_frame(frames.decode(frames.encode({"type": HELLO, "seq": 0, "boot_id": 9, "fw_major": 1,
                                            "fw_minor": 2, "pockets": 6, "rails": 6, "features": 15,
                                            "name": "t"})), 1.0)
    text = frames.decode(frames.fault_text(9, 1, 17, "RuntimeError: shift register on fire"))
    rate = frames.decode(frames.encode({"type": LOOP_RATE, "seq": 0, "boot_id": 9, "window_us": 10 ** 7,
                                        "passes": 9731, "longest_us": 4210, "busy_us": 2212004}))
    for f in (text, rate):
        assert s.on_frame(f, 2.0)["action"] == INFO
        assert (s.boot_id, s.expect) == (9, 1)
    assert s.loop == {"passes_per_s": 973, "pass_us": 227, "longest_us": 4210, "busy": 0.221}
    d = s.on_frame(frames.decode(frames.encode({"type": EVENT, "seq": 1, "t_us": 5, "kind": FAULT,
                                                "index": FAULT_BOARD, "value": 17, "flags": 0})), 3.0)
    assert d["action"] == "accept" and d["entry"]["value"] == 17
    assert d["entry"]["text"] == "RuntimeError: shift register on fire"


class Talkative(Sender):
    """The board's sender with a FAULT text on every tenth event and a loop report every 20th."""

    def push_event(self, t_us, kind, index, value, flags=0):
        seq = self.next_seq()
        ok = Sender.push_event(self, t_us, kind, index, value, flags)
        if ok and seq % 10 == 3:
            self.attach_text(seq, 17, "text of seq %d" % seq)
        if seq % 20 == 0:
            self.report_loop(10 ** 7, seq, 4000, 2 * 10 ** 6)
        return ok


def test_texts_and_loop_reports_into_today_s_daemon_over_a_noisy_line():
    host = noisy.DaemonHost()
    try:
        r = noisy.run(Talkative(BOOT), host, noisy.offered(rate=20, seconds=5), FAULTS)
        assert delivered_once_in_order(r), r
        assert host.d.session.loop is not None            # the loop reports reached it
    finally:
        host.close()


def test_texts_and_loop_reports_into_a_contract_v1_host():
    r = noisy.run(Talkative(BOOT), V1Host(), noisy.offered(rate=20, seconds=5), FAULTS)
    assert delivered_once_in_order(r), r


def test_a_reader_that_knows_only_contract_v1_counts_them_as_bad_frames_and_reads_on():
    class V1Reader(frames.FrameReader):
        """A reader whose codec knows the five frame types of contract v1 only."""

    known = dict(frames.LAYOUT)
    del known[FAULT_TEXT], known[LOOP_RATE]
    saved = frames.LAYOUT
    frames.LAYOUT = known
    try:
        r = V1Reader()
        got = r.feed(frames.fault_text(9, 1, 17, "x") + frames.encode(
            {"type": EVENT, "seq": 1, "t_us": 5, "kind": FAULT, "index": 255, "value": 17, "flags": 0}))
    finally:
        frames.LAYOUT = saved
    assert [f["type"] for f in got] == [EVENT] and r.errors == {"type": 1}


def test_docs_protocol_md_names_the_additions_as_the_code_does():
    from tests.conftest import ROOT
    from shared_rules.link import names
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    for name in ("FAULT_TEXT", "LOOP_RATE"):
        t = getattr(names, name)
        row = [ln for ln in doc.splitlines() if ln.startswith("| `0x%02x` | %s |" % (t, name))]
        assert row, name
        for field in frames.LAYOUT[t][1]:
            assert "`%s`" % field in row[0], (name, field)
    versions = {ln.split("|")[1].strip(): ln for ln in doc.splitlines()
                if ln.startswith("| 1.") and ln.count("|") == 3}
    for fw in [k for k in dir(names) if k.startswith("FW_")]:
        major, minor = getattr(names, fw)
        assert "`%s`" % fw in versions["%d.%d" % (major, minor)], fw
