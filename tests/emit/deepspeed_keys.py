#!/usr/bin/env python3
"""Regenerates data/launch/deepspeed_keys.yaml from DeepSpeed's source (deepspeedai/DeepSpeed).

usage: deepspeed_keys.py DEEPSPEED_GIT_DIR TAG > data/launch/deepspeed_keys.yaml
       deepspeed_keys.py DEEPSPEED_GIT_DIR TAG --json          (every field, alias and deprecation)
       deepspeed_keys.py DEEPSPEED_GIT_DIR TAG --candidates    (keys read at the top level, to re-check TOP_LEVEL)

Reads the source with `git show TAG:path` and parses it with `ast`; nothing of DeepSpeed is imported or run.

- sections: the pydantic models DeepSpeedConfig builds from the config (DeepSpeedConfigModel subclasses). Their
  model_config (deepspeed/runtime/config_utils.py) says extra="forbid" and populate_by_name=True: DeepSpeed refuses
  any key but a field's name or its alias. Every annotated class attribute counts (inherited ones too), with
  Field(alias=...); nested models give nested sections (zero_optimization.offload_param).
- top_level: the keys DeepSpeedConfig reads at the top level, which cannot be extracted mechanically (constants,
  helpers and several variable names carry them): TOP_LEVEL below, read from deepspeed/runtime/config.py and
  each config it builds at the tag, and checked against --candidates. DeepSpeed ignores any other top-level key.

Limits: aliases made at run time (alias generators, validators that rename keys) are not seen.
"""
import ast
import json
import posixpath
import subprocess
import sys

BASE_MODEL = "DeepSpeedConfigModel"
CONFIG_UTILS = "deepspeed/runtime/config_utils.py"

# ds_config path -> (file, class).  These are the roots DeepSpeedConfig builds
# from the top-level dict (see deepspeed/runtime/config.py::_initialize_params).
# ds_config path, file, class, and whether DeepSpeed builds it as Cls(**section): DeepSpeedConfigModel.__init__
# then drops the keys whose value is "auto" before pydantic validates; a nested model (zero_optimization's
# offload_param, the monitor's tensorboard) is validated as it stands.
ROOTS = [
    ("zero_optimization", "deepspeed/runtime/zero/config.py", "DeepSpeedZeroConfig", True),
    ("bf16", "deepspeed/runtime/precision_config.py", "DeepSpeedBF16Config", True),
    ("bfloat16", "deepspeed/runtime/precision_config.py", "DeepSpeedBF16Config", True),
    ("fp16", "deepspeed/runtime/precision_config.py", "DeepSpeedFP16Config", True),
    ("comms_logger", "deepspeed/comm/config.py", "CommsLoggerConfig", True),
    ("tensorboard", "deepspeed/monitor/config.py", "TensorBoardConfig", False),
    ("wandb", "deepspeed/monitor/config.py", "WandbConfig", False),
    ("csv_monitor", "deepspeed/monitor/config.py", "CSVConfig", False),
    ("comet", "deepspeed/monitor/config.py", "CometConfig", False),
    ("hybrid_engine", "deepspeed/runtime/config.py", "HybridEngineConfig", True),
    ("compile", "deepspeed/compile/config.py", "CompileConfig", True),
    ("tensor_parallel", "deepspeed/runtime/tensor_parallel/config.py", "TPTrainingConfig", True),
    ("timers.throughput", "deepspeed/utils/config.py", "DeepSpeedThroughputTimerConfig", True),
    ("weight_quantization", "deepspeed/inference/config.py", "WeightQuantConfig", True),
]
# get_bfloat16_config (deepspeed/runtime/precision_config.py) reads "bfloat16" only where "bf16" is absent.
IGNORED_WHEN = {"bfloat16": "bf16"}

