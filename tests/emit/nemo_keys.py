#!/usr/bin/python3
"""Regenerates data/launch/nemo_keys.yaml from NeMo's megatron_gpt_config.yaml at several releases.

usage: nemo_keys.py NEMO_GIT_DIR TAG... > data/launch/nemo_keys.yaml   (oldest first; the last is the default)

Lists every key path of examples/nlp/language_modeling/conf/megatron_gpt_config.yaml ("trainer.devices",
"model.optim.sched.min_lr"), with the releases that have it (`in`, absent = all): the paths an override file may set
without Hydra's '+' prefix. Keys the model reads with cfg.get although the file lacks them (MoE, CP) are listed
for the releases whose model code reads them.
"""
import subprocess
import sys

import yaml

CONFIG = 'examples/nlp/language_modeling/conf/megatron_gpt_config.yaml'
MODEL_CODE = ['nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py',
              'nemo/collections/nlp/models/language_modeling/megatron_base_model.py']
READ_WITH_GET = ['num_moe_experts', 'moe_router_topk', 'expert_model_parallel_size', 'context_parallel_size']
# Megatron-Core TransformerConfig fields that build_transformer_config copies from the model config by name, with the
# releases whose Megatron-Core has them: not found by grep in NeMo's code, so listed here.
TRANSFORMER_CONFIG_FIELDS = {'moe_expert_capacity_factor': ['v2.4.0'], 'moe_token_dispatcher_type': ['v2.4.0']}


def paths(node, prefix=''):
    for key, value in node.items():
        path = prefix + str(key)
        yield path
        if isinstance(value, dict):
            yield from paths(value, path + '.')


def git(repo, *args):
    return subprocess.run(['git', '-C', repo] + list(args), capture_output=True, text=True)


def entry(path, tags, all_tags):
    return '  - {path: %s}' % path if tags == all_tags else '  - {path: %s, in: [%s]}' % (path, ', '.join(tags))


def main():
    repo, tags = sys.argv[1], sys.argv[2:]
    keys, added = {}, {}
    for tag in tags:
        config = yaml.safe_load(git(repo, 'show', tag + ':' + CONFIG).stdout)
        for p in paths(config):
            if p != 'defaults':
                keys.setdefault(p, []).append(tag)
        for k in READ_WITH_GET:
            if 'model.' + k not in keys or tag not in keys['model.' + k]:
                if git(repo, 'grep', '-q', k, tag, '--', *MODEL_CODE).returncode == 0:
                    added.setdefault('model.' + k, []).append(tag)
    print('# Key paths of NeMo megatron_gpt_config.yaml per release, which an emitted override file may set.')
    print('# source: NVIDIA/NeMo %s, %s (regenerate with tests/emit/nemo_keys.py).' % (', '.join(tags), CONFIG))
    print('# in: the releases that have the key (absent = all). The last release listed is the default.')
    print('nemo_versions: [%s]' % ', '.join(tags))
    print('nemo_keys:')
    for p, t in keys.items():
        print(entry(p, t, tags))
    print('# Keys absent from that file that the model reads with cfg.get (MoE, CP), so they are set as new keys.')
    print('# source: NVIDIA/NeMo, %s at each release.' % ' and '.join(MODEL_CODE))
    print('nemo_added_keys:')
    for p, t in added.items():
        print(entry(p, t, tags))
    print('# Megatron-Core TransformerConfig fields that megatron_base_model.py\'s build_transformer_config copies from the model')
    print('# config by name ("elif field.name in cfg"), where the release\'s Megatron-Core has them (core_v0.8.0 on has both).')
    print('# source: NVIDIA/NeMo nemo/collections/nlp/models/language_modeling/megatron_base_model.py (v2.4.0);')
    print('# NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py (core_v0.8.0, core_v0.13.0).')
    for k, t in TRANSFORMER_CONFIG_FIELDS.items():
        print(entry('model.' + k, [tag for tag in tags if tag in t], tags))


if __name__ == '__main__':
    main()
