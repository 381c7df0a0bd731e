#!/usr/bin/python3
"""emit, end to end: what `isoflop emit all` writes for the canonical plans, read the way each trainer reads it.

usage: trainers_test.py ISOFLOP_BINARY [--update]

- megatron.sh runs under bash with a stand-in torchrun that records its arguments; the arguments after
  pretrain_gpt.py go through an argparse parser built from data/launch/megatron_flags.yaml for the release the
  file names (allow_abbrev=False, as Megatron's), then the layout, batch and schedule rules are checked.
- ds_config.json: json, the batch identity with the plan's DP, no ZeRO-2/3 with PP > 1.
- nemo.yaml: PyYAML, every key path one of megatron_gpt_config.yaml's (data/launch/nemo_keys.yaml), and
  `isoflop emit --check` (yaml-cpp).
- job.sbatch: `bash -n`, its #SBATCH lines, the time limit against the plan's days.
- A second run writes the same bytes; the files match tests/emit/golden/NAME/FILE.golden (the plan's hash aside: it covers
  the plan's last digits, which follow the machine's libm); bad input exits 2 and writes nothing.
"""
import argparse
import json
import os
import re
import shutil
import shlex
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
from expectations import expect, finish, print_passes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, 'golden')
# The plans pin ZeRO-1: the layout search does not yet know that no trainer runs ZeRO-3 with pipeline stages (emit
# refuses those). The quick-start plan is the README's month on 3360 A100s for the model its default family,
# Chinchilla, shaped there before plans followed their trainer's positions (chinchilla-114b.yaml), with its stages
# pinned to 8: relative positions, which no trainer here spells, so every target runs RoPE instead and says so. As
# written (no --pp) it runs its 103 layers on Megatron's uneven stages, which NeMo's config cannot split: see
# nemo_refusal. (The README's own plan shapes rotary positions for Megatron-LM: tests/cli/plan_test.cpp.)
README_PLAN = '--gpus 3360 --gpu a100-sxm4-80gb --days 30'
# Quoted for the shell's word splitting (shlex.split below): a checkout path may hold spaces.
QUICKSTART = '--arch %s --gpus 3360 --gpu a100-sxm4-80gb --days 30' % shlex.quote(os.path.join(ROOT, 'tests/emit/chinchilla-114b.yaml'))
CASES = {
    'quickstart': '--arch {root}/tests/emit/chinchilla-114b-pp8.yaml --gpus 3360 --gpu a100-sxm4-80gb --days 30 --pp 8',
    'mt-nlg-530b': '--arch mt-nlg-530b --gpus 2240 --gpu a100-sxm4-80gb --days 30 --zero 1',
    'gpt3-175b': '--arch gpt3-175b --gpus 1024 --gpu a100-sxm4-80gb --days 34 --zero 1',
    'llama2-70b': '--arch llama2-70b --gpus 512 --gpu h100-sxm5-80gb --days 30 --zero 1',
    'mixtral-8x7b': '--arch {root}/tests/emit/mixtral-8x7b.yaml --gpus 512 --gpu h100-sxm5-80gb --days 10 --zero 1 --pp 2',
    # An MoE with biases, which Megatron-Core refuses from core_v0.13.0 (NeMo v2.4.0 pins it): run without them.
    'moe-bias-16x': '--arch {root}/tests/emit/moe-bias-16x.yaml --gpus 64 --gpu h100-sxm5-80gb --days 5',
    # ZeRO-3: Megatron-LM's FSDP2, whose validate_args asserts no gradient-accumulation fusion (on by default).
    'llama2-7b-fsdp': '--arch llama2-7b --gpus 8 --gpu h100-sxm5-80gb --days 2',
    # A V100 has no bf16 tensor math, no FlashAttention kernel and no Transformer Engine: fp16 with loss scaling,
    # eager attention and Megatron-Core's local layers in every file.
    'v100-fp16': '--arch llama2-7b --gpus 128 --gpu v100-sxm2-32gb --days 30 --zero 1',
}
# Every case is parsed as each trainer parses it; the quick-start plan (a dense model with relative positions
# substituted and pipeline stages) is also compared byte for byte, and the MoE with GQA and SwiGLU in the files
# whose shape differs from it (its megatron.sh shares the quick-start's script around other flags).
FILES = ['megatron.sh', 'ds_config.json', 'nemo.yaml', 'job.sbatch', 'manifest.json']
# Every canonical plan has a golden copy of every file, kept as NAME/FILE.golden: they are expected outputs,
# reviewed as diffs, not sources (the suffix keeps tools that read sources from taking them for code).
GOLDEN_FILES = {name: FILES for name in CASES}


def run(binary, args, **kw):
    return subprocess.run([binary] + args, capture_output=True, text=True, **kw)


def megatron_parser(version, file='megatron_flags.yaml', key='megatron_flags'):
    data = yaml.safe_load(open(os.path.join(ROOT, 'data/launch', file)))
    parser = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
    for f in data[key]:
        if version and version not in f.get('in', data['megatron_versions']):
            continue
        kw = {'dest': f['name']}
        if f['nargs'] == 0:
            kw['action'] = 'store_true'
        elif f['nargs'] != 1:
            kw['nargs'] = f['nargs']
        if 'type' in f:  # the conversion Megatron's add_argument names: a value it cannot read is refused
            kw['type'] = {'int': int, 'float': float}[f['type']]
        if 'choices' in f:  # argparse compares the converted value with the choices
            kw['choices'] = [kw.get('type', str)(c) for c in f['choices']]
        parser.add_argument(f['name'], **kw)
    return parser


def megatron_deepspeed_arguments(launch):
    """The pretrain_gpt.py arguments of a Megatron-DeepSpeed launch line as its argparse reads them (ValueError
    with argparse's message where it refuses them)."""
    words = shlex.split(launch)
    parser = megatron_parser(None, 'megatron_deepspeed_flags.yaml', 'megatron_deepspeed_flags')

    def refuse(message):
        raise ValueError(message)
    parser.error = refuse
    return vars(parser.parse_args(words[words.index('pretrain_gpt.py') + 1:]))


