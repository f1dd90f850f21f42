#!/usr/bin/env python3
"""brp view in a real browser: test_view.py BRP SRCROOT [--screenshot PNG]

Headless Chromium (Debian's chromium, driven by chromium-driver through
python3-selenium) opens the pages brp view writes for every sample and for a
simulated match of each profile and table size, with the network cut off
(Chromium offline through the DevTools protocol, every request the page
makes recorded: only its own file may be loaded). At chosen positions the
page is read back from the DOM (hands, melds and their wilds, canastra
categories, the pile and its top, the stock, the mortos, the scores) and
compared with `brp show --json` at the same deal, turn and decision. Also:
disputed samples open on their illegal decision, their mismatched deal or
say where they are damaged; a deep link opens its position and follows the
steps; the keys and buttons move as documented; no console message of level
error; a --seat page holds no other seat's hand anywhere in the file and
shows only backs for it; a typical 4-player match of three deals stays
within 250 KB. With a review (brp view --review, brp review --json at
strength 2): the list of turns marks exactly the decisions the review
classes, each with its symbol; a click on one opens its position, which
shows the better decision and the loss; the summary gives each seat's
accuracy and match rate, with or without JavaScript; on a phone the page
does not scroll sideways and the stepper starts within the first screen;
a --seat page holds no other seat's hand and no other seat's review.

Exit 77 (meson: skipped) with a message when chromium, chromedriver or
selenium is not installed; any other failure fails.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

from browser import By, FAILURES, Keys, check, check_quiet, offline_driver  # exits 77 without a browser

BRP = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2])
SHOT = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == '--screenshot' else None
TONE_COLOUR = {'good': 'rgb(30, 123, 52)', 'caution': 'rgb(199, 119, 0)', 'bad': 'rgb(179, 38, 30)'}
CATEGORY = {'none': 0, 'dirty': 1, 'clean': 2, 'clean13': 3, 'clean14': 4, 'dirty14': 5}



def run(*args):
    p = subprocess.run([BRP] + list(args), capture_output=True, text=True, env=dict(os.environ, LC_ALL='C', TZ='UTC'))
    return p


def show(log, d, t, n):
    args = ['show', '--json', '-d', str(d), '-t', str(t)]
    if t > 0 and n > 0:
        args += ['-D', str(n)]
    p = run(*(args + [log]))
    if p.returncode not in (0, 1):
        raise SystemExit('brp %s: exit %d: %s' % (' '.join(args), p.returncode, p.stderr))
    return json.loads(p.stdout)


def page_data(html_path):
    text = open(html_path, encoding='utf-8').read()
    m = re.search(r'<script type="application/json" id="brp-data">\n(.*?)</script>', text, re.S)
    return text, json.loads(m.group(1))


def positions_of(data):
    """The page's positions, each with every field."""
    out, prev = [], {}
    for r in data['positions']:
        prev = dict(prev, **r)
        out.append(prev)
    return out


# what the page shows, read back from its DOM (the attributes are docs/view.md's)
READ = r'''
const q = (s, e) => Array.from((e || document).querySelectorAll(s));
const pile = document.getElementById('pile');
return {
  where: brpView.position(),
  index: brpView.index(),
  hands: q('.hand').map(h => h.classList.contains('hidden') ? {count: +h.dataset.count, backs: q('.card.back', h).length,
                                                               faces: q('.card[data-card]', h).length}
                                                             : q('.card', h).map(c => c.dataset.card)),
  melds: [0, 1].map(s => q('.side[data-side="' + s + '"] .meld').map(m => ({
      category: +m.dataset.category,
      cards: q('.card', m).map(c => [c.dataset.card, c.dataset.as || null])}))),
  pile_count: +pile.dataset.count,
  pile_top: pile.dataset.top || null,
  pile_shown: q('.card', pile).map(c => c.dataset.card),
  stock: +document.getElementById('stock').dataset.stock,
  mortos: q('.morto').map(m => m.dataset.state),
  totals: q('#score tr[data-side]').map(r => [r.dataset.total === 'hidden' ? null : +r.dataset.total, +r.dataset.match]),
  moved: q('.card.moved').length,
  banner: document.getElementById('banner').className,
  so_far: document.getElementById('banner').dataset.soFar,
  hash: location.hash,
};
'''


class Browser:
    def __init__(self):
        self.d = offline_driver('--allow-file-access-from-files')

    def open(self, path, fragment=''):
        self.d.get('about:blank')
        self.d.get('file://' + path + fragment)
        self.logs(path)
        return self.read()

    def read(self):
        return self.d.execute_script(READ)

    def logs(self, path):
        check_quiet(self.d, path, data_urls=True)

    def go(self, i):
        self.d.execute_script('brpView.go(arguments[0])', i)
        return self.read()

    def key(self, k):
        self.d.find_element(By.TAG_NAME, 'body').send_keys(k)
        return self.read()

    def quit(self):
        self.d.quit()


