#!/usr/bin/python3
"""Regenerates data/launch/megatron_flags.yaml from Megatron-LM's megatron/training/arguments.py.

usage: megatron_flags.py MEGATRON_GIT_DIR TAG [TAG ...] > data/launch/megatron_flags.yaml

Reads every parser.add_argument call at each tag (without running Megatron) and records per option string how
many values it takes and, where they are literal, its choices: what an argparse parser needs to accept or
reject a command line the way pretrain_gpt.py does.
"""
import ast
import subprocess
import sys


def options(source):
    found = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == 'add_argument'):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        kw = {k.arg: k.value for k in node.keywords}
        action = kw['action'].value if isinstance(kw.get('action'), ast.Constant) else None
        if action in ('store_true', 'store_false', 'store_const', 'count'):
            nargs = 0
        elif isinstance(kw.get('nargs'), ast.Constant):
            nargs = kw['nargs'].value
        else:
            nargs = 1
        choices = None
        c = kw.get('choices')
        if isinstance(c, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in c.elts):
            choices = [str(e.value) for e in c.elts]
        # argparse converts each value with type=; int and float refuse words they cannot read (other types,
        # str, bool and the source's own functions, are not checked).
        t = kw.get('type')
        value_type = t.id if isinstance(t, ast.Name) and t.id in ('int', 'float') else None
        for n in names:
            if n.startswith('--'):
                found[n] = (nargs, choices, value_type)
    return found


def entry(name, nargs, choices, value_type):
    parts = ['name: "%s"' % name, 'nargs: %s' % (nargs if isinstance(nargs, int) else "'%s'" % nargs)]
    if value_type and nargs != 0:
        parts.append('type: ' + value_type)
    if choices:
        parts.append('choices: [%s]' % ', '.join('"%s"' % c for c in choices))
    return parts


def main():
    repo, tags = sys.argv[1], sys.argv[2:]
    per_tag = {}
    for t in tags:
        text = subprocess.run(['git', '-C', repo, 'show', t + ':megatron/training/arguments.py'],
                              check=True, capture_output=True, text=True).stdout
        per_tag[t] = options(text)
    print('# Megatron-LM command-line options per Megatron-Core release, as pretrain_gpt.py parses them.')
    print('# source: NVIDIA/Megatron-LM, megatron/training/arguments.py at tags ' + ', '.join(tags) +
          ' (every parser.add_argument call;')
    print('# regenerate with tests/emit/megatron_flags.py). nargs: values the option takes (0 = a switch,')
    print("# '+'/'*' = a list); type: int or float where argparse converts each value so (every release);")
    print("# choices where the source lists them; in: the releases that have it (absent = all). Choices are those every release accepts.")
    print('megatron_versions:')
    for t in tags:
        print('  - ' + t)
    print('megatron_flags:')
    for name in sorted(set().union(*per_tag.values())):
        have = [t for t in tags if name in per_tag[t]]
        nargs, choices, value_type = per_tag[have[-1]][name]
        for t in have:  # a value is offered only where every release with the option accepts it
            other = per_tag[t][name][1]
            if choices and other:
                choices = [c for c in choices if c in other]
            if per_tag[t][name][2] != value_type:  # a type is checked only where every release has it
                value_type = None
        parts = entry(name, nargs, choices, value_type)
        if len(have) != len(tags):
            parts.append('in: [%s]' % ', '.join(have))
        print('  - {' + ', '.join(parts) + '}')


if __name__ == '__main__':
    main()
