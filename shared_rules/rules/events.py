"""Game events as CONTRACT section 2 describes them: kind, player, deciding clauses, bilingual text."""


def event(kind, player, clauses, en, ru, extra=None):
    e = {"event": kind, "player": player, "clause": list(clauses), "clauses": list(clauses),
         "text": {"en": en, "ru": ru}}
    if extra:
        for k in extra:
            e[k] = extra[k]
    return e