# The top-level keys DeepSpeedConfig reads at v0.19.5 (deepspeed/runtime/config.py _initialize_params and the
# configs it builds: activation checkpointing, aio, autotuning, checkpoint, compression, data efficiency,
# elasticity, flops profiler, monitor, nebula, ...).
TOP_LEVEL = [
    "activation_checkpointing", "aio", "allgather_size", "amp", "autotuning", "bf16", "bfloat16", "checkpoint",
    "comet", "comms_logger", "communication_data_type", "compile", "compression_training", "csv_monitor",
    "curriculum_learning", "data_efficiency", "data_parallel_size", "data_types", "dataloader_drop_last",
    "datastates_ckpt", "disable_allgather", "dump_state", "elasticity", "expert_parallel", "flops_profiler", "fp16",
    "gradient_accumulation_steps", "gradient_clipping", "gradient_predivide_factor", "graph_harvesting",
    "hybrid_engine", "log_level", "managed_gradient_accumulation", "memory_breakdown", "nebula", "optimizer",
    "pipeline", "prescale_gradients", "progressive_layer_drop", "quantize_training", "scheduler",
    "seq_parallel_communication_data_type", "sequence_parallel_size", "sparse_attention", "sparse_gradients",
    "steps_per_print", "tensor_parallel", "tensorboard", "timers", "torch_autocast", "train_batch_size",
    "train_micro_batch_size_per_gpu", "use_data_before_expert_parallelism", "vocabulary_size",
    "wall_clock_breakdown", "wandb", "weight_quantization", "zero_allow_untested_optimizer",
    "zero_force_ds_cpu_optimizer", "zero_optimization",
]


def git_show(repo, tag, path):
    return subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def git_ls(repo, tag, prefix="deepspeed"):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", tag, prefix],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if p.endswith(".py")]


class Source:
    """Lazily parsed python files of one tag, with import resolution."""

    def __init__(self, repo, tag):
        self.repo, self.tag = repo, tag
        self.files = set(git_ls(repo, tag))
        self._trees = {}

    def tree(self, path):
        if path not in self._trees:
            self._trees[path] = ast.parse(git_show(self.repo, self.tag, path), filename=path)
        return self._trees[path]

    def module_to_path(self, cur_path, module, level):
        if level:
            base = posixpath.dirname(cur_path)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            parts = [base] + (module.split(".") if module else [])
            mod = posixpath.join(*parts)
        else:
            mod = module.replace(".", "/")
        for cand in (mod + ".py", mod + "/__init__.py"):
            if cand in self.files:
                return cand
        return None

    def classes(self, path):
        return {n.name: n for n in self.tree(path).body if isinstance(n, ast.ClassDef)}

    def resolve_class(self, path, name, _seen=None):
        """Return (path, ClassDef) for `name` as visible in module `path`."""
        _seen = _seen or set()
        if (path, name) in _seen:
            return None
        _seen.add((path, name))
        cls = self.classes(path).get(name)
        if cls is not None:
            return path, cls
        for node in self.tree(path).body:
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if (a.asname or a.name) == name or a.name == "*":
                        target = self.module_to_path(path, node.module, node.level)
                        if target:
                            r = self.resolve_class(target, a.name if a.name != "*" else name, _seen)
                            if r:
                                return r
        return None


def base_names(cls):
    out = []
    for b in cls.bases:
        if isinstance(b, ast.Name):
            out.append(b.id)
        elif isinstance(b, ast.Attribute):
            out.append(b.attr)
    return out


def is_config_model(src, path, cls, _depth=0):
    if _depth > 20:
        return False
    for b in base_names(cls):
        if b == BASE_MODEL:
            return True
        r = src.resolve_class(path, b)
        if r and is_config_model(src, r[0], r[1], _depth + 1):
            return True
    return False


