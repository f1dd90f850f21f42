#!/usr/bin/env python3
"""layers.py on made-up graphs and headers: it must find a circle, a call
against a room's order, a stale list, a call or an include up the folders
and a file in no folder, and accept a graph and a tree without them."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append('%s: %r, not %r' % (what, got, want))


def member(n):
    return 'src_%s.o' % n


def graph(edges):
    calls = {}
    for a, b in edges:
        calls.setdefault(member(a), set()).add(member(b))
    return calls


HEADER = """/*
 * Private: a made-up room.
 *
 *   room_low.c    the lowest file
 *   room_mid.c    calls the lowest
 *   room_top.c    calls both
 */
#ifndef X
#endif
"""

with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, 'room_impl.h'), 'w') as f:
        f.write(HEADER)
    with open(os.path.join(d, 'other_impl.h'), 'w') as f:
        f.write('/* Private: no list here (card.c is named, not listed). */\n')
    room_list = layers.rooms(d)
check('rooms', room_list, [('room_impl.h', ['room_low.c', 'room_mid.c', 'room_top.c'])])

down = graph([('room_top.c', 'room_mid.c'), ('room_top.c', 'room_low.c'), ('room_mid.c', 'room_low.c'),
              ('room_low.c', 'card.c')])
check('circles, downward calls', layers.circles(down), [])
check('order, downward calls', layers.order_faults(down, room_list), [])

back = graph([('room_top.c', 'room_mid.c'), ('room_low.c', 'room_top.c')])
faults = layers.order_faults(back, room_list)
check('order, a call up', faults, ['room_low.c calls room_top.c, which room_impl.h lists after it'])

stale = graph([('room_top.c', 'room_low.c')])
check('order, a stale list', layers.order_faults(stale, room_list),
      ['room_impl.h lists room_mid.c, which is not in the library'])

round_ = graph([('a.c', 'b.c'), ('b.c', 'c.c'), ('c.c', 'a.c'), ('c.c', 'd.c')])
check('circles, one of three', layers.circles(round_), [sorted(member(x) for x in ('a.c', 'b.c', 'c.c'))])
check('name', layers.name('/x/libreplay_internal.a.p/src_codec_rc.c.o'), 'codec_rc.c')
check('name in a folder', layers.name('/x/libreplay_internal.a.p/src_export_export_csv.c.o'), 'export_csv.c')
check('split', layers.split('src_log_codec_rc.c.o'), ('log', 'codec_rc.c'))

# folders: calls down and within are fine, a call up is not, nor a file in no folder
calls = {'src_log_reader.c.o': {'src_rules_game.c.o', 'src_log_format.c.o', 'src_base_card.c.o'},
         'src_rules_game.c.o': {'src_base_card.c.o'}}
check('folders, downward calls', layers.folder_faults(calls), [])
calls['src_rules_legal.c.o'] = {'src_log_reader.c.o'}
calls['src_loose.c.o'] = {'src_base_card.c.o'}
check('folders, a call up and a loose file', layers.folder_faults(calls),
      ['rules/legal.c calls log/reader.c: log is above rules', 'loose.c is in no folder of libreplay/src'])

with tempfile.TemporaryDirectory() as d:
    for folder in ('base', 'rules', 'log'):
        os.mkdir(os.path.join(d, folder))
    with open(os.path.join(d, 'rules', 'game.c'), 'w') as f:
        f.write('#include "base/msg.h"\n#include "rules/game_impl.h"\n')
    check('includes, downward', layers.include_faults(d), [])
    with open(os.path.join(d, 'base', 'card.c'), 'w') as f:
        f.write('#include "log/format.h"\n#include "nowhere/x.h"\n')
    with open(os.path.join(d, 'stray.c'), 'w') as f:
        f.write('\n')
    check('includes, up and stray', layers.include_faults(d),
          ['stray.c is in no folder of libreplay/src', 'base/card.c includes log/format.h: log is above base',
           'base/card.c includes nowhere/x.h: no such folder'])

for f in failures:
    print(f)
sys.exit(1 if failures else 0)
