#!/usr/bin/python3
"""Checks the user documentation mechanically: README.md stays a front door
(at most 400 lines), and every link in README.md, docs/*.md and perf/README.md
resolves inside the repository: the file or folder exists, a #anchor names a
heading of the target (GitHub's rule for heading ids), nothing points into
../shared (which a user who clones dlk does not have) or outside the checkout.

Usage: links_test.py <repository root>. Prints one line per fault; exit 1 on any.
"""
import os
import re
import sys
import urllib.parse

README_MAX_LINES = 400

INLINE_LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
REFERENCE_DEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
FENCE = re.compile(r'^\s{0,3}(```|~~~)')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
HTML_ANCHOR = re.compile(r'<a\s+(?:name|id)="([^"]+)"')


def prose_lines(text):
    """(line number, line) outside fenced code blocks, inline code spans blanked."""
    fenced = False
    for number, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r'(`+)(?:(?!\1).)+?\1', lambda m: ' ' * len(m.group(0)), line)


def github_slug(title):
    """The id GitHub gives a heading: markup and punctuation dropped, lower case,
    spaces to hyphens."""
    title = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', title)  # a link keeps its text
    title = title.replace('`', '').lower()
    title = re.sub(r'[^\w\- ]', '', title)
    return title.replace(' ', '-')


def anchors_of(path, cache={}):
    if path not in cache:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        seen = {}
        anchors = set()
        fenced = False
        for line in text.split('\n'):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            anchors.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f'{slug}-{n}')
        cache[path] = anchors
    return cache[path]


def check_file(root, path, faults):
    rel = os.path.relpath(path, root)
    with open(path, encoding='utf-8') as f:
        text = f.read()
    for number, line in enumerate(text.split('\n'), 1):
        if '../shared' in line:
            faults.append(f'{rel}:{number}: refers to ../shared, which a clone of dlk does not have')
    for number, line in prose_lines(text):
        targets = INLINE_LINK.findall(line)
        m = REFERENCE_DEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            check_link(root, path, rel, number, target, faults)


def check_link(root, path, rel, number, target, faults):
    where = f'{rel}:{number}: link ({target})'
    if not target:
        faults.append(f'{where}: empty target')
        return
    if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):  # http:, https:, mailto:
        return
    file_part, _, anchor = target.partition('#')
    file_part = urllib.parse.unquote(file_part)
    if file_part.startswith('/'):
        faults.append(f'{where}: absolute path; links are relative to the file')
        return
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
    if os.path.commonpath([resolved, root]) != root:
        faults.append(f'{where}: points outside the repository')
        return
    if not os.path.exists(resolved):
        faults.append(f'{where}: {os.path.relpath(resolved, root)} does not exist')
        return
    if anchor:
        if not resolved.endswith('.md') or os.path.isdir(resolved):
            faults.append(f'{where}: an anchor on a file that is not markdown')
        elif urllib.parse.unquote(anchor) not in anchors_of(resolved):
            faults.append(f'{where}: no heading #{anchor} in {os.path.relpath(resolved, root)}')


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.path.realpath(sys.argv[1])
    docs = os.path.join(root, 'docs')
    files = [os.path.join(root, 'README.md'), os.path.join(root, 'perf', 'README.md')]
    files += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith('.md'))
    faults = []
    with open(files[0], encoding='utf-8') as f:
        lines = f.read().count('\n')
    if lines > README_MAX_LINES:
        faults.append(f'README.md: {lines} lines; a front door stays within {README_MAX_LINES}: '
                      'move tables and deep dives to docs/<topic>.md and link them')
    for path in files:
        check_file(root, path, faults)
    for fault in faults:
        print(fault)
    print(f'{len(files)} files checked, {len(faults)} faults')
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main())
