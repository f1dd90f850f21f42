#!/usr/bin/env python3
"""Every public declaration has a comment (docs/conventions.md, section 7).

Usage: doc_check.py HEADER...

A declaration of a public header is a function (RPL_API ...), a type (a
typedef, a struct or an enum at the top level) or a macro (#define, the
include guard excepted). It is documented when a comment of its own lines
ends on the line right above its first line, or when its first line ends
with a comment (a comment at the end of the line above does not count).
Enumeration values and struct fields are covered by their type's comment and
are not checked one by one.

Besides, every rpl_name or RPL_NAME a comment mentions must be declared in one
of the headers, so that no comment announces a function, a type or a constant
that does not exist.

Prints one line per fault, FILE:LINE: what, and exits 1 when there is any.
"""
import re
import sys

IDENT = re.compile(r'\b(rpl_[a-z0-9_]*[a-z0-9]|RPL_[A-Z0-9_]*[A-Z0-9])\b')


def split_comments(text):
    """The code with comments blanked, and the comments as (start line, end line, text)."""
    code = []
    comments = []
    i, line, n = 0, 1, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            if j < 0:
                j = n - 2
            body = text[i:j + 2]
            comments.append((line, line + body.count('\n'), body))
            code.append(re.sub(r'[^\n]', ' ', body))
            line += body.count('\n')
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            comments.append((line, line, text[i:j]))
            code.append(' ' * (j - i))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            code.append(text[i:j + 1])
            i = j + 1
        else:
            if text[i] == '\n':
                line += 1
            code.append(text[i])
            i += 1
    return ''.join(code), comments


def declarations(code_lines):
    """(line, kind, name) of every top-level declaration."""
    found = []
    depth = 0
    guard = None
    pending = None  # a typedef struct ... { whose name comes at its closing brace
    cplusplus = False  # inside #ifdef __cplusplus: extern "C" { and its }
    for no, raw in enumerate(code_lines, 1):
        s = raw.strip()
        if re.match(r'#\s*ifdef\s+__cplusplus', s):
            cplusplus = True
            continue
        if cplusplus:
            cplusplus = not re.match(r'#\s*endif', s)
            continue
        if depth == 0 and s.startswith('#'):
            m = re.match(r'#\s*ifndef\s+(\w+)', s)
            if m and guard is None:
                guard = m.group(1)
            m = re.match(r'#\s*define\s+(\w+)', s)
            if m and m.group(1) != guard:
                found.append((no, 'macro', m.group(1)))
            continue
        if depth == 0 and s:
            if s.startswith('RPL_API'):
                m = re.search(r'(\w+)\s*\(', s)
                found.append((no, 'function', m.group(1) if m else s))
            elif re.match(r'(typedef\s+)?(struct|enum)\s+\w+\s*\{', s):
                m = re.match(r'(typedef\s+)?(struct|enum)\s+(\w+)', s)
                found.append((no, 'type', m.group(3)))
                if m.group(1):
                    pending = no
            elif s.startswith('typedef'):
                m = re.search(r'(\w+)\s*;\s*$', s) or re.search(r'\(\s*\*\s*(\w+)\s*\)', s)
                found.append((no, 'type', m.group(1) if m else s))
        depth += raw.count('{') - raw.count('}')
        if pending and depth == 0 and '}' in raw:
            pending = None
    return found


def main(paths):
    faults = []
    known = set()
    parsed = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        code, comments = split_comments(text)
        code_lines = code.split('\n')
        parsed.append((path, text.split('\n'), code_lines, comments))
        known.update(IDENT.findall(code))
    for path, lines, code_lines, comments in parsed:
        # a comment of its own lines documents what follows it; one after code, that code's line
        ends = set()
        trailing = set()
        for start, end, body in comments:
            if code_lines[start - 1].strip():
                trailing.add(start)
            else:
                ends.add(end)
        for no, kind, name in declarations(code_lines):
            if no in trailing:
                continue
            # a macro defined in each branch of an #if: the comment above the #if covers them all
            above = no - 1
            while kind == 'macro' and above > 0 and re.match(
                    r'\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b|\s*#\s*define\s+%s\b' % re.escape(name),
                    code_lines[above - 1]):
                above -= 1
            if above in ends:
                continue
            faults.append('%s:%d: %s %s has no comment' % (path, no, kind, name))
        for start, _, body in comments:
            for m in IDENT.finditer(body):
                if m.group(1) not in known:
                    line = start + body[:m.start()].count('\n')
                    faults.append('%s:%d: a comment names %s, which no public header declares'
                                  % (path, line, m.group(1)))
    for f in faults:
        print(f)
    if faults:
        print('%d undocumented or dangling names (docs/conventions.md, section 7)' % len(faults))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
