"""Seeding: who meets whom first. Pure functions over lists of names and ratings.

Seeds are 0-based (seed 0 is the favourite). A bracket of `size` places (a power of two) puts
seed 0 against seed size-1, and keeps the top seeds apart until the last rounds; seeds past
the number of players are byes, so the byes go to the top seeds.
"""
import random

MAX_NAME = 32          # the referee's own limit on a player's name (shared_rules MAX_NAME)
METHODS = ("random", "rating", "hand")


def bracket_size(n):
    """The smallest power of two that holds n players (at least 2)."""
    size = 2
    while size < n:
        size *= 2
    return size


def bracket_positions(size):
    """Seeds in bracket order: pairs (0, size-1), ..., so that seeds 0 and 1 meet only in the final.
    bracket_positions(8) == [0, 7, 3, 4, 1, 6, 2, 5]."""
    order = [0]
    while len(order) < size:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m - 1 - s)]
    return order


def seed_order(names, method="hand", ratings=None, rng_seed=0):
    """Indices of `names` in seed order: as given ("hand"), shuffled by `rng_seed` ("random"),
    or by rating, best first ("rating"; unrated players at the method's starting rating, ties in
    the order given)."""
    idx = list(range(len(names)))
    if method == "hand":
        return idx
    if method == "random":
        random.Random(rng_seed).shuffle(idx)
        return idx
    if method == "rating":
        ratings = ratings or {}
        return sorted(idx, key=lambda i: -float(ratings.get(names[i], 1500.0)))
    raise ValueError("seeding must be one of %s" % ", ".join(METHODS))


def snake_groups(seeded, groups):
    """Split seeded players into `groups` groups, snake order (1-2-3-3-2-1 ...), so each group
    gets one of the top seeds and the groups are as even as the seeds allow."""
    out = [[] for _ in range(groups)]
    for k, p in enumerate(seeded):
        lap, pos = divmod(k, groups)
        out[pos if lap % 2 == 0 else groups - 1 - pos].append(p)
    return out


def clean_names(text_or_list):
    """Names from "A, B, C" or a list: stripped, empty ones dropped. A name the referee could not
    take (longer than MAX_NAME) is an error, said in words."""
    items = text_or_list.split(",") if isinstance(text_or_list, str) else list(text_or_list)
    names = [str(n).strip() for n in items if str(n).strip()]
    for n in names:
        if len(n) > MAX_NAME:
            raise ValueError("the name %r is longer than %d characters" % (n, MAX_NAME))
    return names


def told_apart(names):
    """Two people of the same name get different names everywhere (bracket, table, history,
    ratings): the second "Anna" becomes "Anna (2)". Order is kept; the result is unique."""
    seen = set()
    out = []
    for n in names:
        name, k = n, 1
        while name.casefold() in seen:
            k += 1
            suffix = " (%d)" % k
            name = n[:MAX_NAME - len(suffix)] + suffix
        seen.add(name.casefold())
        out.append(name)
    return out
