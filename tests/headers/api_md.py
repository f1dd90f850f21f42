#!/usr/bin/env python3
"""docs/api.md, the API reference, written from the public headers' comments.

Usage: api_md.py HEADER...                 the reference, on standard output
       api_md.py --check API_MD HEADER...  exit 1, with the command that
                                           rewrites it, when API_MD differs

The headers are the files of libreplay/include/libreplay/ (version.h.in for
the generated version.h). They are read with doc_check.py's parser, so that
what this reference shows as a declaration's comment is what doc_check.py
checks. For each header, in libreplay.h's include order (then any other
header by name, version.h last): its leading comment, then each public
function, type and macro: its declaration as a C code block, as in the
header with the comments removed, followed by its comment as text, and the
comments at the end of its lines (enumeration values, fields, the lines of a
group) as a list. The output depends on nothing but the headers' text: not
on the order or the directory of the arguments, the time or the locale.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_check  # noqa: E402

COMMAND = ('python3 tests/headers/api_md.py libreplay/include/libreplay/*.h '
           'libreplay/include/libreplay/version.h.in > docs/api.md')

COND = re.compile(r'\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b')
SEPARATOR = re.compile(r'^-+\s*(.*?)\s*-+$')


def comment_text(body):
    """A comment's text: markers stripped, lines kept, common indent removed."""
    if body.startswith('//'):
        return body[2:].strip()
    inner = body[2:-2] if body.endswith('*/') else body[2:]
    lines = inner.split('\n')
    out = []
    for i, line in enumerate(lines):
        line = line.rstrip()
        if i > 0:
            m = re.match(r'\s*\*( |$)', line)
            if m:
                line = line[m.end():]
            else:
                line = line.lstrip()
        out.append(line)
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    indents = [len(l) - len(l.lstrip()) for l in out if l.strip()]
    cut = min(indents) if indents else 0
    return '\n'.join(l[cut:] for l in out)


CODEISH = re.compile(
    r'`[^`\n]*`'                                  # already a code span
    r'|\*+\w*_?\w*(?:->\w+)?(?:\(\))?(?=[\s,.;:)]|$)'  # *out, *_errmsg(), *rep
    r'|\b\w+->\w+(?:\.\w+)?'                      # out->message
    r'|\b_\w+(?:\(\))?'                           # _free, _errmsg()
    r'|\b(?:rpl|RPL)_\w+(?:(?:\.|->)\w+)*(?:\(\))?'  # every rpl_ and RPL_ name, rpl_verdict.match_id
    r'|\b\w+\.(?:h|c)\b'                         # notation_impl.h
    r'|"[^"\n]*\\[^"\n]*"')                      # a C string with an escape: "\r\n"


def inline(text):
    """Markdown for a line of comment text: names as code, the rest escaped."""
    out = []
    pos = 0
    for m in CODEISH.finditer(text):
        out.append(escape(text[pos:m.start()]))
        tok = m.group(0)
        out.append(tok if tok.startswith('`') else '`%s`' % tok)
        pos = m.end()
    out.append(escape(text[pos:]))
    return ''.join(out)


def escape(s):
    s = s.replace('\\', '\\\\').replace('*', '\\*')
    s = re.sub(r'(?<!\w)_', r'\\_', s)
    s = re.sub(r'<(?=[A-Za-z/!?])', '&lt;', s)
    return s


def paragraphs(text):
    """Markdown lines for a comment's text: paragraphs and lists kept, and an
    indented run of lines that is not a list item's continuation (a table of
    names and what they do) kept as it is laid out."""
    out = []
    in_item = False
    block = []

    def flush():
        if block:
            if out and out[-1] != '':
                out.append('')
            out.extend(['```text'] + block + ['```', ''])
            del block[:]

    for line in text.split('\n'):
        if not line.strip():
            flush()
            in_item = False
            if out and out[-1] != '':
                out.append('')
            continue
        lead = len(line) - len(line.lstrip())
        body = line.lstrip()
        item = re.match(r'([-+*]|\d+[.)])\s+', body)
        if lead >= 2 and not in_item and not item:
            block.append(line)
            continue
        flush()
        if item:
            in_item = True
            out.append(' ' * min(lead, 3) + item.group(0) + inline(body[item.end():]))
            continue
        # a line that would start a heading, a quote or a rule in Markdown
        if re.match(r'(#|>|=+\s*$|-{3,}\s*$)', body):
            body = '\\' + body
        out.append(' ' * min(lead, 3) + inline(body))
    flush()
    while out and out[-1] == '':
        out.pop()
    return out


