"""The camera's tests need OpenCV and NumPy (the `camera` extra; the `test` extra has them)."""
import pytest

pytest.importorskip("cv2")
pytest.importorskip("numpy")
