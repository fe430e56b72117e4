# Runs under the MicroPython unix port (and CPython): the break estimator on the
# held-out (odd) lines of each data file, and on the committed held-out sample
# (held-*.jsonl, per speed band inferred from the impacts), plus a few hand-made
# cases; prints one line per file that the pytest side compares with CPython's own run.
import sys
import json
from shared_rules.rules import break_estimator as be

QUESTIONS = (("study-eightball", 4, 15, False), ("nineball", 4, 9, False), ("straight", 2, 15, True))
GAME_QUESTIONS = (("held-eightball", 4, 15, False), ("held-nineball", 3, 9, True), ("held-straight", 2, 15, True))
base = sys.argv[1]
for name, needed, rack, cue in QUESTIONS:
    n = 0
    right = 0
    total = 0.0
    with open(base + "/" + name + ".jsonl") as f:
        i = 0
        for line in f:
            i += 1
            if i % 2 == 1 or not line.strip():
                continue
            r = json.loads(line)
            said = be.break_reached_rails(r["imp"], needed, None, cue_ball=cue, rack=rack)
            truth = r["obj"] >= needed and (r["cue"] or not cue)
            if "pot" in r:  # the study's breaks: a ball dropped makes the break legal by itself
                said = said or r["pot"] > 0
                truth = truth or r["pot"] > 0
            n += 1
            if said == truth:
                right += 1
            total += be.object_balls_railed(r["imp"])
    print(name, n, right, int(round(total * 100)))
for name, needed, rack, cue in GAME_QUESTIONS:
    # per band inferred from the impacts: breaks, said legal
    per_band = [[0, 0], [0, 0], [0, 0]]
    q = be.question(needed, cue, rack)
    with open(base + "/" + name + ".jsonl") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            band = be.speed_band(r["imp"], q)
            per_band[band][0] += 1
            if be.break_reached_rails(r["imp"], needed, None, cue_ball=cue, rack=rack):
                per_band[band][1] += 1
    print(name, " ".join("%d/%d" % (s, n) for n, s in per_band))
burst = [(1000 * k, k % 6, 30000) for k in range(12)]
print("cases", be.object_balls_railed([]), be.break_reached_rails(burst, 4), be.break_reached_rails(None, 4))
