"""Link writes on the ports as they really behave (vboard.fakeports, issue 8): the board's main
loop (app.main) never loses a byte to a partial write and never waits on the link.

- rp2 machine.UART with timeout=0 takes only what fits in its TX ring buffer;
- rp2 USB CDC waits up to 500 ms for a host that holds the port open without reading,
  then truncates;
- ESP32 UART0 stdout returns only once every byte but the last 128 is on the line.

Plain test functions: pytest collects them under CPython; under MicroPython
`run(globals())` runs them with a 192K heap (tests/firmware/test_on_micropython.py).
"""
from shared_rules.link.names import HELLO, EVENT, RAIL

from tests.firmware.test_transports import Host
from tableboard import transport
from vboard.fakeports import Rp2UART, UsbCdcStdio, Esp32Uart0Stdio



def on_end(h, end, link):
    h.end = end
    h.link = link
    return h


def on_rp2_uart(txbuf):
    h = Host("usb")
    end = Rp2UART(h.time, 1, baudrate=115200, txbuf=txbuf, timeout=0)
    return on_end(h, end, transport.Uart(end, 115200, h.time))


def on_usb(cls):
    h = Host("usb")
    end = cls(h.time)
    return on_end(h, end, transport.Stdio(end.stdin, end.stdout, end.ready, end.writable))


def burst(h, n=60):
    """n rail events pushed at once, as a break does in about a second."""
    for k in range(n):
        assert h.board.sender.push_event(1000 + k, RAIL, k % 6, 3000 + k, 0)


def delivered_in_order(h, n=60):
    """Every event came, each seq first seen in order, with its own value."""
    seen = []
    for f in h.frames(EVENT):
        if f["seq"] not in seen:
            seen.append(f["seq"])
            assert f["value"] == 3000 + f["seq"] - 1
    return seen == list(range(1, n + 1))


def test_rp2_uart_partial_writes_lose_no_byte():
    h = on_rp2_uart(txbuf=32)                # a small TX ring buffer: writes come back partial
    h.run(10)
    burst(h)
    h.run(1500)
    assert h.reader.error_count() == 0, h.reader.errors     # no frame cut short or merged
    assert delivered_in_order(h)
    assert h.board.sender.backlog() == 0
    assert h.end.longest_block_us == 0


def test_rp2_uart_burst_on_a_clean_line_is_sent_once_and_timed_from_the_wire():
    h = on_rp2_uart(txbuf=256)
    h.run(10)
    burst(h)
    h.run(1500)
    s = h.board.sender
    assert delivered_in_order(h) and s.backlog() == 0
    # Frames are framed only as the UART takes them, so their round trip is not
    # inflated by a deep TX queue and nothing goes twice on a clean line.
    assert s.retransmits == 0 and s.fast_retransmits == 0
    assert s.srtt() is not None and s.srtt() <= 15
    assert len(h.frames(HELLO)) == 1


def test_usb_host_holding_the_port_without_reading_stalls_the_loop_once_then_no_byte_is_lost():
    h = on_usb(UsbCdcStdio)
    h.run(10)
    h.end.host_reading = False
    burst(h, 30)
    h.run(1200)
    # mp_usbd_cdc waits 500 ms for each 64-byte chunk that does not fit: the one write
    # that fills the FIFO waits up to twice (what fitted, then nothing). After that poll
    # says not writable and the loop writes nothing more (today: every pass waits).
    assert 0 < h.end.blocked_us <= 1000000
    h.end.host_reading = True
    h.run(1500)
    assert h.reader.error_count() == 0, h.reader.errors
    assert delivered_in_order(h, 30)
    assert h.board.sender.backlog() == 0


def test_esp32_uart0_stdout_never_holds_the_loop_for_long():
    h = on_usb(Esp32Uart0Stdio)
    h.run(10)
    burst(h)
    h.run(1500)
    assert delivered_in_order(h) and h.board.sender.backlog() == 0
    # At most a pass's budget past the 128-byte FIFO (today: 1 KB at once, about 78 ms).
    assert h.end.longest_block_us <= transport.BUDGET * 87


def test_uart_transport_keeps_what_the_port_did_not_take_and_writes_it_first():
    h = Host("usb")
    end = Rp2UART(h.time, 1, txbuf=32, timeout=0)
    link = transport.Uart(end, 115200, h.time)
    data = bytes(range(1, 101))
    link.write(data, 100)                    # 32 + 32 fit, 36 are held
    assert link.pending() == 36 and link.room() == 0
    for _ in range(20):
        h.time.advance_ms(1)
        link.room()
    assert end.host_read() == data and link.pending() == 0


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