def compare(tag, got, want, seat=-1, revealed=False):
    """The DOM of the page (got) against brp show --json (want) at the same moment."""
    w = got['where']
    check((w['d'], w['t'], w['n']) == (want['deal'], want['turn'], want['decision']),
          '%s: page at %s, show at deal %d turn %d decision %d' % (tag, w, want['deal'], want['turn'], want['decision']))
    for s, hand in enumerate(want['hands']):
        if seat >= 0 and s != seat:
            check(got['hands'][s] == {'count': len(hand), 'backs': len(hand), 'faces': 0},
                  '%s: seat %d hand on a seat %d page: %s' % (tag, s, seat, got['hands'][s]))
        else:
            check(got['hands'][s] == hand, '%s: hand %d: page %s, show %s' % (tag, s, got['hands'][s], hand))
    for side in (0, 1):
        want_melds = [{'category': CATEGORY[m['category']],
                       'cards': [[a['card'], a.get('as')] for a in m['arrangement']]} for m in want['melds'][side]]
        check(got['melds'][side] == want_melds, '%s: side %d melds: page %s, show %s' % (tag, side, got['melds'][side],
                                                                                        want_melds))
    pile = want['pile']
    check(got['pile_count'] == len(pile), '%s: pile count %d, show %d' % (tag, got['pile_count'], len(pile)))
    check(got['pile_top'] == (pile[-1] if pile else None), '%s: pile top %s, show %s' % (tag, got['pile_top'], pile))
    visible = pile if revealed else pile[len(pile) - want['pile_visible']:]
    check(got['pile_shown'] == visible, '%s: pile shown %s, show %s' % (tag, got['pile_shown'], visible))
    check(got['stock'] == want['stock'], '%s: stock %d, show %d' % (tag, got['stock'], want['stock']))
    check(got['mortos'] == [m['state'] for m in want['mortos']], '%s: mortos %s, show %s' % (tag, got['mortos'],
                                                                                           want['mortos']))
    hide = seat >= 0 and want['phase'] not in ('deal_over', 'match_over')  # the hands' points tell about the hands
    totals = [[None if hide else want['score'][s]['total'], want['total'][s]] for s in (0, 1)]
    check(got['totals'] == totals, '%s: scores %s, show %s' % (tag, got['totals'], totals))
    if seat < 0:
        check(got['moved'] == len(want['moved']), '%s: %d cards highlighted, show moved %d' % (tag, got['moved'],
                                                                                              len(want['moved'])))