def check_megatron(name, out, plan, tmp):
    script = open(os.path.join(out, 'megatron.sh')).read()
    version = re.search(r'Megatron-LM (core_v[0-9.]+)', script).group(1)
    stub = os.path.join(tmp, 'bin')
    os.makedirs(stub, exist_ok=True)
    with open(os.path.join(stub, 'torchrun'), 'w') as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGV_OUT"\n')
    os.chmod(os.path.join(stub, 'torchrun'), 0o755)
    argv_file = os.path.join(tmp, 'argv')
    env = dict(os.environ, PATH=stub + ':' + os.environ['PATH'], DATA_PATH='/data/corpus', ARGV_OUT=argv_file)
    for key in ('NNODES', 'MASTER_ADDR', 'CUDA_DEVICE_MAX_CONNECTIONS'):
        env.pop(key, None)
    r = subprocess.run(['bash', os.path.join(out, 'megatron.sh')], env=env, capture_output=True, text=True)
    expect(r.returncode == 0, name + ': megatron.sh runs: ' + r.stderr)
    argv = open(argv_file).read().split('\n')[:-1]
    at = next(i for i, a in enumerate(argv) if a.endswith('pretrain_gpt.py'))
    torchrun = dict(zip(argv[:at:2], argv[1:at:2]))
    try:
        a = vars(megatron_parser(version).parse_args(argv[at + 1:]))
    except SystemExit:
        expect(False, name + ': argparse rejects the Megatron arguments at ' + version)
        return
    layout = plan['layouts'][0]
    world = int(torchrun['--nnodes']) * int(torchrun['--nproc-per-node'])
    tp, pp = int(a['--tensor-model-parallel-size']), int(a['--pipeline-model-parallel-size'])
    cp = int(a['--context-parallel-size'] or 1)
    expect(world == plan['cluster']['gpus'], name + ': torchrun starts the plan\'s GPUs')
    expect((tp, pp, cp) == (layout['tp'], layout['pp'], layout.get('cp', 1)), name + ': TP, PP, CP as planned')
    dp = world // (tp * pp * cp)
    gbs, mbs = int(a['--global-batch-size']), int(a['--micro-batch-size'])
    expect(world % (tp * pp * cp) == 0 and gbs % (mbs * dp) == 0, name + ': global batch % (micro x DP) == 0')
    expect(int(a['--num-layers']) % pp == 0 or a['--decoder-first-pipeline-num-layers'], name + ': layers % PP')
    expect(int(a['--hidden-size']) % int(a['--num-attention-heads']) == 0, name + ': hidden % heads')
    seq, samples = int(a['--seq-length']), int(a['--train-samples'])
    tokens = plan['budget']['tokens']
    expect(abs(samples * seq - tokens) <= gbs * seq, name + ': --train-samples x seq = the plan\'s tokens')
    expect(int(a['--lr-decay-samples']) == samples, name + ': the cosine ends at the planned end')
    warm = int(a['--lr-warmup-samples'])
    expect(0 < warm < samples and warm * seq <= 1e9 + gbs * seq, name + ': warm-up within MT-NLG\'s 1B tokens')
    expect(float(a['--min-lr']) <= float(a['--lr']) and a['--lr-decay-style'] == 'cosine', name + ': schedule')
    job, accelerator = plan['job'], plan['cluster']['accelerator']
    fp16 = job['precision'] == 'fp16'
    expect(fp16 == (not accelerator.get('bf16', True)), name + ': fp16 exactly where the part has no bf16')
    expect(bool(a['--fp16']) == fp16 and bool(a['--bf16']) != fp16, name + ': the planned 16-bit precision')
    # arguments.py: an fp16 run reduces its gradients in fp16 unless asked; the plan counted fp32 gradients.
    expect(not fp16 or a['--accumulate-allreduce-grads-in-fp32'] == (job['optimizer'] == 'megatron-adam'),
           name + ': fp16 gradients reduced in the precision the plan counted')
    expect(bool(a['--use-flash-attn']) == (job['attention'] == 'flash') and
           (job['attention'] == 'flash') == accelerator.get('flash_attention', True),
           name + ': FlashAttention exactly where the part has a kernel')
    expect(accelerator.get('transformer_engine', True) or a['--transformer-impl'] == 'local',
           name + ': the local layers where Transformer Engine does not run')
    fsdp = a.get('--use-torch-fsdp2', False)  # core_v0.8.0 has no FSDP2
    # FSDP2 asserts CUDA_DEVICE_MAX_CONNECTIONS is not 1; TP, CP and sequence parallelism want it 1.
    expect(r.returncode == 0 and ('CUDA_DEVICE_MAX_CONNECTIONS=1' in script) != fsdp, name + ': environment')
    expect(fsdp == (layout.get('zero_stage') == 3), name + ': FSDP2 exactly for a ZeRO-3 plan')
    expect(fsdp or not name.endswith('-fsdp'), name + ': the case plans ZeRO-3')
    if fsdp:  # validate_args, core_v0.13.0: gradient_accumulation_fusion is on unless --no-gradient-accumulation-fusion
        expect(a['--no-gradient-accumulation-fusion'] and a['--ckpt-format'] in ('torch_dist', 'torch_dcp') and
               a['--untie-embeddings-and-output-weights'] and pp == 1 and not a['--use-distributed-optimizer'],
               name + ': FSDP2 as validate_args asserts it')
    moe = plan['architecture'].get('moe') or {}
    expect(int(a['--num-experts'] or 0) == moe.get('experts', 0), name + ': experts')
    if moe.get('experts', 0) > 0:  # TransformerConfig and ModelParallelConfig of the release
        expect(version != 'core_v0.13.0' or a['--disable-bias-linear'], name + ': no biases in an MoE (core_v0.13.0)')
        expect(int(a['--moe-router-topk']) > 1 or a['--moe-router-pre-softmax'], name + ': top-1 takes pre-softmax')
        ep = int(a['--expert-model-parallel-size'] or 1)
        expect(ep == 1 or tp == 1 or a['--sequence-parallel'], name + ': EP and TP need sequence parallelism')


def check_deepspeed(name, out, plan):
    ds = json.load(open(os.path.join(out, 'ds_config.json')))
    meta, layout = ds['isoflop'], dict(plan['layouts'][0])
    relayout = {f['file']: f.get('relayout', '') for f in json.load(open(os.path.join(out, 'manifest.json')))['files']}
    # DeepSpeed has no interleaved schedule, and its file no uneven stages: a plan with VPP > 1 or uneven stages
    # runs DeepSpeed's own best layout, said so.
    interleaved = layout.get('vpp', 1) > 1
    uneven = layout.get('first_stage_layers', 0) > 0 or layout.get('last_stage_layers', 0) > 0
    expect((interleaved or uneven) == bool(relayout['ds_config.json']),
           name + ': ds_config runs another layout exactly when DeepSpeed refuses the plan\'s')
    if relayout['ds_config.json']:
        rule = "rule 'interleaving'" if interleaved else "rule 'uneven_stages'"
        expect(rule in relayout['ds_config.json'] and relayout['ds_config.json'] in meta['comment'],
               name + ': the ds_config says which rule moved its layout')
        layout = {'dp': meta['data_parallel_size'], 'pp': meta['pipeline_stages'], 'tp': meta['tensor_parallel_size']}
    expect(layout['dp'] * layout['pp'] * layout['tp'] == plan['cluster']['gpus'], name + ': DeepSpeed layout fills the GPUs')
    expect(ds['train_batch_size'] == ds['train_micro_batch_size_per_gpu'] * ds['gradient_accumulation_steps'] *
           layout['dp'], name + ': DeepSpeed batch identity')
    expect(ds['train_batch_size'] == plan['job']['global_batch'], name + ': DeepSpeed global batch')
    fp16 = plan['job']['precision'] == 'fp16'
    # DeepSpeed refuses both enabled; fp16's loss_scale 0 is its dynamic scaling.
    expect(ds.get('fp16', {}).get('enabled', False) == fp16 and ds.get('bf16', {}).get('enabled', False) != fp16 and
           (not fp16 or ds['fp16']['loss_scale'] == 0), name + ': DeepSpeed precision as planned')
    expect(layout['pp'] == 1 or ds['zero_optimization']['stage'] < 2, name + ': no ZeRO-2/3 with PP > 1')
    # ZeRO-3's step time hides its gathers and reduce-scatters behind compute, fitted to DeepSpeed's stage-3 runs
    # with its stage-3 default: the file states that overlap (it was off, which DeepSpeed would then run slower).
    expect(ds['zero_optimization']['stage'] != 3 or ds['zero_optimization']['overlap_comm'] is True,
           name + ': ZeRO-3 overlaps communication as its step time assumed')
    launch = meta.get('launch', '')
    expect('--num-layers-per-virtual-pipeline-stage' not in launch, name + ': no interleaved schedule for DeepSpeed')
    if layout['pp'] > 1:
        stage = '--zero-stage %d' % ds['zero_optimization']['stage']
        expect(launch.startswith('deepspeed ') and 'pretrain_gpt.py' in launch and stage in launch,
               name + ': the Megatron-DeepSpeed launch line when PP > 1')
        try:
            a = megatron_deepspeed_arguments(launch)
            expect(int(a['--pipeline-model-parallel-size']) == layout['pp'] and
                   int(a['--tensor-model-parallel-size']) == layout['tp'] and a['--deepspeed_config'] == 'ds_config.json',
                   name + ': Megatron-DeepSpeed parses the launch line with the plan\'s layout')
            moe = plan['architecture'].get('moe') or {}
            # An MoE layer every --expert-interval layers, 2 unless given (its arguments.py).
            expect(not moe.get('experts') or int(a['--expert-interval']) == moe.get('every', 1),
                   name + ': Megatron-DeepSpeed places the plan\'s MoE layers')
        except ValueError as e:
            expect(False, name + ': Megatron-DeepSpeed\'s argparse rejects the launch line: %s' % e)
    else:
        expect(launch == '', name + ': no launch line without pipeline stages')
    steps = ds['scheduler']['params']['total_num_steps']
    tokens, per_step = plan['budget']['tokens'], ds['train_batch_size'] * plan['job']['seq']
    expect(abs(steps * per_step - tokens) <= per_step, name + ': DeepSpeed cosine ends at the planned end')


def check_nemo(name, out, plan, binary):
    text = open(os.path.join(out, 'nemo.yaml')).read()
    config = yaml.safe_load(text)
    known = nemo_keys(re.search(r'target NeMo (v[0-9.]+) ', text).group(1))

    def paths(node, prefix=''):
        for k, v in node.items():
            yield prefix + k
            if isinstance(v, dict):
                yield from paths(v, prefix + k + '.')
    unknown = [p for p in paths(config) if p not in known and p != 'defaults']  # Hydra's defaults list
    expect(not unknown, name + ': NeMo keys not in megatron_gpt_config.yaml: ' + ', '.join(unknown))
    m, t = config['model'], config['trainer']
    expect(t['devices'] * t['num_nodes'] == plan['cluster']['gpus'], name + ': NeMo devices x nodes')
    steps, per_step = t['max_steps'], m['global_batch_size'] * m['encoder_seq_length']
    expect(abs(steps * per_step - plan['budget']['tokens']) <= per_step, name + ': NeMo max_steps')
    fp16 = plan['job']['precision'] == 'fp16'
    expect(t['precision'] == ('16-mixed' if fp16 else 'bf16-mixed'), name + ': NeMo precision as planned')
    expect(m['use_flash_attention'] == (plan['job']['attention'] == 'flash'), name + ': NeMo attention as planned')
    # An MoE runs the capacity factor the plan counted, with the dispatcher it needs, as megatron.sh states them
    # (without them NeMo's Megatron-Core routes dropless: other memory and step time).
    moe = plan['architecture'].get('moe') or {}
    if moe.get('experts'):
        expect(m.get('moe_expert_capacity_factor') == moe['capacity_factor'] and
               m.get('moe_token_dispatcher_type') == 'alltoall',
               name + ': NeMo routes with the plan\'s capacity factor: %s' % {k: v for k, v in m.items() if 'moe' in k})
    r = run(binary, ['emit', '--check', os.path.join(out, 'nemo.yaml'), '--target', 'nemo'])
    expect(r.returncode == 0, name + ': emit --check nemo.yaml (yaml-cpp): ' + r.stderr)


