"""The overhead camera (issue 18): from pictures of the table to per-shot facts.

Functional core, thin edges. The edges read frames (`sources`); everything else is
pure functions over NumPy arrays and plain data, testable on a few synthetic frames:

    geometry     table sizes, pockets, the lens and the homography image <-> table mm
    table_finder the playing area's cushion-nose quadrilateral (and the lens) from an image
    detect       the cloth model and ball candidates in the rectified (top-down) image
    identity     which ball a candidate looks like (cue, 8, solids, stripes) from its colours
    tracking     candidates -> ball tracks through blur, occlusion and pocketing
    shots        tracks -> shots (cue ball's first motion .. all still) -> per-shot facts
    facts        the per-shot record (`CameraFacts`), its CLI JSON and its live dict
    health       frozen image, dropped frames, moved camera, flash, stall -> faults
    analyse      the pipeline: frames in, facts out (offline file or a live source)
    cli          `billiards camera analyse VIDEO --json`

OpenCV and NumPy come with the `camera` extra (`pip install -e '.[camera]'`); nothing
here is imported by the daemon unless a camera is configured.
"""