class Header:
    def __init__(self, path):
        self.path = path
        name = os.path.basename(path)
        self.name = name[:-3] if name.endswith('.h.in') else name
        with open(path, encoding='utf-8') as f:
            self.text = f.read()
        code, self.comments = doc_check.split_comments(self.text)
        self.lines = self.text.split('\n')
        self.code = code.split('\n')
        self.decls = doc_check.declarations(self.code)


def decl_end(h, no, kind):
    """The last line of the declaration that starts on line no."""
    code = h.code
    if kind == 'macro':
        end = no
        while code[end - 1].rstrip().endswith('\\') and end < len(code):
            end += 1
        return end
    depth = 0
    paren = 0
    for i in range(no, len(code) + 1):
        for ch in code[i - 1]:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            elif ch == '(':
                paren += 1
            elif ch == ')':
                paren -= 1
            elif ch == ';' and depth == 0 and paren == 0:
                return i
    return no


def entries(h):
    """The header's parts in order: ('intro', text), ('section', title),
    ('text', text) and ('decl', names, kinds, first, last, comment)."""
    own = {}       # last line of an own-line comment -> (first line, text)
    trailing = {}  # line of a comment that starts after code -> text
    for start, end, body in h.comments:
        if h.code[start - 1].strip():
            trailing[start] = comment_text(body)
        else:
            own[end] = (start, comment_text(body))
    items = []
    used = set()   # own comments that document a declaration
    decl_items = []
    prev = None
    for no, kind, name in h.decls:
        if prev is not None and no <= prev[4]:
            # another #define of the same macro in the same #if (RPL_API)
            if name not in prev[1]:
                prev[1].append(name)
                prev[2].append(kind)
            continue
        first = no
        if kind == 'macro':
            while first > 1 and (COND.match(h.code[first - 2]) or
                                 re.match(r'\s*#\s*define\s+%s\b' % re.escape(name), h.code[first - 2])):
                first -= 1
        last = decl_end(h, no, kind)
        if kind == 'macro' and first < no:
            # down to the #endif that closes the #if above
            depth = 0
            for i in range(first, len(h.code) + 1):
                s = h.code[i - 1].strip()
                if re.match(r'#\s*if', s):
                    depth += 1
                elif re.match(r'#\s*endif', s):
                    depth -= 1
                    if depth == 0:
                        last = i
                        break
        comment = None
        if first - 1 in own:
            comment = own[first - 1][1]
            used.add(first - 1)
        if (comment is None and prev is not None and first == prev[4] + 1):
            # a line of a group: it joins the declarations above it
            prev[1].append(name)
            prev[2].append(kind)
            prev[4] = last
            continue
        prev = ['decl', [name], [kind], first, last, comment]
        decl_items.append(prev)
    spans = [(d[3], d[4]) for d in decl_items]

    def inside(line):
        return any(a <= line <= b for a, b in spans)

    intro = None
    for start, end, body in h.comments:
        if start == 1 or (intro is None and not any(l.strip() for l in h.code[:start - 1])):
            intro = end
            items.append((start, ('intro', comment_text(body))))
            break
    for end, (start, text) in own.items():
        if end == intro or end in used or inside(start):
            continue
        m = SEPARATOR.match(text)
        items.append((start, ('section', m.group(1)) if m and '\n' not in text else ('text', text)))
    for d in decl_items:
        items.append((d[3], tuple(d)))
    items.sort(key=lambda x: x[0])
    return [it for _, it in items], trailing, own


def code_block(h, first, last):
    """The declaration's lines, comments removed, lines that held only a comment dropped."""
    out = []
    for i in range(first, last + 1):
        code = h.code[i - 1].rstrip()
        if code or not h.lines[i - 1].strip():
            out.append(code)
    return out


def member_label(code):
    """What a list item names for a line's comment: a function's name, a
    macro's name and value, a field's or an enumeration value's declaration."""
    code = ' '.join(code.split())
    if code.startswith('RPL_API'):
        m = re.search(r'(\w+)\s*\(', code)
        return m.group(1) + '()' if m else code
    m = re.match(r'#\s*define\s+(.*)', code)
    if m:
        return m.group(1)
    return code.rstrip(',;') if not code.endswith(');') else code.rstrip(';')


def member_notes(h, first, last, trailing, own, lead=None):
    """The comments inside a declaration's lines, in order, as list items."""
    ordered = []
    if lead is not None:
        ordered.append((first, member_label(h.code[first - 1]), lead))
    for i in range(first, last + 1):
        if i in trailing:
            ordered.append((i, member_label(h.code[i - 1]), trailing[i]))
    # own-line comments inside a struct: in their place among the fields
    for end, (start, text) in own.items():
        if first <= start and end <= last:
            ordered.append((start, None, text))
    ordered.sort(key=lambda x: x[0])
    out = []
    for _, code, text in ordered:
        text = ' '.join(l.strip() for l in text.split('\n') if l.strip())
        if code is None:
            out.append('- ' + inline(text))
        else:
            out.append('- `%s`: %s' % (code.replace('`', "'"), inline(text)))
    return out