def nemo_keys(version):
    """The key paths of NeMo `version`'s megatron_gpt_config.yaml (and those its model reads with cfg.get)."""
    data = yaml.safe_load(open(os.path.join(ROOT, 'data/launch/nemo_keys.yaml')))
    assert version in data['nemo_versions'], version
    return {k['path'] for k in data['nemo_keys'] + data['nemo_added_keys'] if version in k.get('in', data['nemo_versions'])}


def check_slurm(name, out, plan, binary):
    path = os.path.join(out, 'job.sbatch')
    expect(subprocess.run(['bash', '-n', path]).returncode == 0, name + ': bash -n job.sbatch')
    sbatch = dict(re.findall(r'^#SBATCH --([a-z-]+)=?(.*)$', open(path).read(), re.M))
    expect(int(sbatch['nodes']) * int(sbatch['gpus-per-node']) == plan['cluster']['gpus'], name + ': nodes x GPUs')
    d, h, mi, s = map(int, re.fullmatch(r'(\d+)-(\d\d):(\d\d):(\d\d)', sbatch['time']).groups())
    limit_s = ((d * 24 + h) * 60 + mi) * 60 + s
    planned_s = max(plan['cost']['time_s'], plan['inputs']['budget'].get('time_s') or 0)
    expect(limit_s >= planned_s, name + ': the time limit covers the plan\'s days')
    expect(sbatch['job-name'] == 'isoflop-' + name and 'exclusive' in sbatch, name + ': #SBATCH lines')
    # The one task per node gets the catalog node's host cores, its share where the job uses part of a node: no more
    # than the node has (sbatch refuses that: a DGX-2 has 48 cores for 16 V100s, a DGX H100 112 for 8).
    nodes = json.loads(run(binary, ['catalog', 'nodes', '-o', 'json']).stdout)['entries']
    node = next((n for n in nodes if n['name'] == plan['cluster']['node']), None)
    if node and node.get('cpu_cores'):
        expect(int(sbatch['cpus-per-task']) == node['cpu_cores'] * int(sbatch['gpus-per-node']) // node['gpus_per_node'],
               name + ': cpus-per-task %s of %s\'s %d cores' % (sbatch['cpus-per-task'], node['name'], node['cpu_cores']))
    r = run(binary, ['emit', '--check', path, '--target', 'slurm'])
    expect(r.returncode == 0, name + ': emit --check job.sbatch: ' + r.stderr)


def slurm_trainers(binary, tmp):
    """job.sbatch for plans run by DeepSpeed and by NeMo: bash -n, the #SBATCH spellings, and the command torchrun
    is handed (stubs for scontrol, srun and torchrun) parsed as its trainer parses it."""
    stub = os.path.join(tmp, 'slurm-bin')
    os.makedirs(stub, exist_ok=True)
    for prog, body in [('scontrol', 'echo node001'), ('srun', 'while [ "${1#--}" != "$1" ]; do shift; done; exec "$@"'),
                       ('torchrun', 'printf "%s\\n" "$@" > "$ARGV_OUT"')]:
        with open(os.path.join(stub, prog), 'w') as f:
            f.write('#!/bin/bash\n' + body + '\n')
        os.chmod(os.path.join(stub, prog), 0o755)
    for trainer in ['deepspeed', 'nemo']:
        name = 'slurm-' + trainer
        r = run(binary, ['plan', '--arch', 'gpt3-175b', '--gpus', '1024', '--gpu', 'a100-sxm4-80gb', '--days', '34',
                         '--zero', '1', '--trainer', trainer, '-o', 'json'])
        expect(r.returncode == 0, name + ': plan: ' + r.stderr)
        plan_path, out = os.path.join(tmp, name + '.json'), os.path.join(tmp, name)
        open(plan_path, 'w').write(r.stdout)
        layout = json.loads(r.stdout)['layouts'][0]
        os.mkdir(out)
        r = run(binary, ['emit', 'all', '--from', plan_path, '--out', out, '--job-name', name, '-q'])
        expect(r.returncode == 0, name + ': emit all: ' + r.stderr)
        path = os.path.join(out, 'job.sbatch')
        expect(subprocess.run(['bash', '-n', path]).returncode == 0, name + ': bash -n job.sbatch')
        spelled = set(re.findall(r'^#SBATCH --([a-z-]+)', open(path).read(), re.M))
        expect(spelled == {'job-name', 'nodes', 'ntasks-per-node', 'gpus-per-node', 'cpus-per-task', 'time',
                           'exclusive', 'output'}, name + ': #SBATCH options as sbatch spells them: %s' % spelled)
        # One task per node drives all its GPUs, with every host core of the catalog's node and no more (sbatch
        # refuses a task more CPUs than a node has): a DGX A100's 128.
        directives = dict(re.findall(r'^#SBATCH --([a-z-]+)=(\S+)', open(path).read(), re.M))
        expect(directives.get('cpus-per-task') == '128' and directives.get('ntasks-per-node') == '1',
               name + ': cpus-per-task is the DGX A100 host cores: %s' % directives)
        argv_file = os.path.join(tmp, name + '.argv')
        env = dict(os.environ, PATH=stub + ':' + os.environ['PATH'], DATA_PATH='/data/corpus', ARGV_OUT=argv_file,
                   SLURM_JOB_NODELIST='node[001-128]', SLURM_JOB_NUM_NODES='128', SLURM_JOB_ID='7',
                   SLURM_SUBMIT_DIR=out)
        r = subprocess.run(['bash', path], env=env, capture_output=True, text=True)
        expect(r.returncode == 0, name + ': job.sbatch runs to torchrun: ' + r.stderr)
        argv = open(argv_file).read().split('\n')[:-1]
        at = next(i for i, a in enumerate(argv) if a.endswith('.py'))
        parser = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
        parser.error = lambda message: expect(False, name + ': the trainer refuses its arguments: ' + message)
        if trainer == 'deepspeed':
            parser = megatron_parser(None, 'megatron_deepspeed_flags.yaml', 'megatron_deepspeed_flags')
            parser.error = lambda message: expect(False, name + ': Megatron-DeepSpeed refuses: ' + message)
            a = vars(parser.parse_args(argv[at + 1:]))
            expect(argv[at].endswith('Megatron-DeepSpeed/pretrain_gpt.py') and
                   a['--deepspeed_config'] == os.path.join(out, 'ds_config.json') and
                   int(a['--pipeline-model-parallel-size']) == layout['pp'] and
                   int(a['--tensor-model-parallel-size']) == layout['tp'], name + ': Megatron-DeepSpeed arguments')
        else:  # NeMo's Hydra entry point reads the config named on its command line
            parser.add_argument('--config-path')
            parser.add_argument('--config-name')
            parser.add_argument('overrides', nargs='*')  # Hydra's key=value overrides
            a = parser.parse_args(argv[at + 1:])
            config = yaml.safe_load(open(os.path.join(a.config_path, a.config_name)))
            model = config['model']
            # The file is the primary config: its defaults list loads megatron_gpt_config.yaml first (found through
            # the search path the command adds), then its own keys over it.
            conf = os.path.join(env.get('NEMO', '/opt/NeMo'), 'examples/nlp/language_modeling/conf')
            expect(config['defaults'] == ['megatron_gpt_config', '_self_'] and
                   a.overrides == ['hydra.searchpath=[file://%s]' % conf],
                   name + ': nemo.yaml loads megatron_gpt_config.yaml: %s %s' % (config.get('defaults'), a.overrides))
            expect(argv[at].endswith('megatron_gpt_pretraining.py') and a.config_path == out and
                   model['pipeline_model_parallel_size'] == layout['pp'] and
                   model['tensor_model_parallel_size'] == layout['tp'], name + ': NeMo reads the written nemo.yaml')


