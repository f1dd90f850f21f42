#!/usr/bin/python3
"""The charts' colours, checked for readers with colour-vision deficiencies and for print.

Usage: palette.py SRCROOT
       palette.py --self

The palette is the table `palette[PAL_COUNT]` of libreplay/src/export/export_xlsx.c (the XLSX
Summary's charts); the pairs of colours a chart shows side by side are the `{ PAL_A, PAL_B }` of
its `chart_specs`. Fails when

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
        path = os.path.join(sys.argv[1], 'libreplay', 'src', 'export', 'export_xlsx.c')
        with open(path, encoding='utf-8') as f:
            text = f.read()
        palette, pairs = parse_palette(text), parse_pairs(text)
        fails = check(palette, pairs)
        if not fails:
            print(f'{len(palette)} colours, {len(pairs)} pairs side by side: apart under normal vision, '
                  f'protanopia, deuteranopia, tritanopia (ΔE >= {MIN_DELTA_E}, '
                  f'side by side >= {MIN_DELTA_E_PAIR}) and in greyscale (ΔL* >= {MIN_DELTA_L})')
    else:
        print(__doc__)
        return 2
    for line in fails:
        print('FAIL: ' + line)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