def anchor(name, taken):
    a = re.sub(r'[^a-z0-9_-]+', '-', name.lower()).strip('-')
    base, k = a, 2
    while a in taken:
        a = '%s-%d' % (base, k)
        k += 1
    taken.add(a)
    return a


def order(headers):
    by_name = {h.name: h for h in headers}
    umbrella = by_name.get('libreplay.h')
    names = []
    if umbrella:
        for line in umbrella.code:
            m = re.match(r'\s*#\s*include\s+"libreplay/([\w.]+)"', line)
            if m and m.group(1) in by_name and m.group(1) not in names:
                names.append(m.group(1))
    rest = sorted(n for n in by_name if n not in names and n not in ('libreplay.h', 'version.h'))
    names += rest
    if 'version.h' in by_name:
        names.append('version.h')
    return umbrella, [by_name[n] for n in names]


def render(paths):
    headers = [Header(p) for p in paths]
    umbrella, ordered = order(headers)
    taken = set()
    out = ['# libreplay API reference', '',
           '<!-- Generated from the public headers by tests/headers/api_md.py: do not edit. -->',
           '<!-- After changing a header, rewrite it from the top of the source tree with: -->',
           '<!-- %s -->' % COMMAND, '',
           'Generated from the comments of the public headers `libreplay/include/libreplay/*.h`; '
           'the `api-doc` test fails when it is out of step with them. Rewrite it after changing a header, '
           'from the top of the source tree:', '',
           '    ' + COMMAND, '',
           'A program includes `<libreplay/libreplay.h>`, which includes every header below, '
           'and links with `pkg-config --libs libreplay`. '
           '[conventions.md](conventions.md) gives the rules every header follows '
           '(names, ownership, error codes, threads).', '']
    if umbrella:
        for it in entries(umbrella)[0]:
            if it[0] == 'intro':
                text = it[1].split('\n')
                out += paragraphs('\n'.join(text)) + ['']
    body = []
    toc = ['## Contents', '']
    for h in ordered:
        items, trailing, own = entries(h)
        ha = anchor(h.name, taken)
        title = h.name
        body += ['<a id="%s"></a>' % ha, '', '## %s' % title, '']
        links = []
        for it in items:
            if it[0] == 'intro':
                body += paragraphs(it[1]) + ['']
                if h.path.endswith('.in'):
                    body += ['(The build writes `version.h` from `version.h.in`, '
                             'with the version of the top `meson.build` in place of each `@...@`.)', '']
            elif it[0] == 'section':
                body += ['### %s' % inline(it[1]), '']
            elif it[0] == 'text':
                body += paragraphs(it[1]) + ['']
            else:
                _, names, kinds, first, last, comment = it
                a = anchor(names[0], taken)
                label = ', '.join(names)
                links.append('[%s](#%s)' % (names[0] if len(names) == 1 else label, a))
                body += ['<a id="%s"></a>' % a, '', '#### %s' % label, '', '```c'] + code_block(h, first, last) + ['```', '']
                lead = None
                if comment and len(names) > 1 and first not in trailing and h.code[first - 1].strip() \
                        and not COND.match(h.code[first - 1]) and decl_end(h, first, kinds[0]) == first:
                    # the comment above a group whose first line has none of its
                    # own, the others one each: that comment is the first line's
                    lead = comment
                elif comment:
                    body += paragraphs(comment) + ['']
                notes = member_notes(h, first, last, trailing, own, lead)
                if notes:
                    body += notes + ['']
        toc.append('- [%s](#%s)%s' % (h.name, ha, ': ' + ', '.join(links) if links else ''))
    out += toc + [''] + body
    while out and out[-1] == '':
        out.pop()
    return '\n'.join(out) + '\n'


def main(argv):
    if argv[:1] == ['--check']:
        if len(argv) < 3:
            print('usage: api_md.py --check API_MD HEADER...', file=sys.stderr)
            return 2
        want = render(argv[2:])
        try:
            with open(argv[1], encoding='utf-8', newline='') as f:
                have = f.read()
        except OSError as e:
            have = None
            print('%s: %s' % (argv[1], e.strerror), file=sys.stderr)
        if have != want:
            print('docs/api.md is out of step with the headers; rewrite it: %s' % COMMAND)
            return 1
        return 0
    if not argv:
        print('usage: api_md.py HEADER... > docs/api.md', file=sys.stderr)
        return 2
    sys.stdout.buffer.write(render(argv).encode('utf-8'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