def chosen(n):
    """A few positions of n: the first, the last, and some between."""
    picks = {0, n - 1, 1, n // 3, n // 2, (2 * n) // 3, n - 2}
    return sorted(i for i in picks if 0 <= i < n)


def check_log(b, log, html, positions, seat=-1):
    got = b.open(html)
    for i in chosen(len(positions)):
        p = positions[i]
        got = b.go(i)
        compare('%s #%d' % (os.path.basename(html), i), got, show(log, p['d'], p['t'], p['n']), seat)
    return got


MAGIC = b'\x89BRP\r\n\x1a\n'


def sections(data):
    """The (type, payload) of every whole section of a log (docs/format.md: type, varint length, payload, CRC-32)."""
    out, pos = [], 8
    while pos < len(data):
        start, t, length, shift = pos, data[pos], 0, 0
        pos += 1
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        out.append((chr(t), data[pos:pos + length]))
        pos += length + 4
    return out


def build(secs):
    """A log of these sections, every CRC computed: only a signature can tell an edit."""
    out = bytearray(MAGIC)
    for t, payload in secs:
        head = bytearray([ord(t)])
        n = len(payload)
        while True:
            head.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                break
        out += head + payload + zlib.crc32(bytes(head) + payload).to_bytes(4, 'little')
    return bytes(out)


def trust(b, tmp):
    """Signed logs: the verdict's look, the badges, -K, where a tampered or untrusted page opens."""
    for k in ('platform', 'other'):
        check(run('keygen', '-o', os.path.join(tmp, k)).returncode == 0, 'keygen ' + k)
    key, pub, other = (os.path.join(tmp, f) for f in ('platform.key', 'platform.pub', 'other.pub'))
    secs = sections(open(os.path.join(ROOT, 'samples', 'kzv-4p.brp'), 'rb').read())
    second = [i for i, (t, _) in enumerate(secs) if t == 'D'][1]
    # signed as it grew: a signature after deal 1, another at the end
    grown = os.path.join(tmp, 'grown.brp')
    with open(grown, 'wb') as f:
        f.write(build(secs[:second]))
    run('sign', '-k', key, grown)
    first_half = open(grown, 'rb').read()
    with open(grown, 'wb') as f:
        f.write(first_half + build(secs[second:])[len(MAGIC):])
    partial = os.path.join(tmp, 'partial.brp')  # the second signature never made: untrusted from deal 2
    with open(partial, 'wb') as f:
        f.write(open(grown, 'rb').read())
    run('sign', '-k', key, grown)
    # deal 2 changed after signing (a byte of its decisions, its CRC made good): tampered from deal 2
    tampered = os.path.join(tmp, 'tampered.brp')
    body = sections(open(grown, 'rb').read())
    last = [i for i, (t, _) in enumerate(body) if t == 'D'][-1]
    edited = bytearray(body[last][1])
    edited[-8] ^= 0x10
    body[last] = ('D', bytes(edited))
    with open(tampered, 'wb') as f:
        f.write(build(body))

    def page(log, *keys):
        html = os.path.join(tmp, 'trust-%s-%d.html' % (os.path.basename(log), len(keys)))
        p = run('view', '-o', html, *(list(keys) + [log]))
        check(p.returncode == 0, 'brp view %s %s: %s' % (log, keys, p.stderr))
        got = b.open(html)
        badge = b.d.find_element(By.ID, 'badge-signature')
        data = page_data(html)[1]
        line = run('verify', *(list(keys) + [log])).stdout.strip()
        check(line == log + ': ' + data['line'], '%s: page verdict line %r, brp verify %r' % (html, data['line'], line))
        return got, data, {a: badge.get_attribute('data-' + a) for a in ('status', 'trusted', 'covered', 'size')}, \
            badge.get_attribute('class'), b.d.find_element(By.ID, 'verdict').get_attribute('data-tone')

    def first_of_deal(data, d):
        return next(i for i, p in enumerate(data['positions']) if p['d'] == d)

    got, data, badge, cls, tone = page(grown)
    check(data['verdict'] == 'ok' and tone == 'good' and 'tone-caution' in cls and badge['trusted'] == 'unchecked',
          'signed, no keys: verdict %s %s, badge %s %s' % (data['verdict'], tone, cls, badge))
    got, data, badge, cls, tone = page(grown, '-K', pub)
    check(data['verdict'] == 'ok' and tone == 'good' and 'tone-good' in cls and badge['trusted'] == 'yes' and
          badge['covered'] == badge['size'], 'signed, trusted: verdict %s %s, badge %s %s' % (data['verdict'], tone,
                                                                                            cls, badge))
    check(got['index'] == 0 and got['so_far'] == 'ok', 'signed, trusted: opens at %d (%s)' % (got['index'],
                                                                                          got['so_far']))
    got, data, badge, cls, tone = page(grown, '--keyring', other)
    check(data['verdict'] == 'untrusted' and tone == 'bad' and 'tone-bad' in cls and badge['trusted'] == 'no',
          'another key: verdict %s %s, badge %s %s' % (data['verdict'], tone, cls, badge))
    check(got['index'] == 0 and got['so_far'] == 'untrusted', 'another key: opens at %d (%s)' % (got['index'],
                                                                                             got['so_far']))
    got, data, badge, cls, tone = page(tampered)
    deal2 = first_of_deal(data, 2)
    check(data['verdict'] == 'tampered' and tone == 'bad' and badge['status'] == 'invalid' and 'tone-bad' in cls,
          'tampered: verdict %s %s, badge %s %s' % (data['verdict'], tone, cls, badge))
    check(got['index'] == deal2 and got['so_far'] == 'tampered' and 'refused' in got['banner'],
          'tampered: opens at %d (%s), not deal 2 as dealt (%d)' % (got['index'], got['so_far'], deal2))
    check(b.go(deal2 - 1)['so_far'] == 'ok', 'tampered: the signed deal 1 does not read ok')
    got, data, badge, cls, tone = page(partial)
    check(data['verdict'] == 'untrusted' and badge['status'] == 'partial' and got['index'] == first_of_deal(data, 2)
          and got['so_far'] == 'untrusted', 'signed deal 1 only: verdict %s, badge %s, opens at %d (%s)' %
          (data['verdict'], badge, got['index'], got['so_far']))


REVIEW_READ = r'''
const q = s => Array.from(document.querySelectorAll(s));
return {
  marks: q('#turns .rv').map(e => [+e.dataset.index, e.dataset.class, e.querySelector('.rv-sym').textContent,
                                   getComputedStyle(e).textDecorationLine]),
  seats: q('#review-seats tr[data-seat]').map(r => [+r.dataset.seat, r.cells[2].textContent, r.cells[3].textContent]),
};
'''


def review(b, tmp):
    """brp view --review: the marked list of turns, a marked decision's position, each seat's accuracy."""
    log = os.path.join(ROOT, 'samples', 'kzv-4p.brp')
    rfile, html = os.path.join(tmp, 'kzv-review.json'), os.path.join(tmp, 'review.html')
    p = run('review', '--strength', '2', '--json', log)
    check(p.returncode == 0, 'brp review: exit %d %s' % (p.returncode, p.stderr))
    with open(rfile, 'w') as f:
        f.write(p.stdout)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    decisions = [r for r in rows if 'played' in r]
    summaries = {r['seat']: r for r in rows if r.get('summary') and r['deal'] is None}
    marked = {(r['deal'], r['turn'], r['decision']): r for r in decisions if r['class']}
    check(len({k[0] for k in marked}) == 2, 'the review at strength 2 marks no decision in one of the two deals')
    check(run('view', '--review', rfile, '-o', html, log).returncode == 0, 'brp view --review')
    text, data = page_data(html)
    positions, prev = [], {}
    for r in data['positions']:
        prev = dict(prev, **r)
        positions.append(prev)
    b.open(html)
    symbols = {'inaccuracy': '?!', 'mistake': '?', 'blunder': '??'}
    for deal in (1, 2):
        b.go(next(i for i, q in enumerate(positions) if q['d'] == deal))
        got = b.d.execute_script(REVIEW_READ)
        where = [(positions[i]['d'], positions[i]['t'], positions[i]['n']) for i, _, _, _ in got['marks']]
        want = sorted(k for k in marked if k[0] == deal)
        check(where == want, 'deal %d: the list of turns marks %s, the review %s' % (deal, where, want))
        for (i, cls, sym, line), k in zip(got['marks'], where):
            check(cls == marked[k]['class'] and sym == symbols[cls] and 'underline' in line,
                  'deal %d: the mark at %s is %s %s (%s), the review says %s' % (deal, k, cls, sym, line,
                                                                                marked[k]['class']))
    check(got['seats'] == [[s, '%.1f%%' % summaries[s]['accuracy'], '%.1f%%' % summaries[s]['match_rate']]
                           for s in sorted(summaries)], 'the summary\'s accuracy %s, the review %s' %
          (got['seats'], summaries))
    # a click on a marked decision (the last of deal 2's) opens its position: the better decision and the loss
    mark = b.d.find_elements(By.CSS_SELECTOR, '#turns .rv')[-1]
    mark.click()
    got = settle(b, lambda g: g['where']['k'] == 1)
    k = (got['where']['d'], got['where']['t'], got['where']['n'])
    r = marked.get(k)
    if check(r is not None and got['where']['k'] == 1, 'a click on a marked decision opens %s' % (k,)):
        note = b.d.find_element(By.ID, 'review-note').text
        want = 'Better: %s, %.1f \u00b1 %.1f points lost' % (r['best'], r['loss'], r['se'])
        check(want in note and symbols[r['class']] in note and r['class'] in note and
              ('uncertain' in note) == r['class_uncertain'], 'at %s the note is %r, not %r' % (k, note, want))
    # a decision the engine agrees with says so; one not reviewed (no choice) says nothing
    agree = next(i for i, q in enumerate(positions) if q['k'] == 1 and any(
        (d['deal'], d['turn'], d['decision']) == (q['d'], q['t'], q['n']) and d['best'] == d['played']
        for d in decisions))
    b.go(agree)
    check('engine\'s choice too' in b.d.find_element(By.ID, 'review-note').text, 'no note where the engine agrees')
    # without JavaScript: each seat's accuracy and the marked decisions, in the summary
    b.d.execute_cdp_cmd('Emulation.setScriptExecutionDisabled', {'value': True})
    b.d.get('file://' + html)
    summary = b.d.find_element(By.ID, 'summary').text
    check(all('%.1f%%' % summaries[s]['accuracy'] in summary for s in summaries),
          'no JavaScript: the accuracy per seat is not shown')
    check(len(b.d.find_elements(By.CSS_SELECTOR, '#review-marks tr.rv')) == len(marked),
          'no JavaScript: not every marked decision in the summary')
    b.d.execute_cdp_cmd('Emulation.setScriptExecutionDisabled', {'value': False})
    b.logs(html)
    # on a phone the review folds as the players do: no sideways scroll, the stepper within the first screen
    b.d.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {'width': 400, 'height': 800, 'deviceScaleFactor': 1,
                                                                'mobile': True})
    b.open(html)
    width, top = b.d.execute_script('return [document.documentElement.scrollWidth, '
                                    'document.getElementById("stepper").getBoundingClientRect().top + scrollY]')
    check(width <= 400 and top < 800, 'a review page at 400x800: %d px wide, the stepper at %d px' % (width, top))
    b.d.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})
    # a seat's page: its own review only, no other hand
    for seat in range(4):
        html = os.path.join(tmp, 'review-seat%d.html' % seat)
        check(run('view', '--seat', str(seat), '--review', rfile, '-o', html, log).returncode == 0,
              'brp view --seat %d --review' % seat)
        text, data = page_data(html)
        prev = {}
        for r in data['positions']:
            for s in range(4):
                if s != seat and ('h%d' % s) in r:
                    check(isinstance(r['h%d' % s], int), '%s: hand %d in the file' % (html, s))
        b.open(html)
        got = b.d.execute_script(REVIEW_READ)
        check(got['seats'] == [[seat, '%.1f%%' % summaries[seat]['accuracy'], '%.1f%%' % summaries[seat]['match_rate']]],
              'seat %d page: the summary\'s accuracy %s' % (seat, got['seats']))
        for deal in (1, 2):
            b.go(next(i for i, q in enumerate(positions) if q['d'] == deal))
            got = b.d.execute_script(REVIEW_READ)
            check(all(positions[i]['s'] == seat for i, _, _, _ in got['marks']) and
                  len(got['marks']) == sum(1 for k, r in marked.items() if k[0] == deal and r['seat'] == seat),
                  'seat %d page, deal %d: marks %s' % (seat, deal, got['marks']))
        check(all(positions[r[0]]['s'] == seat for r in data['review']['rows']) and
              len(b.d.find_elements(By.CSS_SELECTOR, '#review-marks tr.rv:not([data-seat="%d"])' % seat)) == 0,
              'seat %d page: another seat\'s review' % seat)


