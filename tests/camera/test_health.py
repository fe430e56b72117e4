"""The camera's health detector: what a misbehaving camera looks like, as faults."""
import numpy as np

from host.camera.health import Health, thumbnail


def scene(seed, shift=(0, 0), gain=1.0):
    """A table-like picture with sensor noise, optionally shifted (a knocked camera)."""
    rng = np.random.default_rng(seed)
    img = np.zeros((360, 640, 3), np.float32)
    img[:] = (40, 110, 20)
    img[40:320, 60:580] = (50, 140, 30)
    img[100:130, 200:230] = 230
    img[250:280, 400:430] = 200
    img = np.roll(img, shift, axis=(0, 1))
    img = img * gain + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def run(h, frames, fps=60.0, t0=0.0):
    faults = []
    for i, f in enumerate(frames):
        faults = h.observe(t0 + i / fps, thumbnail(f))
    return {f["code"] for f in faults}


def test_a_healthy_camera_has_no_fault():
    assert run(Health(60), [scene(i) for i in range(120)]) == set()


def test_identical_frames_are_a_frozen_camera():
    still = scene(1)
    assert "camera_frozen" in run(Health(60), [scene(0)] + [still] * 90)


def test_missing_frames_are_dropped_frames():
    h = Health(60)
    codes = set()
    for i in range(200):
        if i % 3 == 0:                       # a third of the frames never arrive
            continue
        codes = {f["code"] for f in h.observe(i / 60.0, thumbnail(scene(i)))}
    assert "camera_dropping_frames" in codes


def test_a_shifted_picture_is_a_moved_camera():
    h = Health(60)
    run(h, [scene(i) for i in range(30)])
    assert "camera_moved" in run(h, [scene(100 + i, shift=(12, 25)) for i in range(10)], t0=30 / 60.0)


def test_a_sudden_bright_frame_is_a_flash_and_passes():
    h = Health(60)
    run(h, [scene(i) for i in range(30)])
    assert "camera_flash" in run(h, [scene(50, gain=1.8)], t0=30 / 60.0)
    assert run(h, [scene(60 + i) for i in range(150)], t0=31 / 60.0) == set()


def test_no_frame_for_a_while_is_a_stall():
    h = Health(60, stall_s=2.0)
    run(h, [scene(i) for i in range(10)])
    assert h.tick(1.0) == []
    assert [f["code"] for f in h.tick(3.0)] == ["camera_stalled"]


def test_a_light_switched_on_for_good_is_a_flash_that_ends_and_says_the_light_changed():
    h = Health(60)
    run(h, [scene(i) for i in range(30)])
    assert "camera_flash" in run(h, [scene(100 + i, gain=1.6) for i in range(60)], t0=0.5)
    assert h.relit is None                       # a second of it: still a flash
    codes = run(h, [scene(200 + i, gain=1.6) for i in range(300)], t0=1.5)
    assert codes == set(), "a light that stays is the light now: the fault ends"
    assert h.relit is not None and 3.0 <= h.relit - 0.5 < 3.5


def test_a_flickering_light_stays_a_flash():
    h = Health(60)
    run(h, [scene(i) for i in range(30)])
    frames = [scene(100 + i, gain=1.6 if i % 2 else 2.2) for i in range(360)]   # strobing
    assert "camera_flash" in run(h, frames, t0=0.5)
    assert h.relit is None


def test_a_hand_over_the_lens_stays_a_flash_however_steady():
    h = Health(60)
    run(h, [scene(i) for i in range(30)])
    rng = np.random.default_rng(0)
    covered = [np.clip(rng.normal(4, 2, (360, 640, 3)), 0, 255).astype(np.uint8) for _ in range(300)]
    assert "camera_flash" in run(h, covered, t0=0.5)
    assert h.relit is None, "dark and steady, but nothing of the table: no new light"


def test_frames_the_analyser_was_too_slow_for_are_not_the_cameras_drops():
    """A camera sending every frame to an analyser that takes only every third one (the source's
    mailbox keeps the newest): the frames skipped did arrive, so the camera is not dropping them;
    the same pattern without them is."""
    slow, dropping = Health(60), Health(60)
    seen_slow, seen_dropping = set(), set()
    for i in range(0, 300, 3):
        thumb = thumbnail(scene(i))
        seen_slow |= {f["code"] for f in slow.observe(i / 60.0, thumb, skipped=0 if i == 0 else 2)}
        seen_dropping |= {f["code"] for f in dropping.observe(i / 60.0, thumb)}
    assert "camera_dropping_frames" not in seen_slow
    assert "camera_dropping_frames" in seen_dropping
