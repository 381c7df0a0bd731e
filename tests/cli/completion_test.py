#!/usr/bin/env python3
"""The bash completion (share/completions/isoflop.bash) offers what the binary's own help says each command and
option accepts: the completion is sourced in bash, asked as bash asks it (COMP_WORDS, COMP_CWORD), and its
answers compared with the choices read from `isoflop COMMAND --help`'s usage lines.

usage: completion_test.py ISOFLOP"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
from expectations import expect, finish  # noqa: E402

COMPLETION = os.path.join(HERE, '..', '..', 'share', 'completions', 'isoflop.bash')


def complete(binary, words):
    """What the completion offers for `words` (the last one being completed), as bash's complete -F asks it."""
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _isoflop; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(['bash', '-c', script, 'completion', COMPLETION, binary] + words, capture_output=True,
                       text=True, check=True)
    return set(line for line in r.stdout.split('\n') if line)


def usage(binary, command):
    r = subprocess.run([binary, command, '--help'], capture_output=True, text=True, check=True)
    return r.stdout.split('\n\n')[0]


def options(binary, command):
    """The option lines of the command's help."""
    r = subprocess.run([binary, command, '--help'], capture_output=True, text=True, check=True)
    return r.stdout


def choices(text, pattern):
    """The `a|b|c` list that `pattern` (a regex with one group) finds in a usage text."""
    m = re.search(pattern, text)
    return set(m.group(1).split('|')) if m else set()


def main():
    binary = os.path.abspath(sys.argv[1])
    cases = [
        (['arch', '--style', ''], usage(binary, 'arch'), r'--style ([a-z0-9|]+)'),
        (['catalog', ''], usage(binary, 'catalog'), r'catalog \[([a-z|]+)\]'),
        (['emit', ''], usage(binary, 'emit'), r'emit ([a-z|]+) '),
        (['validate', '--preset', ''], usage(binary, 'validate'), r'--preset ([a-z|]+)'),
        (['check', '-o', ''], usage(binary, 'check'), r'-o ([a-z|]+)'),
        (['emit', '--target', ''], options(binary, 'emit'), r'--target T +([a-z|]+)'),
        (['plan', '--trainer', ''], options(binary, 'plan'), r'--trainer ([a-z|]+)'),
        (['layout', '--trainer', ''], options(binary, 'layout'), r'--trainer ([a-z|]+)'),
        (['catalog', '--kind', ''], options(binary, 'catalog'), r'--kind KIND +([a-z|]+)'),
    ]
    for words, text, pattern in cases:
        want = choices(text, pattern)
        got = complete(binary, words)
        expect(len(want) > 1 and got == want,
               'isoflop %s<TAB>: the completion offers %s, the help %s' % (' '.join(words), sorted(got), sorted(want)))
    # Commands and options are read from the help itself.
    r = subprocess.run([binary, '--help'], capture_output=True, text=True, check=True)
    commands = set(re.findall(r'^  ([a-z][a-z-]*) ', r.stdout.split('Commands:')[1].split('\n\n')[0], re.M))
    got = complete(binary, [''])
    expect(commands and commands <= got, 'isoflop <TAB> offers every command: missing %s' % sorted(commands - got))
    got = complete(binary, ['arch', '--'])
    expect({'--params', '--style', '--tp'} <= got, 'isoflop arch --<TAB> offers its options: %s' % sorted(got))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