def check_substitution(name, out, plan_path, binary, stderr):
    """A plan with relative positions (Chinchilla's) runs RoPE on every target: one stderr line per file, a comment
    at the top of the file and a manifest entry; --no-substitute refuses it."""
    manifest = json.load(open(os.path.join(out, 'manifest.json')))
    notes = {f['file']: f.get('substitution', '') for f in manifest['files']}
    relative = 'positional encoding \'relative\'' in stderr
    if name == 'moe-bias-16x':
        # Megatron-Core from core_v0.13.0 (Megatron-LM's default release here, and the one NeMo v2.4.0 pins) has no
        # biases in an MoE; Megatron-DeepSpeed's MoE layers keep theirs.
        for f in ['megatron.sh', 'nemo.yaml', 'job.sbatch']:
            expect(notes[f].startswith('biases: ') and 'runs without' in notes[f] and not relative,
                   name + ': manifest says ' + f + ' runs without biases')
            expect(('%s: %s' % (f, notes[f])) in stderr, name + ': stderr says ' + f + ' runs without biases')
            expect(notes[f] in open(os.path.join(out, f)).read()[:1500], name + ': ' + f + ' says so at the top')
        expect(not notes['ds_config.json'], name + ': Megatron-DeepSpeed keeps the biases')
        for target in ('megatron', 'nemo', 'slurm'):
            r = run(binary, ['emit', target, '--from', plan_path, '--no-substitute'])
            expect(r.returncode == 2 and 'Bias is not supported for MoE' in r.stderr and not r.stdout,
                   name + ': --no-substitute refuses ' + target + ': %d %s' % (r.returncode, r.stderr))
        return
    if name != 'quickstart':
        expect(not relative and not any(notes.values()), name + ': nothing substituted')
        return
    launched = ['megatron.sh', 'nemo.yaml', 'job.sbatch']  # a ds_config without pipeline stages names no positions
    if json.load(open(os.path.join(out, 'ds_config.json')))['isoflop'].get('launch'):
        launched.append('ds_config.json')
    for f in launched:
        expect("'relative'" in notes[f] and "'rotary'" in notes[f], name + ': manifest says ' + f + ' runs rotary')
        expect(('%s: %s' % (f, notes[f])) in stderr, name + ': stderr says ' + f + ' runs rotary')
        head = open(os.path.join(out, f)).read()[:1200]
        expect(notes[f] in head, name + ': ' + f + ' says so at the top')
    check_substituted_prediction(name, out, plan_path, binary)
    for target in [f.split('.')[0].replace('ds_config', 'deepspeed').replace('job', 'slurm') for f in launched]:
        r = run(binary, ['emit', target, '--from', plan_path, '--no-substitute'])
        expect(r.returncode == 2 and 'relative' in r.stderr and not r.stdout,
               name + ': --no-substitute refuses ' + target + ': %d %s' % (r.returncode, r.stderr))


def check_substituted_prediction(name, out, plan_path, binary):
    """The prediction a substituted file states is the rotary model's under its target's trainer, not the plan's:
    the step time, memory and MFU that `layout --trainer T` gives the plan's architecture with rotary positions,
    pinned to the plan's layout (another path through the time and memory models than emit's), with less memory
    than the plan's (fewer parameters), and the run's days the plan's scaled by the step times (the same tokens)."""
    plan = json.load(open(plan_path))
    arch = {k: plan['architecture'][k] for k in ['name', 'layers', 'd_model', 'heads', 'head_size', 'ffn', 'activation',
                                                 'vocab', 'seq', 'norm', 'tied_embeddings', 'bias']}
    arch['positional'] = 'rotary'
    if plan['architecture']['kv_heads']:
        arch['kv_heads'] = plan['architecture']['kv_heads']
    arch_path = os.path.join(out, '..', name + '-rotary.yaml')
    with open(arch_path, 'w') as f:
        yaml.safe_dump(arch, f)
    best = plan['layouts'][0]
    pins = ['--tp', best['tp'], '--pp', best['pp'], '--cp', best['cp'], '--dp', best['dp'], '--vpp', best['vpp'],
            '--micro-batch', best['micro_batch'], '--zero', best['zero_stage'], '--recompute', best['recompute'],
            '--sequence-parallel', 'on' if best['sequence_parallel'] else 'off']
    pattern = (r'Predicted: step ([0-9.]+) s, memory ([0-9.]+) GiB per GPU, MFU ([0-9.]+)%; run ([0-9.]+) days.*?'
               r"positional encoding 'relative' has no [a-z]+ spelling: runs 'rotary' instead \(parameters [^,]+, "
               r'step ([0-9.]+) -> ([0-9.]+) s')
    for file, trainer in (('megatron.sh', 'megatron'), ('ds_config.json', 'deepspeed')):
        r = run(binary, ['layout', '--arch', arch_path, '--gpu', plan['cluster']['accelerator']['name'], '--gpus',
                         str(plan['cluster']['gpus']), '--global-batch', str(plan['job']['global_batch']),
                         '--trainer', trainer, '-o', 'json'] + [str(p) for p in pins])
        expect(r.returncode == 0, name + ': layout of the rotary model for ' + trainer + ': ' + r.stderr)
        rotary = json.loads(r.stdout)['layouts'][0]
        stated = re.search(pattern, open(os.path.join(out, file)).read(), re.S)
        expect(stated is not None, name + ': ' + file + ' states a prediction and the substitution')
        if stated is None:
            continue
        step, memory, mfu, days, before, after = (float(g) for g in stated.groups())
        expect(abs(step - rotary['step_time_s']) < 0.0005 and abs(memory - rotary['memory_gib']) < 0.05 and
               abs(mfu - 100 * rotary['mfu']) < 0.05 and after == step,
               name + ': ' + file + ' predicts the rotary model under ' + trainer +
               ': %s against %.3f s, %.1f GiB, %.1f %%' %
               (stated.group(0)[:80], rotary['step_time_s'], rotary['memory_gib'], 100 * rotary['mfu']))
        expect(rotary['memory_gib'] < best['memory_gib'] - 0.5,
               name + ': fewer parameters, less memory: %.1f < %.1f GiB' % (rotary['memory_gib'], best['memory_gib']))
        # The run days follow the step: the plan's days times the ratio of this file's step to the plan's (the same
        # tokens).
        planned_days = plan['cost']['days']
        expect(abs(days - planned_days * after / best['step_time_s']) < 0.006,
               name + ': %s runs %.2f days, the plan\'s %.2f scaled by %.3f/%.3f s' %
               (file, days, planned_days, after, best['step_time_s']))
        if trainer == 'megatron':
            expect(abs(before - best['step_time_s']) < 0.0005,
                   name + ': megatron.sh\'s step before the substitution is the plan\'s: %.3f' % before)


def normalised(text):
    return re.sub(r'fnv1a64:[0-9a-f]{16}', 'fnv1a64:HASH', text)


def main():
    print_passes(False)
    binary, update = sys.argv[1], '--update' in sys.argv
    tmp = tempfile.mkdtemp(prefix='isoflop-emit-')
    try:
        for name, plan_args in CASES.items():
            r = run(binary, ['plan'] + shlex.split(plan_args.format(root=shlex.quote(ROOT))) + ['-o', 'json'])
            expect(r.returncode == 0, name + ': plan: ' + r.stderr)
            plan_path = os.path.join(tmp, name + '.json')
            open(plan_path, 'w').write(r.stdout)
            plan = json.loads(r.stdout)
            outs = []
            for k in range(2):
                out = os.path.join(tmp, '%s-%d' % (name, k))
                os.mkdir(out)
                r = run(binary, ['emit', 'all', '--from', plan_path, '--out', out, '--job-name', 'isoflop-' + name, '-q'])
                expect(r.returncode == 0, name + ': emit all: ' + r.stderr)
                outs.append(out)
            expect(sorted(os.listdir(outs[0])) == sorted(FILES), name + ': emit all writes four files and a manifest')
            for f in FILES:
                same = open(os.path.join(outs[0], f), 'rb').read() == open(os.path.join(outs[1], f), 'rb').read()
                expect(same, name + ': rerun writes the same ' + f)
            check_substitution(name, outs[0], plan_path, binary, r.stderr)
            check_megatron(name, outs[0], plan, tmp)
            check_deepspeed(name, outs[0], plan)
            check_nemo(name, outs[0], plan, binary)
            check_slurm(name, outs[0], plan, binary)
            golden = os.path.join(GOLDEN, name)
            for f in GOLDEN_FILES.get(name, []):
                text = normalised(open(os.path.join(outs[0], f)).read())
                if update:
                    os.makedirs(golden, exist_ok=True)
                    open(os.path.join(golden, f + '.golden'), 'w').write(text)
                else:
                    expect(os.path.exists(os.path.join(golden, f + '.golden')) and
                           open(os.path.join(golden, f + '.golden')).read() == text,
                           name + ': ' + f + ' matches its golden file')
        slurm_trainers(binary, tmp)
        moe_routing(binary, tmp)
        fp8_precision(binary, tmp)
        value_types(binary, tmp)
        value_spellings(binary, tmp)
        fp16_rules(binary, tmp)
        nemo_refusal(binary, tmp)
        yaml_plan_hash(binary, tmp)
        target_rules(binary, tmp)
        relaid_out(binary, tmp)
        one_at_a_time(binary, tmp)
        bad_input(binary, tmp)
    finally:
        shutil.rmtree(tmp)
    return finish()