# the course charts (docs/view.md, "The match's course"), read back from the DOM
COURSE = r'''
const q = (s, e) => Array.from((e || document).querySelectorAll(s));
return q('#course figure').map(f => {
  const svg = f.querySelector('svg'), r = svg.getBoundingClientRect();
  return {id: f.id, w: r.width, h: r.height, role: svg.getAttribute('role'), on: f.classList.contains('on'),
          labels: (svg.getAttribute('aria-labelledby') || '').split(' ').map(i => {
            const e = document.getElementById(i); return e && svg.contains(e) && e.textContent ? e.tagName : null; }),
          texts: q('text', svg).map(t => t.textContent),
          points: q('.pt a', svg).map(a => a.getAttribute('href')),
          disputed: q('a.disputed', svg).map(a => a.getAttribute('href')),
          rows: q('details tr', f).slice(1).map(r => q('td', r).map(td => td.textContent))};
});
'''


def course_section(text):
    """The course section of a page's file, as written."""
    m = re.search(r'<section id="course".*?</section>', text, re.S)
    return m.group(0) if m else None


def check_course(b, name, positions, verdict, opened):
    """The charts: one for the match and one a deal, drawn, labelled; a deal's data is each side's melded and
    bonus points at the end of each turn (public: the same on every seat's page); the disputed moment marked
    where the page opens for it."""
    figs = b.d.execute_script(COURSE)
    deals = sorted({p['d'] for p in positions})
    check([f['id'] for f in figs] == ['course-match'] + ['course-d%d' % d for d in deals],
          '%s: course charts %s for deals %s' % (name, [f['id'] for f in figs], deals))
    ends = {}  # (deal, turn): the turn's last position
    for p in positions:
        ends[(p['d'], p['t'])] = p
    for f in figs:
        axes = ('deal', 'match total') if f['id'] == 'course-match' else ('turn', 'points on the table')
        check(f['w'] > 100 and f['h'] > 30 and f['role'] == 'img' and f['labels'] == ['title', 'desc'] and
              all(a in f['texts'] for a in axes), '%s: %s is not a labelled chart: %s' % (name, f['id'], f))
        want = []
        if verdict != 'ok':
            want = [opened] if f['id'] == 'course-match' or f['id'] == 'course-d%s' % opened.split('&')[0][3:] else []
        check(f['disputed'] == want, '%s: %s marks %s as disputed, the page opens at %s' % (name, f['id'],
                                                                                          f['disputed'], opened))
        if f['id'] == 'course-match':
            continue
        d = int(f['id'][8:])
        for row in f['rows']:
            p = ends[(d, int(row[0].split(',')[0]))]
            table = [str(p['sc'][s][0] + p['sc'][s][1]) for s in (0, 1)]
            check(row[1:] == table, '%s: deal %d turn %s: the chart says %s, the data %s' % (name, d, row[0], row[1:],
                                                                                           table))
        turns = {'#d=%d&t=%s' % (d, r[0].split(',')[0]) for r in f['rows']}
        check(f['points'] and set(f['points']) <= turns, '%s: deal %d: points %s not in its data' % (name, d,
                                                                                                   f['points']))
    return figs


def settle(b, ok):
    """b.read() once ok of it holds, or after 5 s: a click on a link is followed on hashchange, after the
    click returns."""
    deadline = time.time() + 5
    got = b.read()
    while not ok(got) and time.time() < deadline:
        time.sleep(0.05)
        got = b.read()
    return got


