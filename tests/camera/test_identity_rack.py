"""Nine-ball's rack names its two yellow balls (host/camera/identity.named_by_the_rack)."""
import math

from host.camera.geometry import BALL_R_MM as R
from host.camera.identity import named_by_the_rack

ROW = 2 * R * math.sqrt(3) / 2


def diamond(apex=(1905.0, 635.0)):
    """The nine places of a tight nine-ball rack, rows 1-2-3-2-1 towards the foot cushion."""
    out = []
    for row, n in enumerate((1, 2, 3, 2, 1)):
        for i in range(n):
            out.append((apex[0] + row * ROW, apex[1] + (i - (n - 1) / 2.0) * 2 * R))
    return out


def rack(at_apex, at_centre, apex_rivals=(1, 9)):
    """Labels, rivals and rests of a rack whose apex track was labelled `at_apex` and whose centre
    track `at_centre`; the other seven 2-8 in order, and the cue ball behind the head string."""
    places = diamond()
    others = [b for b in range(1, 10) if b not in (at_apex, at_centre)]
    numbers = [at_apex] + others[:3] + [at_centre] + others[3:]
    labels = dict(("t%d" % i, (b, 0.9)) for i, b in enumerate(numbers))
    rivals = dict(("t%d" % i, [b]) for i, b in enumerate(numbers))
    rivals["t0"], rivals["t4"] = sorted(apex_rivals), [1, 9]
    rests = dict(("t%d" % i, p) for i, p in enumerate(places))
    labels["cue"], rivals["cue"], rests["cue"] = (0, 1.0), [0], (500.0, 600.0)
    return labels, rivals, rests


def test_the_yellow_ball_at_the_apex_is_the_1_and_the_one_in_the_middle_the_9():
    labels, rivals, rests = rack(at_apex=9, at_centre=1)
    named, may_be = named_by_the_rack(labels, rivals, rests)
    assert named["t0"][0] == 1 and named["t4"][0] == 9
    assert named["t0"][1] >= 0.85 and may_be["t0"] == [1] and may_be["t4"] == [9]
    assert labels["t0"][0] == 9, "pure: the labels given are not changed"


def test_yellow_balls_the_looks_tell_apart_or_set_elsewhere_keep_their_labels():
    labels, rivals, rests = rack(at_apex=9, at_centre=1)
    rivals["t0"], rivals["t4"] = [9], [1]           # the looks are sure
    assert named_by_the_rack(labels, rivals, rests)[0] == labels
    labels, rivals, rests = rack(at_apex=9, at_centre=1)
    rests["t4"] = (rests["t4"][0], rests["t4"][1] + 2 * R)   # not in the middle: not the 9's place
    assert named_by_the_rack(labels, rivals, rests)[0] == labels
    labels, rivals, rests = rack(at_apex=9, at_centre=1)
    for k in ("t1", "t2", "t3", "t5", "t6", "t7", "t8"):          # no rack around them
        rests[k] = (rests[k][0] - 900.0, rests[k][1])
    assert named_by_the_rack(labels, rivals, rests)[0] == labels
