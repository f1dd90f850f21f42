#!/usr/bin/python3
"""The charts' colours, checked for readers with colour-vision deficiencies and for print.

Usage: palette.py SRCROOT
       palette.py --self

Three palettes, each checked the same way:

- the workbook's (the XLSX Summary's charts): the table `palette[PAL_COUNT]` of
  libreplay/src/export/export_xlsx.c; the pairs a chart shows side by side are the
  `{ PAL_A, PAL_B }` of its `chart_specs`;
- brp report's: the table `brp_palette[]` of tools/brp/svg.c (rows `{ "name", "#RRGGBB" }`); the
  pairs are the `{ BRP_A, BRP_B }` series colours of tools/brp/cmd_report.c;
- brp view's course charts: the custom properties `--side0`, `--side1`, `--dispute` of
  tools/brp/view/view.css; every two are shown together.

And the three must agree on the sides: side 0 and side 1 have one colour each in all three
(PAL_SIDE0/PAL_SIDE1, brp_palette's first two rows, --side0/--side1). A palette fails when

- two colours of the palette are closer than MIN_DELTA_E (CIE 1976 ΔE*ab in CIELAB, D65) as a
  person with normal colour vision sees them, or as one with protanopia, deuteranopia or
  tritanopia does: the colours are simulated with the matrices of Machado, Oliveira and
  Fernandes (2009, severity 1.0), applied to linear sRGB; two colours a chart shows side by side
  must be MIN_DELTA_E_PAIR apart;
- two colours a chart shows side by side differ by less than MIN_DELTA_L in lightness (CIELAB L*):
  printed in greyscale only lightness is left to tell them apart.

--self checks the checker: the colour math on known values, and a palette that must fail
(red and green under deuteranopia; two colours of one lightness in greyscale).
"""
import itertools
import math
import os
import re
import sys

MIN_DELTA_E = 15.0  # any two colours: well apart (ΔE*ab 2.3 is just noticeable); Okabe-Ito's closest is 16
MIN_DELTA_E_PAIR = 20.0  # two colours of one chart: clearly different at a glance
MIN_DELTA_L = 8.0   # lightness steps a greyscale print keeps apart

# Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of Color Vision
# Deficiency", IEEE TVCG 15(6), 2009: the matrices for severity 1.0, on linear RGB.
MACHADO = {
    'protanopia': ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    'deuteranopia': ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    'tritanopia': ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}

PALETTE = re.compile(r'\[PAL_(\w+)\]\s*=\s*0x([0-9A-Fa-f]{6})')
PAIR = re.compile(r'\{\s*PAL_(\w+)\s*,\s*PAL_(\w+)\s*\}')
SVG_PALETTE = re.compile(r'\{\s*"([^"]+)"\s*,\s*"#([0-9A-Fa-f]{6})"\s*\}')
SVG_ENUM = re.compile(r'enum brp_colour\s*\{(.*?)\}', re.S)
SVG_PAIR = re.compile(r'\{\s*BRP_(\w+)\s*,\s*BRP_(\w+)\s*\}')
CSS_COLOUR = re.compile(r'--(side\d|dispute)\s*:\s*#([0-9A-Fa-f]{6})\s*;')


def rgb(hexrgb):
    v = int(hexrgb, 16)
    return ((v >> 16) & 255, (v >> 8) & 255, v & 255)


def parse_palette(text):
    """{NAME: (r, g, b)} of the `[PAL_NAME] = 0xRRGGBB` entries of a C source's text."""
    out = {}
    for name, hexrgb in PALETTE.findall(text):
        v = int(hexrgb, 16)
        out[name] = ((v >> 16) & 255, (v >> 8) & 255, v & 255)
    return out


def parse_pairs(text):
    """The distinct pairs (NAME, NAME) of colours a chart shows side by side: `{ PAL_A, PAL_B }`."""
    return sorted({tuple(p) for p in PAIR.findall(text) if p[0] != p[1]})


