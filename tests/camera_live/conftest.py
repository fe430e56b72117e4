"""The live path's tests share one rendered clip (tests/camera_live/footage.py): rendering it
takes most of their time."""
import pytest


@pytest.fixture(scope="session")
def wrong_first_clip(tmp_path_factory):
    pytest.importorskip("cv2")
    from tests.camera_live.footage import render_wrong_first
    return render_wrong_first(tmp_path_factory.mktemp("footage") / "nb_wrong_first.mp4")