def moe_routing(binary, tmp):
    """Top-1 routing: Megatron-LM takes the softmax before the choice (core_v0.13.0 raises without it), NeMo v2.4.0
    has no key for it (refused, exit 2), Megatron-DeepSpeed's gating needs nothing; each file for each release."""
    arch = yaml.safe_load(open(os.path.join(ROOT, 'tests/emit/moe-bias-16x.yaml')))
    arch['moe']['top_k'] = 1
    arch['moe']['every'] = 2
    path = os.path.join(tmp, 'moe-top1.yaml')
    yaml.safe_dump(arch, open(path, 'w'))
    r = run(binary, ['plan', '--arch', path, '--gpus', '64', '--gpu', 'h100-sxm5-80gb', '--days', '5', '--pp', '2',
                     '-o', 'json'])
    expect(r.returncode == 0, 'top-1 MoE: plan: ' + r.stderr)
    plan_path = os.path.join(tmp, 'moe-top1.json')
    open(plan_path, 'w').write(r.stdout)
    plan = json.loads(r.stdout)
    out = os.path.join(tmp, 'moe-top1')
    os.mkdir(out)
    r = run(binary, ['emit', 'megatron', '--from', plan_path, '--out', out, '-q'])
    expect(r.returncode == 0, 'top-1 MoE: emit megatron: ' + r.stderr)
    if r.returncode == 0:
        check_megatron('top-1 MoE', out, plan, tmp)
    # An MoE layer every other layer has no core_v0.8.0 spelling (--moe-layer-freq is core_v0.13.0's): refused, exit 2.
    r = run(binary, ['emit', 'megatron', '--from', plan_path, '--target-version', 'core_v0.8.0'])
    expect(r.returncode == 2 and 'MoE every 2 layers has no Megatron-LM core_v0.8.0 spelling' in r.stderr and
           not r.stdout, 'MoE every 2 layers for core_v0.8.0: refused: %d %s' % (r.returncode, r.stderr))
    # Biases stay where the release takes them: core_v0.8.0 asserts nothing of them.
    every_layer = os.path.join(tmp, 'moe-bias-16x.json')
    r = run(binary, ['plan', '--arch', os.path.join(ROOT, 'tests/emit/moe-bias-16x.yaml'), '--gpus', '64', '--gpu',
                     'h100-sxm5-80gb', '--days', '5', '--pp', '2', '-o', 'json'])  # even stages: core_v0.8.0 has no others
    open(every_layer, 'w').write(r.stdout)
    out = os.path.join(tmp, 'moe-bias-core_v0.8.0')
    os.mkdir(out)
    r = run(binary, ['emit', 'megatron', '--from', every_layer, '--out', out, '--target-version', 'core_v0.8.0', '-q'])
    expect(r.returncode == 0 and 'biases' not in r.stderr, 'MoE with biases for core_v0.8.0: ' + r.stderr)
    if r.returncode == 0:
        check_megatron('MoE with biases, core_v0.8.0', out, json.loads(open(every_layer).read()), tmp)
        expect('--disable-bias-linear' not in open(os.path.join(out, 'megatron.sh')).read(),
               'MoE with biases for core_v0.8.0: runs them')
    # A SLURM job that launches Megatron-DeepSpeed keeps the biases its ds_config keeps: one model in both files.
    r = run(binary, ['plan', '--arch', os.path.join(ROOT, 'tests/emit/moe-bias-16x.yaml'), '--flops', '1e21', '--gpus',
                     '64', '--gpu', 'h100-sxm5-80gb', '--trainer', 'deepspeed', '-o', 'json'])
    deepspeed_plan = os.path.join(tmp, 'moe-bias-deepspeed.json')
    open(deepspeed_plan, 'w').write(r.stdout)
    r = run(binary, ['emit', 'slurm', '--from', deepspeed_plan, '--no-substitute'])
    expect(r.returncode == 0 and '--disable-bias-linear' not in r.stdout and 'biases' not in r.stderr,
           'MoE with biases, SLURM job of Megatron-DeepSpeed: biases kept: %d %s' % (r.returncode, r.stderr))
    r = run(binary, ['emit', 'nemo', '--from', plan_path])
    expect(r.returncode == 2 and 'top-1 MoE routing has no NeMo v2.4.0 spelling' in r.stderr and not r.stdout,
           'top-1 MoE for NeMo v2.4.0: refused: %d %s' % (r.returncode, r.stderr))
    r = run(binary, ['emit', 'deepspeed', '--from', plan_path])
    expect(r.returncode == 0, 'top-1 MoE: emit deepspeed: %d %s' % (r.returncode, r.stderr))
    if r.returncode == 0:
        launch = shlex.split(json.loads(r.stdout)['isoflop']['launch'])
        expect(launch[launch.index('--expert-interval') + 1] == '2' and '--topk' in launch,
               'top-1 MoE: Megatron-DeepSpeed\'s launch line places an MoE layer every 2 layers')


def fp8_precision(binary, tmp):
    """An FP8 plan: Megatron-DeepSpeed's launch line spells it as its parser does (--fp8-hybrid with
    TransformerEngine); a ds_config alone has no key for it and says so, beside the FP8 prediction."""
    for pp in ('1', '2'):
        r = run(binary, ['plan', '--flops', '1e22', '--gpus', '64', '--gpu', 'h100-sxm5-80gb', '--precision', 'fp8',
                         '--trainer', 'deepspeed', '--pp', pp, '-o', 'json'])
        expect(r.returncode == 0, 'fp8, PP %s: plan: %s' % (pp, r.stderr))
        path = os.path.join(tmp, 'fp8-%s.json' % pp)
        open(path, 'w').write(r.stdout)
        r = run(binary, ['emit', 'deepspeed', '--from', path])
        expect(r.returncode == 0, 'fp8, PP %s: emit deepspeed: %s' % (pp, r.stderr))
        if r.returncode != 0:
            continue
        meta = json.loads(r.stdout)['isoflop']
        said = any(line.startswith('precision: the prediction is FP8') for line in meta['comment'])
        if pp == '1':
            expect(said and 'launch' not in meta, 'fp8, PP 1: the ds_config says the FP8 is the model code\'s')
            continue
        try:
            a = megatron_deepspeed_arguments(meta['launch'])
            expect(a['--fp8-hybrid'] and a['--transformer-impl'] == 'transformer_engine' and not said,
                   'fp8, PP 2: Megatron-DeepSpeed runs FP8 with TransformerEngine')
        except ValueError as e:
            expect(False, 'fp8, PP 2: Megatron-DeepSpeed\'s argparse rejects the launch line: %s' % e)


def yaml_plan_hash(binary, tmp):
    """A plan read from -o yaml is the plan read from -o json: the files name the same plan hash."""
    args = CASES['gpt3-175b'].split()
    headers = []
    for fmt in ('json', 'yaml'):
        path = os.path.join(tmp, 'hash-plan.' + fmt)
        open(path, 'w').write(run(binary, ['plan'] + args + ['-o', fmt]).stdout)
        r = run(binary, ['emit', 'megatron', '--from', path])
        expect(r.returncode == 0, 'emit megatron --from a %s plan: %s' % (fmt, r.stderr))
        headers.append(re.search(r'from the plan (fnv1a64:[0-9a-f]+)', r.stdout).group(1) if r.returncode == 0 else None)
    expect(headers[0] is not None and headers[0] == headers[1], 'the plan hash of a YAML plan is the JSON plan\'s: %s' % headers)


def edited_megatron(binary, tmp, script, edits, what):
    """Each edit (old, new) applied to megatron.sh: yields new, whether argparse (built for the script's release)
    accepts the edited arguments, and emit --check's result on the edited script."""
    parser = megatron_parser(re.search(r'Megatron-LM (core_v[0-9.]+)', script).group(1))

    def refuse(message):
        raise ValueError(message)
    parser.error = refuse
    for old, new in edits:
        expect(old in script, '%s: megatron.sh has %s' % (what, old))
        edited = script.replace(old, new, 1)
        path = os.path.join(tmp, 'edited.sh')
        open(path, 'w').write(edited)
        words = shlex.split(re.search(r'MEGATRON_ARGS=\((.*?)\n\)', edited, re.S).group(1))
        try:
            parser.parse_args(words)
            argparse_accepts = True
        except ValueError:
            argparse_accepts = False
        yield new, argparse_accepts, run(binary, ['emit', '--check', path, '--target', 'megatron'])