def course(b, tmp):
    """A point of a deal's chart opens its turn, the disputed mark opens the dispute; the charts print, in the
    sides' colours and line styles."""
    log = os.path.join(ROOT, 'samples', 'kzv-4p.brp')
    html = os.path.join(tmp, 'course.html')
    run('view', '-o', html, log)
    b.open(html)
    link = b.d.find_elements(By.CSS_SELECTOR, '#course-d2 .pt a')[3]
    href = link.get_dom_attribute('href')[1:]
    link.click()
    got = settle(b, lambda g: '#d=%d&t=%d' % (g['where']['d'], g['where']['t']) == '#' + href)
    nxt = b.d.execute_script('var i = brpView.index(); return i + 1 < brpView.count() ? '
                             '(brpView.go(i + 1), brpView.position()) : null')
    check('#d=%d&t=%d' % (got['where']['d'], got['where']['t']) == '#' + href and (nxt is None or nxt['t'] !=
                                                                                 got['where']['t']),
          'a point of the chart (%s) opens %s, not the end of its turn' % (href, got['where']))
    b.d.execute_script('brpView.go(brpView.index() - 1)')
    figs = b.d.execute_script(COURSE)
    check([f['id'] for f in figs if f['on']] == ['course-d2'], 'the current deal\'s chart is not framed')
    styles = b.d.execute_script('const s = e => getComputedStyle(document.querySelector(e));'
                                'return [s("#course-d1 path.s0").stroke, s("#course-d1 path.s1").stroke,'
                                's("#course-d1 path.s0").strokeDasharray, s("#course-d1 path.s1").strokeDasharray,'
                                's("#course-d1 .pt.s0 circle").fill, s("#course-d1 .pt.s1 rect").fill]')
    check(styles[:2] == ['rgb(0, 114, 178)', 'rgb(213, 94, 0)'] and styles[2] == 'none' and styles[3] != 'none' and
          styles[4:] == styles[:2], 'the sides are not told apart by colour and line: %s' % styles)
    b.d.execute_cdp_cmd('Emulation.setEmulatedMedia', {'media': 'print'})
    figs = b.d.execute_script(COURSE)
    check(all(f['w'] > 100 and f['h'] > 30 for f in figs), 'the charts do not print: %s' % figs)
    b.d.execute_cdp_cmd('Emulation.setEmulatedMedia', {'media': ''})
    # the disputed mark: a click opens the refused decision from anywhere
    log = os.path.join(ROOT, 'samples', 'disputed', 'meld-two-wilds.brp')
    html = os.path.join(tmp, 'course-disputed.html')
    run('view', '-o', html, log)
    opened = b.open(html)
    b.go(0)
    b.d.find_element(By.CSS_SELECTOR, '#course-match a.disputed text').click()  # its label
    got = settle(b, lambda g: g['index'] == opened['index'])
    check(got['index'] == opened['index'] and got['where']['k'] == 2, 'the disputed mark opens %s, not %s' % (
        got['where'], opened['where']))


def seat_refusal(b, tmp):
    """Another seat's refused decision: its kind and rule on a --seat page, never its cards (docs/view.md)."""
    log = os.path.join(ROOT, 'samples', 'disputed', 'meld-two-wilds.brp')  # seat 1's meld refused
    director = course_section(run('view', '-o', '-', log).stdout)
    for seat in (0, 1, 2, 3):
        html = os.path.join(tmp, 'refusal-%d.html' % seat)
        check(run('view', '--seat', str(seat), '-o', html, log).returncode == 0, 'view --seat %d' % seat)
        text = open(html, encoding='utf-8').read()
        got = b.open(html)
        banner = b.d.find_element(By.ID, 'banner').text
        check(got['where']['k'] == 2 and 'meld.wilds' in banner, 'seat %d: not on the refusal: %s' % (seat, banner))
        # the course charts draw public numbers only: a seat's are the director's
        check(director and course_section(text) == director, 'seat %d: the course charts differ from the '
              'director\'s' % seat)
        check_course(b, 'refusal-%d' % seat, positions_of(page_data(html)[1]), 'illegal', got['hash'])
        if seat == 1:
            check(text.count('meld 2c 3c 4c 2h 2s') >= 2 and 'meld 2c 3c 4c 2h 2s' in banner,
                  'seat 1 does not see its own refused meld')
        else:
            check('2c 3c 4c' not in text and '2 wilds in one meld' not in text,
                  'seat %d: the refused meld\'s cards or message are in the page' % seat)
            check('meld (its cards not shown)' in banner, 'seat %d: the refused decision is not named: %s' % (seat,
                                                                                                            banner))


def navigation(b, tmp):
    """The deal picker, the list of turns, the summary's deal links; a refused decision's cards in the hand."""
    log = os.path.join(ROOT, 'samples', 'kzv-4p.brp')
    html = os.path.join(tmp, 'nav.html')
    run('view', '-o', html, log)
    b.open(html)
    picker = b.d.find_element(By.ID, 'deal-picker')
    check([o.get_attribute('data-deal') for o in picker.find_elements(By.TAG_NAME, 'option')] == ['1', '2'],
          'the deal picker does not list deals 1 and 2')
    b.d.execute_script('var s = document.getElementById("deal-picker"); s.selectedIndex = 1;'
                       's.dispatchEvent(new Event("change"))')
    got = b.read()
    check(got['where'] == {'d': 2, 't': 0, 'n': 0, 'k': 0}, 'the deal picker: %s' % got['where'])
    links = b.d.find_elements(By.CSS_SELECTOR, '#turns li a')
    check(len(links) > 10, 'the list of turns has %d entries' % len(links))
    link = links[4]
    turn = int(link.get_attribute('data-turn'))
    link.click()
    got = settle(b, lambda g: g['where']['d'] == 2 and g['where']['t'] == turn)
    nxt = b.d.execute_script('var i = brpView.index(); return i + 1 < brpView.count() ? '
                             '(brpView.go(i + 1), brpView.position()) : null')
    check(got['where']['d'] == 2 and got['where']['t'] == turn and (nxt is None or nxt['t'] != turn),
          'a turn of the list: %s, not the end of turn %d (next %s)' % (got['where'], turn, nxt))
    check(got['hash'] == '#d=2&t=%d&n=%d' % (turn, got['where']['n']), 'a turn of the list: fragment %s' % got['hash'])
    b.d.find_element(By.CSS_SELECTOR, '#deals tr[data-deal="1"] a').click()
    got = settle(b, lambda g: g['where'] == {'d': 1, 't': 0, 'n': 0, 'k': 0})
    check(got['where'] == {'d': 1, 't': 0, 'n': 0, 'k': 0}, 'the summary\'s deal link: %s' % got['where'])
    log = os.path.join(ROOT, 'samples', 'disputed', 'meld-two-wilds.brp')
    for seat, want in ((-1, ['2c', '3c', '4c', '2h', '2s']), (0, [])):
        html = os.path.join(tmp, 'nav-refused%d.html' % seat)
        run('view', '-o', html, log, *(['--seat', str(seat)] if seat >= 0 else []))
        b.open(html)
        cards = b.d.execute_script('return Array.from(document.querySelectorAll(".hand .card.refused-card"))'
                                   '.map(c => [c.closest(".hand").dataset.seat, c.dataset.card])')
        check(sorted(c for _, c in cards) == sorted(want) and all(s == '1' for s, _ in cards),
              'seat %d page: the refused meld\'s cards outlined: %s' % (seat, cards))


