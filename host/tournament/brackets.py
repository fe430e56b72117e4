"""The match slots of each tournament format, as plain dicts, in the order they are played.

A slot is {"id", "round" (its round key, e.g. "W1", "L2", "GF", "R3", "A.R1", "K2"), "label",
"final" (True for the deciding match), "a": source, "b": source} where a source says where a
player comes from: {"seed": i} (the i-th seed; past the field it is a bye), {"winner": id},
{"loser": id} or {"group": "A", "rank": r}. The grand final's reset has "needed_if":
{"match": "GF", "winner": "b"}: it is played only if the losers' bracket champion wins the
first final. Slots never hold players: `advance.resolve` works them out from the results, so a
corrected result flows through by itself.

Formats: "single" and "double" elimination, "round-robin", "groups" (round robin groups into a
single-elimination knockout).
"""
from host.tournament import seeding

FORMATS = ("single", "double", "round-robin", "groups")


def _slot(mid, rnd, label, a, b, final=False, **more):
    s = {"id": mid, "round": rnd, "label": label, "final": final, "a": a, "b": b}
    s.update(more)
    return s


def _elimination(entrants, prefix="W", label="Round", final_label="Final"):
    """Single elimination over `entrants` (sources in seed order). Returns (slots, champion
    source, [[round 1 slots], [round 2 slots], ...])."""
    size = seeding.bracket_size(len(entrants))
    bye = {"seed": -1}                   # resolves to a bye
    placed = [entrants[i] if i < len(entrants) else bye for i in seeding.bracket_positions(size)]
    slots, rounds = [], []
    level = placed
    r = 0
    while len(level) > 1:
        r += 1
        last = len(level) == 2
        this = []
        for k in range(len(level) // 2):
            mid = "%s%d.%d" % (prefix, r, k + 1)
            this.append(_slot(mid, "%s%d" % (prefix, r), final_label if last else "%s %d" % (label, r),
                              level[2 * k], level[2 * k + 1], final=last))
        rounds.append(this)
        slots.extend(this)
        level = [{"winner": s["id"]} for s in this]
    return slots, level[0], rounds


def single(n):
    slots, _, _ = _elimination([{"seed": i} for i in range(n)])
    return slots


def double(n):
    """Double elimination: the winners' bracket, the losers' bracket (losers of each winners'
    round drop in, in reversed order every other round so early opponents do not meet again at
    once), the grand final and its reset. Slots come in playing order: W1, L1, W2, L2, L3, W3..."""
    w_slots, w_champ, w_rounds = _elimination([{"seed": i} for i in range(n)], "W",
                                              "Winners round", "Winners final")
    for s in w_slots:
        s["final"] = False
    order = list(w_rounds[0])
    survivors = [{"loser": s["id"]} for s in w_rounds[0]]
    lr = 0

    def pair(pairs):
        nonlocal lr
        lr += 1
        made = [_slot("L%d.%d" % (lr, k + 1), "L%d" % lr, "Losers round %d" % lr, a, b)
                for k, (a, b) in enumerate(pairs)]
        order.extend(made)
        return [{"winner": s["id"]} for s in made]

    if len(survivors) > 1:
        survivors = pair(zip(survivors[0::2], survivors[1::2]))
    for j, w_round in enumerate(w_rounds[1:], start=2):
        order.extend(w_round)
        drops = [{"loser": s["id"]} for s in w_round]
        if j % 2 == 0:
            drops.reverse()
        survivors = pair(zip(survivors, drops))
        if len(survivors) > 1:
            survivors = pair(zip(survivors[0::2], survivors[1::2]))
    l_champ = survivors[0]
    order.append(_slot("GF", "GF", "Grand final", w_champ, l_champ, final=True))
    order.append(_slot("GF2", "GF", "Grand final reset", {"winner": "GF"}, {"loser": "GF"},
                       final=True, needed_if={"match": "GF", "winner": "b"}))
    return order


def circle_rounds(entrants):
    """Round robin pairings by the circle method: a list of rounds, each a list of (a, b).
    With an odd number one entrant sits out each round (paired with None, left out)."""
    ring = list(entrants) + ([None] if len(entrants) % 2 else [])
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        pairs = [(ring[k], ring[n - 1 - k]) for k in range(n // 2)]
        rounds.append([(a, b) for a, b in pairs if a is not None and b is not None])
        ring = [ring[0], ring[-1]] + ring[1:-1]
    return rounds


def round_robin(n, group=None, seeds=None):
    """Everyone plays everyone once; ids R<round>.<k> (A.R<round>.<k> inside group A)."""
    seeds = list(range(n)) if seeds is None else seeds
    pre = group + "." if group else ""
    slots = []
    for r, pairs in enumerate(circle_rounds(seeds), start=1):
        for k, (a, b) in enumerate(pairs, start=1):
            extra = {"group": group} if group else {}
            slots.append(_slot("%sR%d.%d" % (pre, r, k), "%sR%d" % (pre, r),
                               ("Group %s, round %d" % (group, r)) if group else "Round %d" % r,
                               {"seed": a}, {"seed": b}, **extra))
    return slots


def group_names(count):
    return [chr(ord("A") + i) for i in range(count)]


def groups(n, count=2, advance=2):
    """Round robin groups (snake seeded), then a knockout of the best `advance` of each group,
    crossed so that group winners meet runners-up of other groups first."""
    if count < 1 or n < count * 2:
        raise ValueError("%d players cannot make %d groups of two or more" % (n, count))
    members = seeding.snake_groups(list(range(n)), count)
    names = group_names(count)
    slots = []
    for g, seeds in zip(names, members):
        slots.extend(round_robin(len(seeds), g, seeds))
    adv = min(advance, min(len(m) for m in members))
    entrants = []
    for r in range(1, adv + 1):         # seeds: every winner, then every runner-up, ...
        entrants.extend({"group": g, "rank": r} for g in names)
    ko, _, _ = _elimination(entrants, "K", "Knockout round", "Final")
    return slots + ko


def group_members(n, count):
    """{group: [seeds]} as `groups` splits them."""
    return dict(zip(group_names(count), seeding.snake_groups(list(range(n)), count)))


def build(fmt, n, count=2, advance=2):
    if n < 2:
        raise ValueError("a tournament needs two players or more")
    if fmt == "single":
        return single(n)
    if fmt == "double":
        return double(n)
    if fmt == "round-robin":
        return round_robin(n)
    if fmt == "groups":
        return groups(n, count, advance)
    raise ValueError("format must be one of %s" % ", ".join(FORMATS))