def parse_svg_palette(header, source):
    """{NAME: (r, g, b)} of svg.c's `brp_palette` rows, named by svg.h's `enum brp_colour` (BLUE, ...)."""
    m = SVG_ENUM.search(header)
    names = re.findall(r'BRP_(\w+)', m.group(1)) if m else []
    names = [n for n in names if n != 'NCOLOURS']
    rows = SVG_PALETTE.findall(source)
    return {n: rgb(h) for n, (_, h) in zip(names, rows)} if len(names) == len(rows) else {}


def parse_svg_pairs(text):
    """The pairs of series colours of brp report's charts: `{ BRP_A, BRP_B }`."""
    return sorted({tuple(p) for p in SVG_PAIR.findall(text) if p[0] != p[1]})


def parse_css(text):
    """{NAME: (r, g, b)} of the custom properties --side0, --side1, --dispute of a style sheet."""
    return {n.upper(): rgb(h) for n, h in CSS_COLOUR.findall(text)}


def sides_agree(xlsx, svg, css):
    """The failures: side 0's and side 1's colour is not one and the same in the three palettes."""
    bad = []
    for side, names in ((0, ('SIDE0', 'BLUE', 'SIDE0')), (1, ('SIDE1', 'VERMILLION', 'SIDE1'))):
        got = {'export_xlsx.c': xlsx.get(names[0]), 'svg.c': svg.get(names[1]), 'view.css': css.get(names[2])}
        if None in got.values() or len(set(got.values())) != 1:
            bad.append(f'side {side} has different colours: ' +
                       ', '.join(f'{k} {"#%02X%02X%02X" % v if v else "none"}' for k, v in got.items()))
    return bad


def to_linear(c):
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def simulate(rgb, kind):
    """The linear RGB that a reader with the deficiency kind (None: normal vision) sees for rgb."""
    lin = [to_linear(c) for c in rgb]
    if kind is None:
        return lin
    m = MACHADO[kind]
    return [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]


def lab(lin):
    """CIELAB (D65) of a linear sRGB colour."""
    r, g, b = lin
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def delta_e(a, b):
    return math.dist(a, b)


def check(palette, pairs):
    """The failures (lines of text) of a palette and its side-by-side pairs."""
    bad = []
    if len(palette) < 2:
        bad.append(f'no palette found ({len(palette)} colours)')
    for kind in (None, 'protanopia', 'deuteranopia', 'tritanopia'):
        for (n1, c1), (n2, c2) in itertools.combinations(sorted(palette.items()), 2):
            d = delta_e(lab(simulate(c1, kind)), lab(simulate(c2, kind)))
            if d < MIN_DELTA_E:
                bad.append(f'{n1} and {n2}: ΔE {d:.1f} < {MIN_DELTA_E} ({kind or "normal vision"})')
    for n1, n2 in pairs:
        if n1 not in palette or n2 not in palette:
            bad.append(f'pair {n1}, {n2}: not in the palette')
            continue
        for kind in (None, 'protanopia', 'deuteranopia', 'tritanopia'):
            d = delta_e(lab(simulate(palette[n1], kind)), lab(simulate(palette[n2], kind)))
            if d < MIN_DELTA_E_PAIR:
                bad.append(f'{n1} and {n2}, side by side: ΔE {d:.1f} < {MIN_DELTA_E_PAIR} ({kind or "normal vision"})')
        dl = abs(lab(simulate(palette[n1], None))[0] - lab(simulate(palette[n2], None))[0])
        if dl < MIN_DELTA_L:
            bad.append(f'{n1} and {n2}, side by side: lightness apart by {dl:.1f} < {MIN_DELTA_L} (greyscale)')
    return bad