PHONE = r'''
const W = innerWidth, out = [];
const q = s => Array.from(document.querySelectorAll(s));
if (document.documentElement.scrollWidth > W) out.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
q('.hand .card, .meld .card').forEach(c => { const r = c.getBoundingClientRect();
  if (r.left < 0 || r.right > W + 0.5) out.push('card ' + (c.dataset.card || 'back') + ' at ' + r.left + '..' + r.right); });
const sc = document.getElementById('score'), wrap = sc.parentNode;
if (sc.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 0.5 || wrap.scrollWidth > wrap.clientWidth)
  out.push('the score table passes its panel: ' + sc.getBoundingClientRect().right);
q('#stepper button, #stepper select, #slider, #turns a, #deals a, details > summary').forEach(e => {
  const r = e.getBoundingClientRect();
  if (r.height && (r.height < 43.5 || r.width < 43.5)) out.push((e.id || e.tagName) + ' ' + r.width + 'x' + r.height); });
return {problems: out.slice(0, 8), stepper: document.getElementById('stepper').getBoundingClientRect().top + scrollY};
'''


def phone(b, tmp):
    """At 400x800: no horizontal scroll, every card of a hand and a meld on the screen, 44 px touch targets;
    at 1400x900, the score table (its claimed column too) within its panel."""
    pages = []
    for name in ('kzv-4p.brp', 'stbl-2p.brp', 'aberto-4p.brp', 'disputed/claim-deal.brp', 'disputed/meld-two-wilds.brp'):
        log = os.path.join(ROOT, 'samples', name)
        html = os.path.join(tmp, 'phone-' + os.path.basename(name) + '.html')
        run('view', '-o', html, log)
        pages.append((name, html, page_data(html)[1]['positions']))
    for width, height in ((400, 800), (1400, 900)):
        b.d.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {'width': width, 'height': height,
                                                                    'deviceScaleFactor': 1, 'mobile': width < 600})
        for name, html, positions in pages:
            b.open(html)
            n = len(positions)
            # the largest hands and melds of the match, and a few positions between
            full, prev = [], {}
            for r in positions:
                prev = dict(prev, **r)
                full.append(prev)
            widest = max(range(n), key=lambda i: max(len(full[i].get('h%d' % s, '')) for s in range(4)))
            for i in sorted({0, n // 2, n - 1, widest}):
                b.go(i)
                got = b.d.execute_script(PHONE)
                check(not got['problems'], '%dx%d %s #%d: %s' % (width, height, name, i, got['problems']))
            if width == 400:
                b.go(0)
                top = b.d.execute_script(PHONE)['stepper']
                check(top < height, '400x800 %s: the stepper starts %d px down' % (name, top))
    b.d.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})


