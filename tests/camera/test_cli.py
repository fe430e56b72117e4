"""`billiards camera analyse VIDEO [--corners ...] --json`: the documented interface."""
import json

import pytest

from host.cli import main
from host.camera.geometry import Table
from tests.camera.synth import ToyCamera, ToyTable, film

KEYS = {"t_start", "t_end", "first_contact", "railed_after_contact",
        "object_balls_railed_on_break", "pocketed", "rest_mm", "start_mm",
        "second_contact", "second_contact_after_ms", "head_end"}


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """A short video file of one shot, as a camera would record it (mp4v)."""
    import cv2
    table = Table.named("9ft")
    toy = ToyTable(table, {0: (600, 635), 3: (1300, 650)})
    cam = ToyCamera(table, size=(640, 360), seed=3)
    frames, truths = film(toy, cam, [(0, 1500, 0)], fps=30, still_s=0.8)
    path = str(tmp_path_factory.mktemp("camera") / "shot.mp4")
    w = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), 30.0, (640, 360))
    for f in frames:
        w.write(f)
    w.release()
    corners = " ".join("%.1f,%.1f" % tuple(p) for p in cam.corners_px)
    return path, corners, truths


def test_json_is_a_list_of_shots_with_the_documented_fields(clip, capsys):
    path, corners, truths = clip
    assert main(["camera", "analyse", path, "--corners", corners, "--table", "9ft", "--json"]) == 0
    shots = json.loads(capsys.readouterr().out)
    assert isinstance(shots, list) and len(shots) == 1
    shot = shots[0]
    assert set(shot) == KEYS
    assert shot["head_end"]["found_by"] == "--corners" and shot["head_end"]["image_side"] == "left"
    assert shot["first_contact"] == 3
    assert shot["second_contact"] is None and shot["second_contact_after_ms"] is None   # 3 alone
    assert all(isinstance(b, int) for b in shot["railed_after_contact"] + shot["pocketed"])
    assert set(shot["rest_mm"]) == {"0", "3"}
    assert abs(shot["start_mm"]["0"][0] - 600) < 15 and abs(shot["start_mm"]["3"][0] - 1300) < 15
    assert abs(shot["t_start"] - truths[0]["t_start"]) < 0.1


def test_facts_print_confidences(clip, capsys):
    path, corners, _ = clip
    assert main(["camera", "analyse", path, "--corners", corners, "--table", "9ft", "--facts"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts[0]["first_contact"]["ball"] == 3
    assert 0 <= facts[0]["first_contact"]["confidence"] <= 1
    assert facts[0]["second_contact"] is None


@pytest.mark.parametrize("argv, says", [
    (["--corners", "1,2 3,4"], "corners"),
    (["--corners", "a,b c,d e,f g,h"], "corners"),
    (["--corners", "0,0 0,0 0,0 0,0"], "do not go round a table"),     # else: [] and exit 0
    (["--table", "11ft"], "table size"),
])
def test_bad_options_are_refused_with_exit_2(clip, capsys, argv, says):
    path, _, _ = clip
    assert main(["camera", "analyse", path, "--json"] + argv) == 2
    assert says in capsys.readouterr().err


def test_a_missing_or_unreadable_video_is_refused(tmp_path, capsys):
    assert main(["camera", "analyse", str(tmp_path / "none.mp4"), "--json"]) == 2
    assert "no such video" in capsys.readouterr().err
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video" * 100)
    assert main(["camera", "analyse", str(junk), "--json"]) == 2
    assert capsys.readouterr().err


def test_every_camera_command_line_in_the_docs_parses():
    import pathlib
    import re
    import shlex
    from host.cli import build_parser
    root = pathlib.Path(__file__).resolve().parents[2]
    lines = []
    for page in [root / "docs" / "camera.md", root / "docs" / "daemon.md"]:
        for line in page.read_text(encoding="utf-8").splitlines():
            for m in re.finditer(r"(?:`|^)billiards (camera [^`\n#]*)", line):
                argv = shlex.split(m.group(1))
                if "..." not in m.group(1) and "[" not in m.group(1) and len(argv) > 2:
                    lines.append(argv)
    assert len(lines) >= 3
    parser = build_parser()
    for argv in lines:
        parser.parse_args(argv)
