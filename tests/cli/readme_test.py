#!/usr/bin/env python3
"""The README's transcripts ("$ isoflop ..." followed by its output in a code block) are what the binary prints
today: each command is run in a scratch folder (after the ones before it in the same block, which write the files
it reads), and every line the README shows of its output must appear in the output, in order. Lines that elide
(containing "..." or "…") are skipped, as are the few whose numbers follow the build and the CPU (VARYING); a
command the README shows running for minutes (train) is skipped too.

usage: readme_test.py ISOFLOP"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
from expectations import expect, finish  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
SKIP = ('isoflop train ',)  # minutes of CPU: its page is checked by tests/cli/train_test.cpp
# Lines whose numbers depend on the build and the CPU, not on isoflop's answer: how many of fit's multistart
# starts land in the best basin follows the objective's vector code (AVX-512 or not, a sanitized build).
VARYING = ('  starts  ',)


def transcripts(text):
    """(command, shown output lines) for each '$ isoflop' command in a fenced block, with continuation lines."""
    out = []
    for block in re.findall(r'^```[a-z]*\n(.*?)^```', text, re.M | re.S):
        lines = block.split('\n')
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.startswith('$ '):
                i += 1
                continue
            command = line[2:]
            while command.endswith('\\') and i + 1 < len(lines):
                i += 1
                command = command[:-1] + ' ' + lines[i].strip()
            shown = []
            i += 1
            while i < len(lines) and not lines[i].startswith('$ '):
                shown.append(lines[i].rstrip())
                i += 1
            out.append((command, shown))
    return out


def main():
    binary = os.path.abspath(sys.argv[1])
    text = open(os.path.join(ROOT, 'README.md')).read()
    with tempfile.TemporaryDirectory(prefix='isoflop-readme-') as tmp:
        for name in ('share',):
            os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
        for command, shown in transcripts(text):
            if any(s in command for s in SKIP) or 'my-runs.csv' in command or './laws' in command:
                continue
            script = command.replace('isoflop ', shlex.quote(binary) + ' ', 1) if command.startswith('isoflop ') \
                else command
            if not command.startswith('isoflop ') and not command.startswith('mkdir'):
                continue
            r = subprocess.run(['bash', '-c', script], cwd=tmp, capture_output=True, text=True, timeout=300)
            # Standard output and error interleave in a terminal: each shown line is looked for in either, in
            # order within it.
            streams = [[l.rstrip() for l in r.stdout.split('\n')], [l.rstrip() for l in r.stderr.split('\n')]]
            at = [0, 0]
            missing = []
            for line in shown:
                if not line or '...' in line or '…' in line or line.startswith(VARYING):
                    continue
                for k, got in enumerate(streams):
                    if line in got[at[k]:]:
                        at[k] = got.index(line, at[k]) + 1
                        break
                else:
                    missing.append(line)
            expect(not missing, '%s: %d of the README\'s lines not printed%s' %
                   (command[:90], len(missing), (': ' + missing[0][:160]) if missing else ''))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