def value_types(binary, tmp):
    """emit --check reads each Megatron value as argparse's type= does: a word int() or float() refuses is refused,
    one they read passes (the same verdict as the argparse parser above, on the same edited megatron.sh)."""
    script = open(os.path.join(tmp, 'gpt3-175b-0', 'megatron.sh')).read()
    edits = [('--tensor-model-parallel-size 4', v) for v in ('--tensor-model-parallel-size eight',
                                                             '--tensor-model-parallel-size 4.0',
                                                             '--tensor-model-parallel-size +4')]
    edits += [('--micro-batch-size 1', '--micro-batch-size 1.5'), ('--lr 6e-05', '--lr abc'),
              ('--lr 6e-05', '--lr 6E-5'), ('--lr 6e-05', '--lr 0.000_06'), ('--lr 6e-05', '--lr 0x1p-14')]
    for new, argparse_accepts, r in edited_megatron(binary, tmp, script, edits, 'value types'):
        refused_for_type = r.returncode == 1 and ('not an int' in r.stderr or 'not a float' in r.stderr)
        expect(argparse_accepts != refused_for_type,
               'value types: %s: argparse %s, emit --check: %s' % (new, 'accepts' if argparse_accepts else 'refuses',
                                                                    r.stderr.strip()))


def value_spellings(binary, tmp):
    """emit --check reads an option's value as argparse finds it: attached with '=' (--lr=6e-05), or the next word
    unless argparse takes that word for an option (-6e-05 is one to it, -0.00006 a negative number), and a flag
    that takes no value refuses an attached one (--bf16=1). Its verdict is argparse's on the same edited script."""
    script = open(os.path.join(tmp, 'gpt3-175b-0', 'megatron.sh')).read()
    min_lr = re.search(r'--min-lr \S+', script).group(0)  # a negative floor breaks no rule, only the spelling
    edits = [('--lr 6e-05', '--lr=6e-05'), (min_lr, '--min-lr -6e-06'), (min_lr, '--min-lr -0.000006'),
             (min_lr, '--min-lr=-6e-06'), (min_lr, '--min-lr -6'), ('--bf16', '--bf16=1'),
             ('--tensor-model-parallel-size 4', '--tensor-model-parallel-size=4')]
    verdicts = set()
    for new, argparse_accepts, r in edited_megatron(binary, tmp, script, edits, 'value spellings'):
        verdicts.add(argparse_accepts)
        expect(argparse_accepts == (r.returncode == 0),
               'value spellings: %s: argparse %s, emit --check: %s' % (new, 'accepts' if argparse_accepts else 'refuses',
                                                                       r.stderr.strip() or 'accepted'))
    expect(verdicts == {True, False}, 'value spellings: the edits include some argparse accepts and some it refuses')


def fp16_rules(binary, tmp):
    """validate_args refuses expert parallelism in fp16 (both releases), as emit --check does; argparse itself
    accepts the flags, so the rule is emit's own."""
    script = open(os.path.join(tmp, 'mixtral-8x7b-0', 'megatron.sh')).read()
    for new, argparse_accepts, r in edited_megatron(binary, tmp, script, [('--bf16', '--fp16')], 'fp16 with EP 4'):
        expect(argparse_accepts and r.returncode == 1 and
               'expert-model-parallel-size above 1 does not run in fp16' in r.stderr,
               'fp16 with EP 4: emit --check refuses it: %d %s' % (r.returncode, r.stderr))
    # The V100's local layers (no Transformer Engine) normalise with RMSNorm from core_v0.13.0 only: the Llama plan
    # is written for it and refused for core_v0.8.0, whose FusedLayerNorm asserts LayerNorm.
    v100 = os.path.join(tmp, 'v100-fp16.json')
    r = run(binary, ['emit', 'megatron', '--from', v100, '--target-version', 'core_v0.8.0'])
    expect(r.returncode == 2 and 'transformer-impl local runs LayerNorm only' in r.stderr and not r.stdout,
           'V100 RMSNorm for core_v0.8.0: refused: %d %s' % (r.returncode, r.stderr))
    # A V100 plan written before the catalog said what the part lacks (no bf16, flash_attention or
    # transformer_engine keys), as its job then was (bf16, flash): held to the catalog's V100, so refused, naming
    # the document's key, by every command that reads it; as planned today it is written.
    doc = json.load(open(os.path.join(tmp, 'v100-fp16.json')))
    for key in ('bf16', 'flash_attention', 'transformer_engine'):
        del doc['cluster']['accelerator'][key]
    doc['job']['precision'], doc['job']['attention'] = 'bf16', 'flash'
    old = os.path.join(tmp, 'v100-old.json')
    json.dump(doc, open(old, 'w'))
    for args in (['emit', 'megatron', '--from', old], ['emit', 'all', '--from', old, '--out', os.path.join(tmp, 'v100-old')],
                 ['layout', '--from', old]):
        r = run(binary, args)
        expect(r.returncode == 2 and 'job.attention: \'flash\': FlashAttention has no kernel for v100-sxm2-32gb' in r.stderr
               and not r.stdout, 'an old V100 plan: %s refuses it: %d %s' % (args[0], r.returncode, r.stderr))


def nemo_refusal(binary, tmp):
    """The README's plan as written has 103 layers on Megatron's lighter first and last stages. NeMo's config splits
    layers evenly, and no even split of 103 layers fits: emit all refuses (exit 2) with NeMo's reason and writes
    nothing, naming the targets it could write, while emit megatron writes its file."""
    r = run(binary, ['plan'] + shlex.split(QUICKSTART) + ['-o', 'json'])
    expect(r.returncode == 0, 'nemo refusal: plan: ' + r.stderr)
    plan_path = os.path.join(tmp, 'uneven.json')
    open(plan_path, 'w').write(r.stdout)
    layout = json.loads(r.stdout)['layouts'][0]
    expect(layout['first_stage_layers'] > 0, 'nemo refusal: the plan has uneven stages: %s' % layout)
    out = os.path.join(tmp, 'uneven-all')
    r = run(binary, ['emit', 'all', '--from', plan_path, '--out', out])
    expect(r.returncode == 2 and "cannot be written for nemo: rule 'uneven_stages': the nemo.yaml isoflop writes for nemo" in r.stderr and
           "uneven_stages" in r.stderr and not os.path.exists(out), 'nemo refusal: emit all: %d %s' % (r.returncode, r.stderr))
    # ... and names the targets that can be written on their own, each of which then writes its file.
    offered = re.search(r'emit all writes all four files or none: (.*) can be written alone \(emit ([a-z|]+) with the '
                        r'same plan\)', r.stderr)
    expect(offered is not None and offered.group(2).split('|') == ['megatron', 'deepspeed', 'slurm'] and
           offered.group(1) == 'megatron, deepspeed, slurm', 'nemo refusal: emit all offers the others: ' + r.stderr)
    for target in (offered.group(2).split('|') if offered else []):
        written = run(binary, ['emit', target, '--from', plan_path, '--out', os.path.join(tmp, 'uneven-alone-' + target), '-q'])
        expect(written.returncode == 0, 'nemo refusal: the offered target %s writes: %s' % (target, written.stderr))
    r = run(binary, ['emit', 'megatron', '--from', plan_path, '--out', os.path.join(tmp, 'uneven-megatron'), '-q'])
    expect(r.returncode == 0, 'nemo refusal: emit megatron: ' + r.stderr)
    # Re-ranked for DeepSpeed, the plan's 103 layers run on no uneven stages (Megatron-DeepSpeed's launch line
    # has no option for them): every layout listed splits them evenly.
    r = run(binary, ['layout', '--from', plan_path, '--trainer', 'deepspeed', '--top', '20', '-o', 'json'])
    listed = json.loads(r.stdout)['layouts'] if r.returncode in (0, 1) else []
    expect(listed and all(l['first_stage_layers'] == 0 and l['last_stage_layers'] == 0 and
                          103 % (l['pp'] * l.get('vpp', 1)) == 0 for l in listed),
           'layout --trainer deepspeed lists even splits of 103 layers only: %d %s' %
           (r.returncode, [(l['pp'], l['first_stage_layers']) for l in listed] or r.stderr))
    # Planned for the trainer whose file is written (the README's plan, shaped from the family), the plan ranks only
    # what that file can say (even stages; for NeMo at most ZeRO-1), shaping a depth its stages divide, and emit
    # writes the plan's layout as it is.
    for trainer, target_file in (('nemo', 'nemo.yaml'), ('deepspeed', 'ds_config.json')):
        r = run(binary, ['plan'] + README_PLAN.split() + ['--trainer', trainer, '-o', 'json'])
        expect(r.returncode == 0, 'plan --trainer %s: %s' % (trainer, r.stderr))
        doc = json.loads(r.stdout)
        layout, layers = doc['layouts'][0], doc['architecture']['layers']
        expect(layers % (layout['pp'] * layout.get('vpp', 1)) == 0 and layout['first_stage_layers'] == 0 and
               layout['last_stage_layers'] == 0, 'plan --trainer %s: an even split of %d layers: %s' % (trainer, layers, layout))
        expect(trainer != 'nemo' or layout['zero_stage'] <= 1, 'plan --trainer nemo: ZeRO at most 1: %s' % layout)
        path = os.path.join(tmp, 'even-%s.json' % trainer)
        open(path, 'w').write(r.stdout)
        out = os.path.join(tmp, 'even-' + trainer)
        r = run(binary, ['emit', trainer, '--from', path, '--out', out, '-q'])
        expect(r.returncode == 0, 'emit %s --from its own plan: %s' % (trainer, r.stderr))
        if r.returncode == 0:
            files = {f['file']: f for f in json.load(open(os.path.join(out, 'manifest.json')))['files']}
            expect(not files[target_file].get('relayout'), 'emit %s writes its plan\'s layout: %s' % (trainer, files))


