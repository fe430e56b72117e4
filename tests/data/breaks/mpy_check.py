# Runs under the MicroPython unix port (and CPython): the break estimator on the
# held-out (odd) lines of each data file plus a few hand-made cases; prints one
# line per file that the pytest side compares with CPython's own run.
import sys
import json
from shared_rules.rules import break_estimator as be

QUESTIONS = (("study-eightball", 4, 15, False), ("nineball", 4, 9, False), ("straight", 2, 15, True))
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
burst = [(1000 * k, k % 6, 30000) for k in range(12)]
print("cases", be.object_balls_railed([]), be.break_reached_rails(burst, 4), be.break_reached_rails(None, 4))