def model_config_of(cls):
    """Return dict of constant kwargs of `model_config = ConfigDict(...)` in cls, or None."""
    for node in cls.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
                val = node.value
                if isinstance(val, ast.Call):
                    return {k.arg: ast.literal_eval(k.value) for k in val.keywords
                            if k.arg and isinstance(k.value, ast.Constant)}
                if isinstance(val, ast.Dict):
                    return {ast.literal_eval(k): ast.literal_eval(v) for k, v in zip(val.keys, val.values)
                            if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
    return None


def field_call(value):
    if isinstance(value, ast.Call):
        f = value.func
        name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
        if name == "Field":
            return value
    return None


def const_dict(node):
    out = {}
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if isinstance(k, ast.Constant):
                out[k.value] = v.value if isinstance(v, ast.Constant) else ast.unparse(v)
    return out


def annotation_names(ann):
    names = []
    for n in ast.walk(ann):
        if isinstance(n, ast.Name):
            names.append(n.id)
        elif isinstance(n, ast.Attribute):
            names.append(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):  # forward refs
            names.append(n.value)
    return names


def own_fields(src, path, cls):
    fields = []
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        name = node.target.id
        if name.startswith("_") or "ClassVar" in annotation_names(node.annotation):
            continue
        info = {"name": name, "annotation": ast.unparse(node.annotation)}
        fc = field_call(node.value) if node.value is not None else None
        if fc is not None:
            for kw in fc.keywords:
                if kw.arg in ("alias", "validation_alias") and isinstance(kw.value, ast.Constant):
                    info.setdefault("aliases", []).append(kw.value.value)
                elif kw.arg == "deprecated" and isinstance(kw.value, ast.Constant) and kw.value.value:
                    info["deprecated"] = True
                elif kw.arg == "json_schema_extra":
                    extra = const_dict(kw.value)
                    if extra.get("deprecated"):
                        info["deprecated"] = True
                    if "new_param" in extra:
                        info["new_param"] = extra["new_param"]
                elif kw.arg == "exclude" and isinstance(kw.value, ast.Constant) and kw.value.value:
                    info["excluded_from_dump"] = True
        nested = []
        for tname in annotation_names(node.annotation):
            r = src.resolve_class(path, tname)
            if r and is_config_model(src, r[0], r[1]):
                nested.append(r)
        if nested:
            info["_nested"] = nested
        fields.append(info)
    return fields


def all_fields(src, path, cls, _depth=0):
    fields = {}
    if _depth < 20:
        for b in base_names(cls):
            if b == BASE_MODEL:
                continue
            r = src.resolve_class(path, b)
            if r and is_config_model(src, r[0], r[1]):
                for f in all_fields(src, r[0], r[1], _depth + 1):
                    fields[f["name"]] = f
    for f in own_fields(src, path, cls):
        fields[f["name"]] = f  # subclass annotation overrides base
    return list(fields.values())


def effective_model_config(src, path, cls, base_cfg, _depth=0):
    cfg = dict(base_cfg)
    chain = []
    cur = (path, cls)
    while cur and _depth < 20:
        chain.append(cur)
        nxt = None
        for b in base_names(cur[1]):
            if b != BASE_MODEL:
                r = src.resolve_class(cur[0], b)
                if r and is_config_model(src, r[0], r[1]):
                    nxt = r
                    break
        cur = nxt
        _depth += 1
    for p, c in reversed(chain):
        mc = model_config_of(c)
        if mc:
            cfg.update(mc)
    return cfg


def describe(src, key, path, clsname, base_cfg, out, _seen=None):
    _seen = _seen or set()
    r = src.resolve_class(path, clsname)
    if r is None:
        out[key] = {"error": f"class {clsname} not found in {path}"}
        return
    p, cls = r
    if (p, clsname) in _seen:
        return
    _seen = _seen | {(p, clsname)}
    cfg = effective_model_config(src, p, cls, base_cfg)
    fields = all_fields(src, p, cls)
    accepted = []
    for f in fields:
        accepted.append(f["name"])
        accepted.extend(f.get("aliases", []))
    sec = {
        "class": clsname,
        "file": p,
        "extra": cfg.get("extra", "ignore (pydantic default)"),
        "populate_by_name": cfg.get("populate_by_name", False),
        "accepted_keys": sorted(set(accepted)) if cfg.get("populate_by_name") else
        sorted(set(f.get("aliases", [f["name"]])[0] for f in fields)),
        "fields": [],
    }
    for f in fields:
        d = {k: v for k, v in f.items() if not k.startswith("_")}
        if "_nested" in f:
            d["nested_sections"] = [f"{key}.{f['name']}"]
        sec["fields"].append(d)
    out[key] = sec
    for f in fields:
        for (np_, ncls) in f.get("_nested", []):
            for name in [f["name"]] + f.get("aliases", []):  # a nested section under its name or its alias
                describe(src, f"{key}.{name}", np_, ncls.name, base_cfg, out, _seen)


def candidates(src):
    """Heuristic: string keys read via x[...], x.get(...), '...' in x, get_*_param(x, ...)
    where the receiver's source text mentions config/param_dict.  Names of
    module-level UPPER_CASE string constants are resolved (all values shown if
    a constant name is defined more than once)."""
    consts = {}
    paths = sorted(p for p in src.files if not p.startswith("deepspeed/inference/"))
    for p in paths:
        try:
            t = src.tree(p)
        except SyntaxError:
            continue
        for n in t.body:
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
                for tg in n.targets:
                    if isinstance(tg, ast.Name) and tg.id.isupper() and "\n" not in n.value.value:
                        consts.setdefault(tg.id, set()).add(n.value.value)

    def lit(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in consts:
            return "|".join(sorted(consts[node.id]))
        return None

    rows = []
    for p in paths:
        try:
            t = src.tree(p)
        except SyntaxError:
            continue
        for n in ast.walk(t):
            recv = key = None
            if isinstance(n, ast.Subscript):
                recv, key = n.value, lit(n.slice)
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr in ("get", "pop", "setdefault") and n.args):
                recv, key = n.func.value, lit(n.args[0])
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn)):
                key, recv = lit(n.left), n.comparators[0]
                if (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Attribute)
                        and recv.func.attr == "keys"):
                    recv = recv.func.value
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                  and n.func.id in ("get_scalar_param", "get_list_param", "get_dict_param") and len(n.args) >= 2):
                recv, key = n.args[0], lit(n.args[1])
            if recv is None or key is None:
                continue
            rs = ast.unparse(recv)
            if rs in ("param_dict", "self._param_dict", "config", "ds_config", "config_dict", "self.config",
                      "self.user_config", "source_ds_config"):
                rows.append((p, n.lineno, rs, key))
    return sorted(set(rows))


