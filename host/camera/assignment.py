"""Minimum-cost assignment (the Hungarian method), for tracks <-> candidates and
tracks <-> ball numbers. Pure Python over a list of rows: the matrices here are at most
a few dozen wide, and SciPy is not a dependency."""

INF = float("inf")


def assign(cost):
    """`cost`: n rows x m columns (lists of floats, INF = forbidden). Returns a list of
    (row, col) pairs of least total cost, each row and column used at most once; pairs
    whose cost is INF are left out."""
    n = len(cost)
    if n == 0:
        return []
    m = len(cost[0])
    if m == 0:
        return []
    transpose = n > m
    if transpose:
        cost = [list(col) for col in zip(*cost)]
        n, m = m, n
    big = 1e9
    a = [[big if c == INF else c for c in row] for row in cost]
    # Jonker-Volgenant style potentials, rows 1..n, columns 1..m (0 = virtual).
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [INF] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = INF
            j1 = 0
            row = a[i0 - 1]
            ui0 = u[i0]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    pairs = []
    for j in range(1, m + 1):
        i = p[j]
        if i and a[i - 1][j - 1] < big:
            pairs.append((j - 1, i - 1) if transpose else (i - 1, j - 1))
    return sorted(pairs)


def assign_or_leave(cost, leave_row, leave_col):
    """Pairs (row, col) of least total cost where a row may stay unpaired at
    `leave_row` and a column at `leave_col` (a track missed this frame, a candidate that
    starts a new track). Rows and columns linked only through finite costs form
    independent sub-problems (a ball at rest has one candidate within reach; only a rack
    or a collision links several), so the cubic method runs on small blocks, not on the
    whole (n + m) square each frame; plain pairs (`_plain`) are taken first."""
    n = len(cost)
    m = len(cost[0]) if n else 0
    pairs = _plain(cost, m, 1.0, (1.0 + leave_row + leave_col) / 2.0)
    done_r, done_c = {i for i, _ in pairs}, {j for _, j in pairs}
    if pairs:
        cost = [[INF if (i in done_r or j in done_c) else c for j, c in enumerate(row)]
                for i, row in enumerate(cost)]
    for rows, cols in _blocks(cost, n, m):
        if len(rows) == 1 and len(cols) == 1:
            i, j = rows[0], cols[0]
            if cost[i][j] < leave_row + leave_col:
                pairs.append((i, j))
            continue
        a, b = len(rows), len(cols)
        sub = [[cost[i][j] for j in cols] + [leave_row if r == k else INF for k in range(a)]
               for r, i in enumerate(rows)]
        for c in range(b):
            sub.append([leave_col if k == c else INF for k in range(b)] + [0.0] * a)
        pairs.extend((rows[i], cols[j]) for i, j in assign(sub) if i < a and j < b)
    return sorted(pairs)


def _plain(cost, m, sure, rival):
    """Pairs that need no search: a cost under `sure` with nothing else under `rival`
    in its row or its column (a ball at rest and its own candidate, in a rack of
    touching balls that would otherwise make one big block every frame). With `rival`
    at least (sure + both leaving costs) / 2 every least-cost answer has these pairs:
    giving one up costs more than any rearrangement saves."""
    low_c = [0] * m
    for row in cost:
        for j, c in enumerate(row):
            if c < rival:
                low_c[j] += 1
    pairs = []
    for i, row in enumerate(cost):
        low = [j for j, c in enumerate(row) if c < rival]
        if len(low) == 1 and row[low[0]] < sure and low_c[low[0]] == 1:
            pairs.append((i, low[0]))
    return pairs


def _blocks(cost, n, m):
    """[(rows, cols)] of the components linked by finite costs (each with both)."""
    parent = list(range(n + m))

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, row in enumerate(cost):
        for j, c in enumerate(row):
            if c != INF:
                a, b = root(i), root(n + j)
                if a != b:
                    parent[a] = b
    groups = {}
    for k in range(n + m):
        groups.setdefault(root(k), []).append(k)
    out = []
    for members in groups.values():
        rows = [k for k in members if k < n]
        cols = [k - n for k in members if k >= n]
        if rows and cols:
            out.append((rows, cols))
    return out
