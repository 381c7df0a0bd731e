#!/usr/bin/python3
"""Regenerates data/launch/megatron_deepspeed_flags.yaml from Megatron-DeepSpeed's megatron/arguments.py.

usage: megatron_deepspeed_flags.py MEGATRON_DEEPSPEED_GIT_DIR COMMIT > data/launch/megatron_deepspeed_flags.yaml

The launch line in ds_config.json (pipeline stages run under Megatron-DeepSpeed) is parsed with these options.
Its arguments.py adds DeepSpeed's own options with deepspeed.add_config_arguments, which are not add_argument
calls of that file: they are read from DeepSpeed's deepspeed/__init__.py (_add_core_arguments) when its git
directory is given as a third argument.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from megatron_flags import entry, options  # noqa: E402


def show(repo, commit, path):
    return subprocess.run(['git', '--git-dir', repo, 'show', commit + ':' + path],
                          check=True, capture_output=True, text=True).stdout


def main():
    repo, commit = sys.argv[1], sys.argv[2]
    found = options(show(repo, commit, 'megatron/arguments.py'))
    source = 'deepspeedai/Megatron-DeepSpeed, megatron/arguments.py at commit ' + commit
    if len(sys.argv) > 4:
        ds_repo, ds_commit = sys.argv[3], sys.argv[4]
        found.update(options(show(ds_repo, ds_commit, 'deepspeed/__init__.py')))
        source += '; deepspeedai/DeepSpeed, deepspeed/__init__.py at commit ' + ds_commit
    print('# Megatron-DeepSpeed command-line options, as its pretrain_gpt.py parses them.')
    print('# source: ' + source)
    print('# (every parser.add_argument call; regenerate with tests/emit/megatron_deepspeed_flags.py).')
    print("# nargs: values the option takes (0 = a switch, '+'/'*' = a list); type: int or float where argparse converts")
    print("# each value so; choices where the source lists them.")
    print('megatron_deepspeed_flags:')
    for name in sorted(found):
        parts = entry(name, *found[name])
        print('  - {' + ', '.join(parts) + '}')


if __name__ == '__main__':
    main()
