#!/usr/bin/python3
"""Regenerates data/launch/nemo_keys.yaml from NeMo's megatron_gpt_config.yaml.

usage: nemo_keys.py NEMO_GIT_DIR TAG > data/launch/nemo_keys.yaml

Lists every key path of examples/nlp/language_modeling/conf/megatron_gpt_config.yaml at TAG ("trainer.devices",
"model.optim.sched.min_lr"): the paths an override file may set without Hydra's '+' prefix.
"""
import subprocess
import sys

import yaml

CONFIG = 'examples/nlp/language_modeling/conf/megatron_gpt_config.yaml'


def paths(node, prefix=''):
    for key, value in node.items():
        path = prefix + str(key)
        yield path
        if isinstance(value, dict):
            yield from paths(value, path + '.')


def main():
    repo, tag = sys.argv[1], sys.argv[2]
    text = subprocess.run(['git', '-C', repo, 'show', tag + ':' + CONFIG], check=True, capture_output=True,
                          text=True).stdout
    config = yaml.safe_load(text)
    print('# Key paths of NeMo 1.x megatron_gpt_config.yaml, which an emitted override file may set.')
    print('# source: NVIDIA/NeMo %s, %s (regenerate with tests/emit/nemo_keys.py).' % (tag, CONFIG))
    print('nemo_version: ' + tag)
    print('nemo_keys:')
    for p in paths(config):
        if p != 'defaults':
            print('  - ' + p)
    print('# Keys absent from that file that the model reads with cfg.get (MoE), so they are set as new keys.')
    print('# source: NVIDIA/NeMo %s, nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py' % tag)
    print('# (build_transformer_config: num_moe_experts, moe_router_topk) and megatron_base_model.py')
    print('# (expert_model_parallel_size, context_parallel_size).')
    print('nemo_added_keys:')
    for p in ('model.num_moe_experts', 'model.moe_router_topk', 'model.expert_model_parallel_size',
              'model.context_parallel_size'):
        print('  - ' + p)


if __name__ == '__main__':
    main()