def target_rules(binary, tmp):
    """Each target's trainer holds the layout to its own rules (data/trainers.yaml), in emit and in --check; NeMo
    releases are data; --check reads the target from the file's form and refuses another form (exit 2)."""
    quick = os.path.join(tmp, 'quickstart.json')
    # The ds_config an interleaved Megatron plan once gave DeepSpeed: DeepSpeed has no interleaved schedule.
    fixture = os.path.join(HERE, 'interleaved_ds_config.json')
    for target in (['--target', 'deepspeed'], []):
        r = run(binary, ['emit', '--check', fixture] + target)
        expect(r.returncode == 1 and "rule 'interleaving': deepspeed has no interleaved schedule" in r.stderr,
               '--check %s refuses an interleaved ds_config: %d %s' % (target, r.returncode, r.stderr))
    # A Megatron plan edited to ZeRO-2 with pipeline stages: refused under DeepSpeed's rule.
    doc = json.load(open(quick))
    assert doc['layouts'][0]['pp'] > 1
    for layout in doc['layouts']:
        layout['zero_stage'] = 2
    json.dump(doc, open(os.path.join(tmp, 'megatron-zero2.json'), 'w'))
    r = run(binary, ['emit', 'deepspeed', '--from', os.path.join(tmp, 'megatron-zero2.json')])
    expect(r.returncode == 2 and not r.stdout and "rule 'zero_with_pipeline': deepspeed runs ZeRO stage at most 1" in
           r.stderr and 're-plan for trainer deepspeed' in r.stderr and "'zero_stages'" not in r.stderr,
           'a Megatron ZeRO-2 plan with PP for DeepSpeed: DeepSpeed\'s rule: %d %s' % (r.returncode, r.stderr))
    # NeMo releases: the header names the one written, its keys are that release's; an MoE needs v1.23.0 or later.
    moe = os.path.join(tmp, 'mixtral-8x7b.json')
    for version in ['v1.23.0', 'v2.4.0']:
        r = run(binary, ['emit', 'nemo', '--from', moe, '--target-version', version])
        unknown = set(yaml_paths(yaml.safe_load(r.stdout))) - nemo_keys(version) - {'defaults'} if r.returncode == 0 else {'?'}
        expect(('target NeMo %s (' % version) in r.stdout and not unknown,
               'emit nemo --target-version %s: %d %s %s' % (version, r.returncode, r.stderr, unknown))
    r = run(binary, ['emit', 'nemo', '--from', moe, '--target-version', 'v1.22.0'])
    expect(r.returncode == 2 and 'model.num_moe_experts is not a key of NeMo v1.22.0' in r.stderr and 'v1.23.0' in
           r.stderr and not r.stdout, 'an MoE for NeMo v1.22.0: %d %s' % (r.returncode, r.stderr))
    r = run(binary, ['emit', 'nemo', '--from', moe, '--target-version', 'v3'])
    expect(r.returncode == 2 and 'v1.22.0|v1.23.0|v2.4.0' in r.stderr, 'an unknown NeMo release: ' + r.stderr)
    # --check: another form is exit 2 with one line naming the file, the form expected and the form found.
    sh = os.path.join(tmp, 'quickstart-0', 'megatron.sh')
    r = run(binary, ['emit', '--check', sh, '--target', 'deepspeed'])
    lines = r.stderr.strip().split('\n')
    expect(r.returncode == 2 and len(lines) == 1 and 'megatron.sh' in lines[0] and 'ds_config JSON object' in lines[0]
           and 'found a shell script' in lines[0], '--check of a shell script as deepspeed: %d %s' % (r.returncode, r.stderr))
    r = run(binary, ['emit', '--check', sh])
    expect(r.returncode == 0 and 'checked as megatron' in r.stderr, '--check reads the target from the form: ' + r.stderr)
    open(os.path.join(tmp, 'words.txt'), 'w').write('just words\n')
    r = run(binary, ['emit', '--check', os.path.join(tmp, 'words.txt')])
    expect(r.returncode == 2 and '--target' in r.stderr and 'megatron|deepspeed|nemo|slurm' in r.stderr,
           '--check of a file of no known form names --target: ' + r.stderr)


def yaml_paths(node, prefix=''):
    for k, v in node.items():
        yield prefix + k
        if isinstance(v, dict):
            yield from yaml_paths(v, prefix + k + '.')


def bad_input(binary, tmp):
    plan_path = os.path.join(tmp, 'quickstart.json')
    out = os.path.join(tmp, 'bad')
    os.mkdir(out)

    def refused(args, fragment, what):
        r = run(binary, ['emit'] + args)
        expect(r.returncode == 2 and fragment in r.stderr, what + ': exit 2 with the reason, got %d %s' %
               (r.returncode, r.stderr))

    open(os.path.join(out, 'nemo.yaml'), 'w').write('mine\n')
    refused(['all', '--from', plan_path, '--out', out], 'exists; use --force', 'an existing output')
    expect(sorted(os.listdir(out)) == ['nemo.yaml'] and open(os.path.join(out, 'nemo.yaml')).read() == 'mine\n',
           'an existing output: nothing written')
    for hostile in ['a b', 'x$(id)', "it's", 'a\nb', 'a"b', '--x']:
        refused(['slurm', '--from', plan_path, '--out', out, '--job-name', hostile], 'job-name', 'a hostile job name')
    expect(os.listdir(out) == ['nemo.yaml'], 'a hostile job name: nothing written')
    doc = json.load(open(plan_path))
    doc['schema'] = 'isoflop/plan/v1'
    json.dump(doc, open(os.path.join(tmp, 'v1.json'), 'w'))
    refused(['megatron', '--from', os.path.join(tmp, 'v1.json')], 'v1', 'a plan document of another version')
    r = run(binary, ['optimal', '--flops', '1e21', '-o', 'json'])
    open(os.path.join(tmp, 'optimal.json'), 'w').write(r.stdout)
    refused(['megatron', '--from', os.path.join(tmp, 'optimal.json')], 'optimal', 'a document of another kind')
    refused(['all', '--from', plan_path], '--out', 'all without --out')
    r = run(binary, ['plan', '--arch', 'gpt3-175b', '--gpu', 'a100-sxm4-80gb', '--gpus', '1024', '--days', '34', '--pp',
                     '16', '--zero', '1', '--trainer', 'deepspeed', '-o', 'json'])
    expect(r.returncode == 0, 'a ZeRO-1 plan with PP 16: ' + r.stderr)
    # No trainer runs ZeRO-2 with pipeline stages, so the planner never writes one: edit the document as a user might.
    zero2 = json.loads(r.stdout)
    for layout in zero2['layouts']:
        layout['zero_stage'] = 2
    json.dump(zero2, open(os.path.join(tmp, 'zero2.json'), 'w'))
    refused(['deepspeed', '--from', os.path.join(tmp, 'zero2.json'), '--out', out],
            "rule 'zero_with_pipeline': deepspeed runs ZeRO stage at most 1 with pipeline parallelism",
            'ZeRO-2 with PP for DeepSpeed: the layout search\'s rule (data/trainers.yaml)')
    expect(os.listdir(out) == ['nemo.yaml'], 'ZeRO-2 with PP: nothing written')
    # A plan that plan refuses (MFU under the floor, exit 1) is not launched either: exit 1, its reason, no file.
    refused_plan = json.load(open(os.path.join(ROOT, 'tests/golden/plan-refused.json')))
    json.dump(refused_plan, open(os.path.join(tmp, 'refused.json'), 'w'))
    empty = os.path.join(tmp, 'refused-out')
    os.mkdir(empty)
    r = run(binary, ['emit', 'all', '--from', os.path.join(tmp, 'refused.json'), '--out', empty])
    expect(r.returncode == 1 and 'the plan is refused, so no launch file is written: MFU 25.2 % is under the floor'
           in r.stderr and '--gpus 2048' in r.stderr, 'a refused plan: exit 1 with its reason: %d %s' %
           (r.returncode, r.stderr))
    expect(os.listdir(empty) == [], 'a refused plan: nothing written')


