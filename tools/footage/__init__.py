"""Test footage for the overhead camera: trajectories -> realistic video + exact truth.

A developer tool (never installed with the daemon).  See docs/camera-footage.md.

* ``trajectory``: the plain-data trajectory format and the per-shot truth;
* ``kinematic``: a tiny generator (lines, reflections, collisions), no dependencies;
* ``physics``: trajectories from pooltool (the ``calibrate`` extra);
* ``camera``: the ceiling camera (intrinsics, distortion, pose) and projections;
* ``scene``: everything a seed decides (camera, light, cloth, fps, noise, codec);
* ``render``: the renderer (NumPy + OpenCV, the ``camera`` extra) and the truth file;
* ``make_set``: a seeded set of clips; ``render`` as a script renders one clip.
"""