def main():
    tmp = tempfile.mkdtemp(prefix='brp-view-')
    logs = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, 'samples')):
        logs += [os.path.join(dirpath, f) for f in sorted(files) if f.endswith('.brp')]
    for rules in ('kzv', 'stbl', 'aberto'):
        for players in ('2', '4'):
            out = os.path.join(tmp, 'sim-%s-%s' % (rules, players))
            p = run('simulate', '-q', '-r', rules, '-p', players, '-n', '1', '--seed', '5', '--bot', 'mixed', '-o', out)
            check(p.returncode == 0, 'simulate %s %s: %s' % (rules, players, p.stderr))
            logs.append(os.path.join(out, 'match-000001.brp'))
    manifest = {}
    for line in open(os.path.join(ROOT, 'samples', 'MANIFEST'), encoding='utf-8'):
        if line.strip() and not line.startswith('#'):
            f = line.rstrip('\n').split('\t')
            manifest[os.path.join(ROOT, 'samples', f[0])] = (f[1], dict(x.split('=', 1) for x in f[2:]))

    b = Browser()
    try:
        for log in sorted(logs):
            name = os.path.relpath(log, ROOT).replace('/', '_')
            html = os.path.join(tmp, name + '.html')
            p = run('view', '-o', html, log)
            if log.endswith('not-a-log.brp'):  # not a log at all: no page, one line and exit 3
                check(p.returncode == 3 and 'not a .brp match log' in p.stderr and not os.path.exists(html),
                      'brp view %s: exit %d %s' % (log, p.returncode, p.stderr))
                continue
            if not check(p.returncode == 0, 'brp view %s: exit %d %s' % (log, p.returncode, p.stderr)):
                continue
            text, data = page_data(html)
            positions = []
            prev = {}
            for r in data['positions']:
                prev = dict(prev, **r)
                positions.append(prev)
            verdict, detail = manifest.get(log, ('ok', {}))
            check(data['verdict'] == verdict, '%s: verdict %s, MANIFEST %s' % (name, data['verdict'], verdict))
            vline = run('verify', log).stdout.strip()
            check(vline.endswith(': ' + data['line']) or vline == log + ': ' + data['line'],
                  '%s: page verdict line %r, brp verify %r' % (name, data['line'], vline))
            if not positions:
                got = b.d.get('file://' + html)
                b.logs(html)
                check('byte %s' % detail.get('offset', '?') in b.d.find_element(By.ID, 'banner').text,
                      '%s: the page does not say where it is damaged' % name)
                continue
            # where it opens
            got = b.open(html)
            # the verdict looks what it is: every sample is unsigned, so an ok one is cautionary
            tone = b.d.find_element(By.ID, 'verdict').get_attribute('data-tone')
            check(tone == ('caution' if verdict == 'ok' else 'bad'), '%s: verdict %s looks %s' % (name, verdict, tone))
            check(b.d.execute_script('return getComputedStyle(document.getElementById("verdict")).borderLeftColor') ==
                  TONE_COLOUR['caution' if verdict == 'ok' else 'bad'], '%s: the verdict box is not coloured' % name)
            if verdict == 'illegal' and detail['rule'] == 'turn.dead_end':
                # the disputed position is the decision that left the turn no legal end
                want = (int(detail['deal']), int(detail['turn']))
                p = positions[got['index']]
                check(got['where']['k'] == 1 and (got['where']['d'], got['where']['t']) == want and
                      p.get('a') == detail['decision'] and 'refused' in got['banner'] and
                      'turn.dead_end' in b.d.find_element(By.ID, 'banner').text,
                      '%s: opens on %s, not the decision %s' % (name, got['where'], detail['decision']))
            elif verdict == 'illegal':
                want = (int(detail['deal']), int(detail['turn']))
                check(got['where']['k'] == 2 and (got['where']['d'], got['where']['t']) == want and
                      'refused' in got['banner'], '%s: opens on %s, not the illegal decision %s' % (name, got['where'],
                                                                                                  want))
                check(detail['rule'] in b.d.find_element(By.ID, 'banner').text, '%s: no rule code shown' % name)
            elif verdict == 'mismatch' and detail.get('commitment') == 'mismatch':
                # deals that are not those committed: the page opens on the deal as dealt
                deal = int(detail['deal'])
                first = next(i for i, q in enumerate(positions) if deal == 0 or q['d'] == deal)
                text = b.d.find_element(By.ID, 'banner').text
                check(got['index'] == first and 'mismatch' in got['banner'] and
                      ('committed seed derives for deal %d' % deal if deal else 'commits to') in text,
                      '%s: opens on %s (%r), not deal %d as dealt' % (name, got['where'], text, deal))
                # which cards differ from the derived layout (samples/disputed/make.sh swapped two stock cards)
                diff = b.d.find_element(By.ID, 'dealing-diff').text
                check('#41: 6s (derived Kh), #42: Kh (derived 6s)' in diff and 'hand' not in diff.split('\n', 2)[-1],
                      '%s: the differing cards are not shown: %r' % (name, diff))
                seat_html = os.path.join(tmp, 'seat-' + name + '.html')
                run('view', '--seat', '0', '-o', seat_html, log)
                seat_text = open(seat_html, encoding='utf-8').read()
                check('data-place="stock"' in seat_text and 'derived Kh' not in seat_text,
                      '%s: a seat page shows the stock\'s cards' % name)
            elif verdict == 'mismatch':
                deal = int(detail['deal'])
                check((deal == 0 and got['index'] == len(positions) - 1) or
                      (got['where']['d'] == deal and positions[got['index']]['g'][0] >= 4 and 'mismatch' in
                       got['banner']), '%s: opens on %s, not the end of deal %d' % (name, got['where'], deal))
                claimed = b.d.find_elements(By.CSS_SELECTOR, '#score tr.differs, #score tr.match-claim')
                check(claimed, '%s: no claimed score beside the recomputed one' % name)
            elif verdict == 'malformed':
                check(got['index'] == len(positions) - 1 and 'byte ' + detail['offset'] in
                      b.d.find_element(By.ID, 'banner').text, '%s: does not open on the damage' % name)
                check(got['so_far'] == 'malformed', '%s: the running verdict at the damage is %s' % (name, got['so_far']))
                check('byte ' + detail['offset'] in b.d.find_element(By.ID, 'summary').text,
                      '%s: the summary does not say where the log is damaged' % name)
            elif verdict == 'incomplete':
                check(got['index'] == len(positions) - 1 and got['so_far'] == 'incomplete',
                      '%s: opens at %d (%s), not where it stops' % (name, got['index'], got['so_far']))
            else:
                check(got['index'] == 0, '%s: opens at %d, not the start' % (name, got['index']))
            check(got['hash'] == '#d=%d&t=%d&n=%d' % (got['where']['d'], got['where']['t'], got['where']['n']),
                  '%s: the fragment %s does not name the position' % (name, got['hash']))
            check_course(b, name, positions, verdict, got['hash'])
            check_log(b, log, html, positions)
            # STBL: the director's toggle shows the whole pile
            if data['profile'] == 'stbl':
                for i, p in enumerate(positions):
                    if p['c'][0] > 2:
                        b.go(i)
                        b.d.find_element(By.ID, 'reveal-pile').click()
                        compare(name + ' revealed #%d' % i, b.read(), show(log, p['d'], p['t'], p['n']), revealed=True)
                        b.d.find_element(By.ID, 'reveal-pile').click()
                        break
        trust(b, tmp)
        seat_refusal(b, tmp)
        course(b, tmp)
        navigation(b, tmp)
        review(b, tmp)
        phone(b, tmp)
        # deep links, keys and buttons, on the KZV sample
        log = os.path.join(ROOT, 'samples', 'kzv-4p.brp')
        html = os.path.join(tmp, 'links.html')
        run('view', '-o', html, log)
        got = b.open(html, '#d=2&t=10&n=2')
        compare('deep link', got, show(log, 2, 10, 2))
        start = got['index']
        got = b.key(Keys.ARROW_RIGHT)
        check(got['index'] == start + 1, 'right arrow: %d after %d' % (got['index'], start))
        compare('right arrow', got, show(log, got['where']['d'], got['where']['t'], got['where']['n']))
        i = got['index']
        got = b.key(Keys.ARROW_LEFT)
        check(got['index'] == i - 1, 'left arrow: %d after %d' % (got['index'], i))
        got = b.key(Keys.ARROW_DOWN)
        after = b.d.execute_script('return brpView.go(brpView.index() + 1), brpView.position()')
        check(after['t'] != got['where']['t'], 'down arrow: not at the end of turn %d' % got['where']['t'])
        got = b.key(Keys.ARROW_UP)
        nxt = b.d.execute_script('return brpView.go(brpView.index() + 1), brpView.position()')
        check(nxt['t'] != got['where']['t'], 'up arrow: not at the end of a turn (%s)' % got['where'])
        got = b.key(Keys.HOME)
        check(got['where']['k'] == 0 and got['where']['d'] == 2, 'Home: %s' % got['where'])
        got = b.key(Keys.END)
        check(got['where']['d'] == 2 and got['index'] == b.d.execute_script('return brpView.count()') - 1,
              'End: %s' % got['where'])
        got = b.key(Keys.HOME)
        got = b.key(Keys.HOME)
        check(got['where'] == {'d': 1, 't': 0, 'n': 0, 'k': 0}, 'Home twice: %s' % got['where'])
        b.d.find_element(By.ID, 'btn-right').click()
        got = b.read()
        check(got['where'] == {'d': 1, 't': 1, 'n': 1, 'k': 1}, 'the next button: %s' % got['where'])
        check(got['hash'] == '#d=1&t=1&n=1', 'the fragment follows the steps: %s' % got['hash'])
        b.d.execute_script('location.hash = "#d=1&t=5&n=2"')
        got = b.read()
        compare('hash change', got, show(log, 1, 5, 2))
        # seat pages: no other seat's hand in the file, backs on the page
        for log in [os.path.join(ROOT, 'samples', 'stbl-4p.brp'), os.path.join(ROOT, 'samples', 'stbl-2p.brp'),
                    os.path.join(ROOT, 'samples', 'aberto-4p.brp')]:
            nplayers = 4 if '4p' in log else 2
            director = course_section(run('view', '-o', '-', log).stdout)
            for seat in range(nplayers):
                html = os.path.join(tmp, 'seat%d-%s.html' % (seat, os.path.basename(log)))
                check(run('view', '--seat', str(seat), '-o', html, log).returncode == 0, 'view --seat %d' % seat)
                text, data = page_data(html)
                check(director and course_section(text) == director, '%s: the course charts differ from the '
                      'director\'s' % html)
                prev = {}
                positions = []
                for r in data['positions']:
                    prev = dict(prev, **r)
                    positions.append(prev)
                    for s in range(nplayers):
                        if s != seat and ('h%d' % s) in r:
                            check(isinstance(r['h%d' % s], int), '%s: hand %d in the file: %r' % (html, s, r['h%d' % s]))
                    check(len(prev['p']) == prev['c'][1], '%s: pile cards beyond the visible ones' % html)
                    for m in r.get('mv', []):
                        check(m[0] != 2 or m[1] == seat, '%s: a card into hand %d marked' % (html, m[1]))
                check_log(b, log, html, positions, seat)
        # the budget: a typical 4-player match of three deals
        out = os.path.join(tmp, 'budget')
        run('simulate', '-q', '-r', 'aberto', '-p', '4', '-n', '1', '--seed', '2', '-o', out)
        log = os.path.join(out, 'match-000001.brp')
        check(' 3 deals' in run('verify', log).stdout, 'the budget match is not of three deals')
        html = os.path.join(tmp, 'budget.html')
        run('view', '-o', html, log)
        size = os.path.getsize(html)
        check(size <= 250 * 1024, 'a 4-player match of three deals: %d bytes, over 250 KB' % size)
        got = b.open(html)
        ms = b.d.execute_script('var t = performance.getEntriesByType("navigation")[0];'
                                'return t ? t.domContentLoadedEventEnd : -1')
        print('budget: %d bytes; DOMContentLoaded after %.0f ms (not judged)' % (size, ms))
        # without JavaScript: the summary reads all the same
        log = os.path.join(ROOT, 'samples', 'disputed', 'claim-deal.brp')
        html = os.path.join(tmp, 'nojs.html')
        run('view', '-o', html, log)
        text, data = page_data(html)
        b.d.execute_cdp_cmd('Emulation.setScriptExecutionDisabled', {'value': True})
        b.d.get('file://' + html)
        summary = b.d.find_element(By.ID, 'summary').text
        check(data['line'] in summary, 'no JavaScript: the verdict line is not shown: %r' % summary[:200])
        check('claimed 615, recomputed 515' in summary, 'no JavaScript: the mismatched deal is not shown')
        check(len(b.d.find_elements(By.CSS_SELECTOR, '#deals tr[data-deal]')) == 2, 'no JavaScript: no deal rows')
        check('needs JavaScript' in b.d.find_element(By.ID, 'stepper').text, 'no JavaScript: the stepper says nothing')
        sizes = b.d.execute_script('return Array.from(document.querySelectorAll("#course svg"))'
                                   '.map(s => s.getBoundingClientRect().height)')
        check(len(sizes) == 3 and all(h > 30 for h in sizes), 'no JavaScript: the course charts are %s' % sizes)
        b.d.execute_cdp_cmd('Emulation.setScriptExecutionDisabled', {'value': False})
        b.logs(html)
        if SHOT:
            # a moment with canastras on both sides, a pile, and cards just laid
            log = os.path.join(ROOT, 'samples', 'kzv-4p.brp')
            html = os.path.join(tmp, 'shot.html')
            run('view', '-o', html, log)
            positions = []
            prev = {}
            for r in page_data(html)[1]['positions']:
                prev = dict(prev, **r)
                positions.append(prev)
            pick = next(p for p in positions if p['c'][0] >= 5 and p.get('mv') and p['mv'][0][0] == 4 and
                        all(any(m[2] for m in p['m%d' % s]) for s in (0, 1)))
            b.d.set_window_size(1280, 1000)
            b.open(html, '#d=%d&t=%d&n=%d' % (pick['d'], pick['t'], pick['n']))
            b.d.execute_script('window.scrollTo(0, document.getElementById("stepper").offsetTop - 8)')
            b.d.save_screenshot(SHOT)
            print('screenshot: %s at #d=%d&t=%d&n=%d' % (SHOT, pick['d'], pick['t'], pick['n']))
    finally:
        b.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print('%d failures' % len(FAILURES))
        sys.exit(1)
    print('ok: %d logs' % len(logs))


if __name__ == '__main__':
    main()