def self_test():
    fails = []
    white = lab(simulate((255, 255, 255), None))
    if abs(white[0] - 100) > 0.05 or abs(white[1]) > 0.05 or abs(white[2]) > 0.05:
        fails.append(f'white is {white}, not L* 100')
    grey = lab(simulate((119, 119, 119), None))[0]
    if abs(grey - 50.0) > 0.5:
        fails.append(f'#777777 has L* {grey:.2f}, not about 50')
    for kind in MACHADO:  # a grey stays grey: each matrix row sums to 1
        g = simulate((128, 128, 128), kind)
        if max(g) - min(g) > 0.005:
            fails.append(f'{kind}: grey becomes {g}')
    src = '[PAL_RED] = 0xFF0000,\n[PAL_GREEN] = 0x00A000,\n{ PAL_RED, PAL_GREEN }, { PAL_RED, PAL_RED }'
    p = parse_palette(src)
    if p != {'RED': (255, 0, 0), 'GREEN': (0, 160, 0)} or parse_pairs(src) != [('RED', 'GREEN')]:
        fails.append(f'parsing: {p}, {parse_pairs(src)}')
    svg_h = 'enum brp_colour {\n\tBRP_BLUE, /* side 0 */\n\tBRP_VERMILLION,\n\tBRP_NCOLOURS\n};'
    svg_c = '{ "blue", "#0072B2" },\n{ "vermillion", "#D55E00" },'
    sp = parse_svg_palette(svg_h, svg_c)
    css = parse_css(':root { --side0: #0072B2; --side1: #D55E00; --dispute: #000000; }')
    if sp != {'BLUE': (0, 0x72, 0xB2), 'VERMILLION': (0xD5, 0x5E, 0)} or \
            parse_svg_pairs('{ BRP_BLUE, BRP_VERMILLION }') != [('BLUE', 'VERMILLION')]:
        fails.append(f'parsing svg.c: {sp}')
    if css != {'SIDE0': (0, 0x72, 0xB2), 'SIDE1': (0xD5, 0x5E, 0), 'DISPUTE': (0, 0, 0)}:
        fails.append(f'parsing view.css: {css}')
    xl = {'SIDE0': (0, 0x72, 0xB2), 'SIDE1': (0xD5, 0x5E, 0)}
    if sides_agree(xl, sp, css):
        fails.append('the same sides do not agree: ' + '; '.join(sides_agree(xl, sp, css)))
    if not sides_agree(xl, sp, dict(css, SIDE1=(0xE6, 0x9F, 0))):
        fails.append('side 1 orange in view.css, vermillion elsewhere: agreed')
    if not any('deuteranopia' in b for b in check(p, [])):
        fails.append('red and green pass under deuteranopia')
    same_l = {'A': (0x00, 0x72, 0xB2), 'B': (0x98, 0x5E, 0x78)}  # blue and a mauve of about one lightness
    if not any('greyscale' in b for b in check(same_l, [('A', 'B')])):
        fails.append('two colours of one lightness pass in greyscale')
    return fails


def main():
    if sys.argv[1:] == ['--self']:
        fails = self_test()
    elif len(sys.argv) == 2:
        def read(*parts):
            with open(os.path.join(sys.argv[1], *parts), encoding='utf-8') as f:
                return f.read()
        xlsx_c = read('libreplay', 'src', 'export', 'export_xlsx.c')
        svg = parse_svg_palette(read('tools', 'brp', 'svg.h'), read('tools', 'brp', 'svg.c'))
        css = parse_css(read('tools', 'brp', 'view', 'view.css'))
        palettes = [('export_xlsx.c', parse_palette(xlsx_c), parse_pairs(xlsx_c)),
                    ('svg.c', svg, parse_svg_pairs(read('tools', 'brp', 'cmd_report.c'))),
                    ('view.css', css, list(itertools.combinations(sorted(css), 2)))]
        fails = []
        for name, palette, pairs in palettes:
            fails += [f'{name}: {b}' for b in check(palette, pairs)]
        fails += sides_agree(palettes[0][1], svg, css)
        if not fails:
            for name, palette, pairs in palettes:
                print(f'{name}: {len(palette)} colours, {len(pairs)} pairs side by side: apart under normal vision, '
                      f'protanopia, deuteranopia, tritanopia (ΔE >= {MIN_DELTA_E}, '
                      f'side by side >= {MIN_DELTA_E_PAIR}) and in greyscale (ΔL* >= {MIN_DELTA_L})')
            print('side 0 and side 1: one colour each in the three')
    else:
        print(__doc__)
        return 2
    for line in fails:
        print('FAIL: ' + line)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
