"""Winner stays on: a queue of challengers per table. Pure.

Players join from their phone (the venue service's /queue/<table> page, linked from the
table's /play page); when the game on the table ends, its winner stays and the first in the
queue is the next challenger; at an idle table the first two in the queue play.
"""
MAX_QUEUE = 32


def join(queue, name):
    """The queue with `name` added at the end, or ValueError in words."""
    name = (name or "").strip()
    if not name or len(name) > 32:
        raise ValueError("a name of 1 to 32 characters, please")
    if any(n.casefold() == name.casefold() for n in queue):
        raise ValueError("%s is already in the queue" % name)
    if len(queue) >= MAX_QUEUE:
        raise ValueError("the queue is full")
    return list(queue) + [name]


def leave(queue, name):
    return [n for n in queue if n.casefold() != (name or "").strip().casefold()]


def after_match(queue, winner, loser):
    """(new queue, next pair or None) when a game on the table ends: the winner stays, the next
    challenger comes up. A challenger who is the winner themselves is skipped."""
    q = [n for n in queue if n.casefold() != winner.casefold()]
    if not q:
        return list(queue), None
    return q[1:], [winner, q[0]]


def at_idle(queue):
    """(new queue, pair or None) for a free table with nobody staying on."""
    if len(queue) < 2:
        return list(queue), None
    return list(queue[2:]), [queue[0], queue[1]]