def base_model_config(src):
    cls = src.classes(CONFIG_UTILS).get(BASE_MODEL)
    return (model_config_of(cls) or {}) if cls else {}


def to_yaml(obj, indent=0):
    pad = "  " * indent
    lines = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            ks = json.dumps(k) if not str(k).replace("_", "").replace(".", "").isalnum() else k
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{ks}:")
                lines.extend(to_yaml(v, indent + 1))
            else:
                lines.append(f"{pad}{ks}: {json.dumps(v) if not isinstance(v, (dict, list)) else json.dumps(v)}")
    elif isinstance(obj, list):
        for v in obj:
            if isinstance(v, dict):
                sub = to_yaml(v, indent + 1)
                lines.append(f"{pad}- {sub[0].strip()}")
                lines.extend(sub[1:])
            else:
                lines.append(f"{pad}- {json.dumps(v)}")
    return lines


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    repo, tag = argv[1], argv[2]
    src = Source(repo, tag)
    if "--candidates" in argv:
        for p, ln, rs, key in candidates(src):
            print(f"{p}:{ln}\t{rs}\t{key}")
        return 0
    base_cfg = base_model_config(src)
    out = {}
    for key, path, clsname, _ in ROOTS:
        describe(src, key, path, clsname, base_cfg, out)
    result = {"tag": tag, "DeepSpeedConfigModel.model_config": base_cfg, "sections": out}
    if "--json" in argv:
        print(json.dumps(result, indent=2))
        return 0
    print("# DeepSpeed's ds_config keys at deepspeedai/DeepSpeed %s; regenerate with tests/emit/deepspeed_keys.py." % tag)
    print("# top_level: the keys DeepSpeedConfig reads at the top level (deepspeed/runtime/config.py and the configs it")
    print("# builds); it ignores any other, so a misspelt one silently leaves the setting at its default.")
    print("# sections: its pydantic models (DeepSpeedConfigModel, deepspeed/runtime/config_utils.py: extra=\"forbid\",")
    print("# populate_by_name): it refuses any other key in them.")
    print("deepspeed_keys:")
    print("  version: %s" % tag)
    print("  top_level: [%s]" % ", ".join(sorted(TOP_LEVEL)))
    print("  # Built as Cls(**section), whose __init__ drops \"auto\" values first; nested sections are validated as they stand.")
    print("  auto_dropped: [%s]" % ", ".join(key for key, _, _, direct in ROOTS if direct))
    print("  # A section read only where another is absent (get_bfloat16_config).")
    print("  ignored_when: {%s}" % ", ".join("%s: %s" % kv for kv in IGNORED_WHEN.items()))
    print("  sections:")
    for key, sec in out.items():
        if "error" in sec:
            raise SystemExit("%s: %s" % (key, sec["error"]))
        if sec.get("extra") != "forbid":
            continue
        print("    %s:  # %s, %s" % (key, sec["class"], sec["file"]))
        print("      [%s]" % ", ".join(sec["accepted_keys"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