def relaid_out(binary, tmp):
    """emit --from PLAN with layout options runs what `layout --from PLAN` with the same options ranks first."""
    plan_path = os.path.join(tmp, 'quickstart.json')
    plan = json.load(open(plan_path))
    r = run(binary, ['layout', '--from', plan_path, '--tp', '2', '-o', 'json'])
    expect(r.returncode == 0, 'layout --from the quick-start plan --tp 2: ' + r.stderr)
    best = json.loads(r.stdout)['layouts'][0]
    planned = plan['layouts'][0]
    expect(best['tp'] == 2 and planned['tp'] != 2, 'the pin changes the layout: %s' % best)
    out = os.path.join(tmp, 'relaid')
    os.mkdir(out)
    r = run(binary, ['emit', 'all', '--from', plan_path, '--tp', '2', '--out', out, '--job-name', 'isoflop-relaid'])
    expect(r.returncode == 0, 'emit all --from PLAN --tp 2: ' + r.stderr)
    if r.returncode != 0:
        return
    relaid = dict(plan, layouts=[best])
    check_megatron('relaid', out, relaid, tmp)
    check_slurm('relaid', out, relaid, binary)
    ds = json.load(open(os.path.join(out, 'ds_config.json')))
    stated = (ds['isoflop']['tensor_parallel_size'], ds['isoflop']['pipeline_stages'], ds['isoflop']['data_parallel_size'])
    expect(stated == (best['tp'], best['pp'], best['dp']) and
           ds['train_batch_size'] == ds['train_micro_batch_size_per_gpu'] * ds['gradient_accumulation_steps'] * best['dp'],
           'relaid: ds_config states the ranked layout and its batch identity: %s' % (stated,))
    manifest = json.load(open(os.path.join(out, 'manifest.json')))
    for f in manifest['files']:
        expect("instead of the plan's" in f.get('relayout', '') and 'TP 2, PP %d' % best['pp'] in f['relayout'],
               'relaid: the manifest says %s runs the re-ranked layout: %s' % (f['file'], f.get('relayout')))
    header = open(os.path.join(out, 'megatron.sh')).read()
    step, days = (float(x) for x in re.search(r'Predicted: step ([0-9.]+) s, .* run ([0-9.]+) days', header).groups())
    # The file runs RoPE for the plan's relative positions (a fraction of a percent of the step): within 1 %.
    expect(abs(step / best['step_time_s'] - 1) < 0.01, 'relaid: the header\'s step is the ranked layout\'s: %g vs %g' %
           (step, best['step_time_s']))
    scaled = plan['cost']['days'] * best['step_time_s'] / planned['step_time_s']
    expect(abs(days / scaled - 1) < 0.01, 'relaid: the run takes the plan\'s days at the new step: %g vs %g' %
           (days, scaled))
    # Options that say what the plan already says conflict; a layout under the plan's MFU floor is not launched.
    r = run(binary, ['emit', 'megatron', '--from', plan_path, '--arch', 'llama2-70b'])
    expect(r.returncode == 2 and '--from and --arch conflict' in r.stderr, 'relaid: --arch with --from: ' + r.stderr)
    floor_path = os.path.join(tmp, 'floor.json')
    r = run(binary, ['plan'] + shlex.split(QUICKSTART) + ['--min-mfu', '0.45', '-o', 'json'])
    expect(r.returncode == 0, 'relaid: a plan with a floor of 45 %: ' + r.stderr)
    open(floor_path, 'w').write(r.stdout)
    r = run(binary, ['emit', 'megatron', '--from', floor_path, '--tp', '8', '--pp', '35', '--recompute', 'full'])
    expect(r.returncode == 1 and "(TP 8, PP 35," in r.stderr and "under the plan's floor of 45 %" in r.stderr and not r.stdout,
           'relaid: a layout under the plan\'s floor is refused: %d %s' % (r.returncode, r.stderr))
    # The floor holds after the target's own re-ranking too: TP 2 passes it for Megatron-LM (PP 35, uneven
    # stages), and DeepSpeed's file, which has no uneven stages, would run its ZeRO-3 layout under it.
    r = run(binary, ['emit', 'deepspeed', '--from', floor_path, '--tp', '2'])
    expect(r.returncode == 1 and "under the plan's floor of 45 %" in r.stderr and 'ZeRO-3' in r.stderr and
           not r.stdout, 'relaid: a target re-ranked under the floor is refused: %d %s' % (r.returncode, r.stderr))
    # And without any layout option: DeepSpeed's own re-ranking of a plan whose floor is just under its MFU (the
    # 103-layer model on 512 A100s: 52.5 % on Megatron-LM's uneven stages, 51.5 % for DeepSpeed's ZeRO-3 on PP 1).
    tight = os.path.join(tmp, 'tight.json')
    open(tight, 'w').write(run(binary, ['plan'] + shlex.split(QUICKSTART.replace('--gpus 3360', '--gpus 512')) +
                               ['--min-mfu', '0.52', '-o', 'json']).stdout)
    r = run(binary, ['emit', 'deepspeed', '--from', tight])
    expect(r.returncode == 1 and "under the plan's floor of 52 %" in r.stderr and not r.stdout,
           'a target re-ranked under the plan\'s floor is refused: %d %s' % (r.returncode, r.stderr))
    expect(run(binary, ['emit', 'megatron', '--from', tight]).returncode == 0, 'the plan\'s own trainer writes it')

def one_at_a_time(binary, tmp):
    """Targets written one by one into one folder (what `emit all` offers when one cannot be written): the manifest
    lists each file with its hash; another plan's file is refused there and the manifest stays as it was."""
    plan_path = os.path.join(tmp, 'quickstart.json')
    out = os.path.join(tmp, 'one-by-one')
    for target in ('megatron', 'deepspeed', 'slurm'):
        r = run(binary, ['emit', target, '--from', plan_path, '--out', out, '--job-name', 'isoflop-quickstart', '-q'])
        expect(r.returncode == 0, 'one at a time: emit %s into the same folder: %s' % (target, r.stderr))
    manifest = json.load(open(os.path.join(out, 'manifest.json')))
    listed = [f['file'] for f in manifest['files']]
    expect(sorted(listed) == ['ds_config.json', 'job.sbatch', 'megatron.sh'],
           'one at a time: the manifest lists the three files: %s' % listed)
    # Each listed file is the one `emit all` writes for the same plan, byte for byte.
    whole = os.path.join(tmp, 'quickstart-0')
    for name in listed:
        expect(open(os.path.join(out, name), 'rb').read() == open(os.path.join(whole, name), 'rb').read(),
               'one at a time: %s is the file emit all writes' % name)
    entries = {f['file']: f['hash'] for f in manifest['files']}
    whole_entries = {f['file']: f['hash'] for f in json.load(open(os.path.join(whole, 'manifest.json')))['files']}
    expect(all(entries[n] == whole_entries[n] for n in listed), 'one at a time: the hashes are emit all\'s')
    # The same plan with other layout options is another layout: not listed beside these.
    mixed = os.path.join(tmp, 'mixed')
    r = run(binary, ['emit', 'megatron', '--from', plan_path, '--tp', '2', '--out', mixed, '-q'])
    expect(r.returncode == 0 and json.load(open(os.path.join(mixed, 'manifest.json')))['layout_options'] == '--tp 2',
           'one at a time: the manifest records the layout options: ' + r.stderr)
    r = run(binary, ['emit', 'slurm', '--from', plan_path, '--out', mixed])
    expect(r.returncode == 2 and 'written with other layout options (--tp 2)' in r.stderr and
           'job.sbatch' not in os.listdir(mixed), 'one at a time: another layout is refused there: ' + r.stderr)
    before = open(os.path.join(out, 'manifest.json')).read()
    other = os.path.join(tmp, 'gpt3-175b.json')
    r = run(binary, ['emit', 'nemo', '--from', other, '--out', out])
    expect(r.returncode == 2 and 'manifest.json exists' in r.stderr and
           open(os.path.join(out, 'manifest.json')).read() == before and 'nemo.yaml' not in os.listdir(out),
           'one at a time: another plan\'s file is refused, nothing written: %d %s' % (r.returncode, r.stderr))
    # With --force the other plan's file would replace this plan's manifest, leaving the three files it lists
    # beside the new one unlisted: refused, naming them, and the folder is as it was.
    files_before = {n: open(os.path.join(out, n), 'rb').read() for n in os.listdir(out)}
    r = run(binary, ['emit', 'nemo', '--from', other, '--out', out, '--force'])
    expect(r.returncode == 2 and 'holds megatron.sh, ds_config.json, job.sbatch of an earlier emit of another plan' in
           r.stderr and {n: open(os.path.join(out, n), 'rb').read() for n in os.listdir(out)} == files_before,
           'one at a time: --force does not mix two plans in one folder: %d %s' % (r.returncode, r.stderr))
    # Every file rewritten (emit all, --force): nothing is left behind, so the folder is the new plan's.
    r = run(binary, ['emit', 'all', '--from', other, '--out', out, '--force', '-q'])
    manifest = json.load(open(os.path.join(out, 'manifest.json')))
    expect(r.returncode == 0 and manifest['plan'] != json.loads(files_before['manifest.json'])['plan'] and
           sorted(f['file'] for f in manifest['files']) == sorted(n for n in os.listdir(out) if n != 'manifest.json'),
           'one at a time: emit all --force replaces every file of the other plan: %s' % r.stderr)


if __name__ == '__main__':
    sys.exit(main())
