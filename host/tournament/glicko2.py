"""Glicko-2 ratings (Mark E. Glickman, "Example of the Glicko-2 system", Boston University,
glicko.net/glicko/glicko2.pdf, 2013): a rating, its deviation (how sure we are) and a
volatility per player, updated once per rating period from that period's results.

Pure arithmetic, the paper's steps 1-8 in its own symbols; the test reproduces the paper's worked
example (1500/200/0.06 against 1400/30, 1550/100, 1700/300, scores 1, 0, 0 -> 1464.06/151.52/0.05999).
"""
import math

SCALE = 173.7178          # the paper's conversion between the Glicko and Glicko-2 scales
START = (1500.0, 350.0, 0.06)   # rating, deviation, volatility of a new player (the paper's defaults)
TAU = 0.5                 # system constant: how much volatility may change (paper: 0.3 to 1.2)
EPSILON = 0.000001        # convergence tolerance of step 5


def _g(phi):
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu, mu_j, phi_j):
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi, sigma, delta, v, tau):
    """Step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))
    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player, results, tau=TAU):
    """player: (rating, deviation, volatility); results: [(opponent's (rating, deviation, ...),
    score 1 / 0.5 / 0)] of one rating period. Returns the new (rating, deviation, volatility).
    No results: only the deviation grows (step 6 alone)."""
    r, rd, sigma = player
    mu, phi = (r - 1500.0) / SCALE, rd / SCALE
    if not results:
        return (r, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    opp = [((o[0] - 1500.0) / SCALE, o[1] / SCALE, s) for o, s in results]
    inv_v = 0.0
    total = 0.0
    for mu_j, phi_j, s in opp:
        e = _e(mu, mu_j, phi_j)
        g = _g(phi_j)
        inv_v += g * g * e * (1.0 - e)
        total += g * (s - e)
    v = 1.0 / inv_v
    delta = v * total
    sigma2 = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu2 = mu + phi2 * phi2 * total
    return (SCALE * mu2 + 1500.0, SCALE * phi2, sigma2)


def expected(a, b):
    """The chance that a player rated `a` (rating, deviation) beats one rated `b`."""
    mu, mu_j, phi_j = (a[0] - 1500.0) / SCALE, (b[0] - 1500.0) / SCALE, \
        math.sqrt(a[1] ** 2 + b[1] ** 2) / SCALE
    return _e(mu, mu_j, phi_j)
