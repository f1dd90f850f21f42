#!/usr/bin/python3
"""Fit the review's margin->win% curve (docs/review.md, "Win probability").

Simulates matches with a target (brp simulate, mixed greedy and random bots),
reads each deal's claimed scores and the match's, and fits by maximum
likelihood the scale s of

    P(a side wins the match | its margin m in one deal) = 1 / (1 + exp(-m / s))

over every deal of every match, each deal counted once for each side (m and
-m). Prints the fit and the figures it rests on; RPL_REVIEW_WIN_SCALE in
review.h is its result, rounded to 10 points.

    tools/review-fit.py BRP [MATCHES_A_PROFILE] [JOBS]
"""
import json
import math
import subprocess
import sys
import tempfile


def deals_of(brp, profile, matches, jobs, seed):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([brp, 'simulate', '-q', '-r', profile, '-p', '4', '-b', 'mixed', '-n', str(matches),
                        '--seed', str(seed), '-j', str(jobs), '-o', tmp], check=True)
        for i in range(1, matches + 1):
            out = subprocess.run([brp, 'dump', '--json', '%s/match-%06d.brp' % (tmp, i)], check=True,
                                 capture_output=True, text=True).stdout
            d = json.loads(out)
            total = d['match_claim']
            if not total or total[0] == total[1]:
                continue
            winner = 0 if total[0] > total[1] else 1
            for c in d['claims']:
                m = c['score'][0] - c['score'][1]
                yield m, winner == 0
                yield -m, winner == 1


def loglik(points, s):
    ll = 0.0
    for m, won in points:
        z = m / s
        # log sigmoid, stable both ways
        ll += -math.log1p(math.exp(-z)) if z > -30 else z
        if not won:
            ll -= -math.log1p(math.exp(-z)) if z > -30 else z
            ll += -math.log1p(math.exp(z)) if z < 30 else -z
    return ll


def main():
    brp = sys.argv[1]
    matches = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    points = []
    for seed, profile in ((1, 'kzv'), (2, 'aberto')):
        points += list(deals_of(brp, profile, matches, jobs, seed))
    # the scale of the best likelihood, on a grid then refined (the likelihood is unimodal in 1/s)
    best = max(range(50, 5001, 10), key=lambda s: loglik(points, s))
    lo, hi = max(best - 10, 1), best + 10
    for _ in range(40):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if loglik(points, a) < loglik(points, b):
            lo = a
        else:
            hi = b
    s = (lo + hi) / 2
    wins = sum(1 for m, w in points if w)
    print('deal-sides %d (%d won), matches %d a profile (kzv, aberto; 4 players; mixed bots)' %
          (len(points), wins, matches))
    print('scale %.1f points: P(win | m) = 1 / (1 + exp(-m / %.1f)); log-likelihood %.1f' %
          (s, s, loglik(points, s)))
    for m in (0, 100, 250, 500, 1000):
        print('  m = %5d: %.1f %%' % (m, 100 / (1 + math.exp(-m / s))))


if __name__ == '__main__':
    main()
