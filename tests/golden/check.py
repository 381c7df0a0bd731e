#!/usr/bin/env python3
"""Golden outputs: one canonical invocation per command, compared with its saved JSON and checked against
the document's JSON Schema (share/schema/<kind>.schema.json, draft 2020-12).

Each tests/golden/NAME.args holds one command line (shell words; {tmp} is a fresh folder, {root} the source
tree), optionally an "exit: N" line, and optionally "ignore: PATH ..." lines naming values that are measured
rather than computed (wall-clock times, throughput, the machine's peak): "wall_s", "curve[].elapsed_s" ([]
is any index). Their keys must still be there; their values are not compared. In the output, the {tmp}
and {root} folders are written back as "{tmp}" and "{root}". NAME.json is its saved output. Keys must match
exactly and in order, strings and booleans exactly, numbers to a relative tolerance of 1e-6 (the outputs are
deterministic; the tolerance absorbs libm differences between machines), or to the tolerance a
"tolerance: X" line gives (an optimizer's answer, whose last digits follow its path through the starts, which
a sanitizer build changes). `check.py --update` rewrites the saved outputs after a deliberate change.

A full run (no NAME) also checks the schemas against the documents' history: no schema requires a key that the
readers in lib/ take as added later (`added_later(...)`, `unless_usual(...)`: older documents lack it and still
read), and every kept record (tests/validate/results/*.json, and each document inside tests/gpu/results/*.json) is
valid against its schema. It also holds the
architecture's bounds in share/schema/arch.schema.json to the readers': for every member with a minimum or a
maximum, the saved MoE architecture with that member one past the bound is invalid and `isoflop flops --from`
refuses it naming the member, and at the bound itself the reader names no complaint about it. And -o yaml of a few
cases, read with PyYAML (YAML 1.1), is the -o json document: the same keys, and floats as floats.

Usage: check.py BINARY [--update] [NAME ...]
"""
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REL_TOL = 1e-6


def ignored(path, patterns):
    general = re.sub(r"\[\d+\]", "[]", path)
    return path in patterns or general in patterns


def compare(expected, actual, path, errors, patterns=(), rel_tol=REL_TOL):
    where = path or "(document)"
    if path and ignored(path, patterns):
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            errors.append(f"{where}: expected an object, got {type(actual).__name__}")
            return
        if list(expected.keys()) != list(actual.keys()):
            errors.append(f"{where}: keys differ: expected {list(expected.keys())}, got {list(actual.keys())}")
        for k in expected:
            if k in actual:
                compare(expected[k], actual[k], f"{path}.{k}" if path else k, errors, patterns, rel_tol)
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            n = len(actual) if isinstance(actual, list) else type(actual).__name__
            errors.append(f"{where}: expected an array of {len(expected)}, got {n}")
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{path}[{i}]", errors, patterns, rel_tol)
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if expected != actual or type(expected) is not type(actual):
            errors.append(f"{where}: expected {json.dumps(expected)}, got {json.dumps(actual)}")
    elif isinstance(expected, (int, float)):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            errors.append(f"{where}: expected a number, got {json.dumps(actual)}")
        elif isinstance(expected, int) != isinstance(actual, int):
            errors.append(f"{where}: expected {json.dumps(expected)} ({type(expected).__name__}), got {json.dumps(actual)}")
        elif not math.isclose(expected, actual, rel_tol=rel_tol, abs_tol=1e-12):
            errors.append(f"{where}: expected {expected!r}, got {actual!r}")


def load_case(name):
    args, status, ignore, tolerance = None, 0, [], REL_TOL
    with open(os.path.join(HERE, name + ".args")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("exit:"):
                status = int(line.split(":", 1)[1])
            elif line.startswith("ignore:"):
                ignore += line.split(":", 1)[1].split()
            elif line.startswith("tolerance:"):
                tolerance = float(line.split(":", 1)[1])
            else:
                args = line
    return args, status, ignore, tolerance


def validator_for(kind):
    """A validator for share/schema/<kind>.schema.json; references between the schemas ("cost.schema.json#/$defs/…")
    resolve through a store of every schema by its $id."""
    import jsonschema  # python3-jsonschema (Debian)
    folder = os.path.join(ROOT, "share", "schema")
    path = os.path.join(folder, kind + ".schema.json")
    if not os.path.exists(path):
        return None, f"no schema share/schema/{kind}.schema.json"
    store = {}
    for name in os.listdir(folder):
        if name.endswith(".schema.json"):
            with open(os.path.join(folder, name)) as f:
                other = json.load(f)
            store[other["$id"]] = other
    with open(path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver), None


def top_level_arguments(text, start):
    """The arguments of the call whose "(" ends at `start`, split at its own commas (not those of nested calls or
    of string literals)."""
    arguments, depth, i, begin, quoted = [], 1, start, start, False
    while depth and i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 1:
            arguments.append(text[begin:i])
            begin = i + 1
        i += 1
    arguments.append(text[begin:i - 1])
    return arguments


def optional_keys():
    """{key: where} for every key lib/'s field tables read as optional: the fields and groups added_later(...) takes
    (the keys of its own arguments, not of the fields inside a group) and unless_usual("key", ...)."""
    keys = {}
    for folder, _, files in os.walk(os.path.join(ROOT, "lib")):
        for name in files:
            if not name.endswith((".hpp", ".cpp")):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                text = f.read()
            where = os.path.relpath(path, ROOT)
            for m in re.finditer(r"\badded_later\(", text):
                for argument in top_level_arguments(text, m.end()):
                    key = re.search(r'"([^"]+)"', argument)  # field("k", …), group_if("k", …): the key it adds
                    if key:
                        keys.setdefault(key.group(1), where)
            for key in re.findall(r'\bunless_usual\("([^"]+)"', text):
                keys.setdefault(key, where)
    for key, where in HAND_READ_ADDED_LATER.items():
        with open(os.path.join(ROOT, where)) as f:
            if f'contains("{key}")' in f.read():
                keys.setdefault(key, where)
            else:
                keys.setdefault(key, f"{where} (no longer reads it as optional: update HAND_READ_ADDED_LATER)")
    return keys


# Required keys that share a name with an optional key of another table: the interaction fit's paired
# difference was there from its first day, unlike the additive law's (fit.a_difference), and the interaction
# law always writes gamma (a parametric law of the catalog or a sweep writes it only when it is not 1).
SAME_NAME_ALWAYS_WRITTEN = {
    ("validation.schema.json", "/properties/fit/properties/interaction/oneOf[0]", "a_difference"),
    ("validation.schema.json", "/properties/fit/properties/interaction/oneOf[0]/properties/law", "gamma"),
    # The job section of a layout or plan and a sweep run's job file, not the train result's job file.
    ("layout.schema.json", "", "job"),
    ("plan.schema.json", "", "job"),
    ("sweep.schema.json", "/properties/runs/items", "job"),
}
# Added-later keys read by hand rather than through a field table (`if (j.contains("key")) read(...)`).
HAND_READ_ADDED_LATER = {
    "job_changes": "lib/doc/train_document.cpp",
    "layer_overhead_s": "lib/doc/calibration_document.cpp",
}


def schema_history_problems():
    """Schemas that require an optional key, and kept records their schema rejects."""
    problems = []
    keys = optional_keys()
    if len(keys) < 10:
        problems.append(f"found only {len(keys)} optional keys in lib/: has the field-table spelling changed?")
    folder = os.path.join(ROOT, "share", "schema")

    def walk(node, path, schema_name):
        if isinstance(node, dict):
            for key in node.get("required", []) if isinstance(node.get("required"), list) else []:
                if key in keys and (schema_name, path, key) not in SAME_NAME_ALWAYS_WRITTEN:
                    problems.append(f"{schema_name}{path or '/'}: requires {key!r}, which {keys[key]} reads as "
                                    "added later (older documents lack it)")
            for k, v in node.items():
                walk(v, f"{path}/{k}", schema_name)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}[{i}]", schema_name)

    for name in sorted(os.listdir(folder)):
        if name.endswith(".schema.json"):
            with open(os.path.join(folder, name)) as f:
                walk(json.load(f), "", name)
    records = os.path.join(ROOT, "tests", "validate", "results")
    for name in sorted(os.listdir(records)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(records, name)) as f:
            record = json.load(f)
        kind = record.get("schema", "").split("/")
        validator, problem = validator_for(kind[1]) if len(kind) == 3 else (None, "no isoflop schema key")
        if problem:
            problems.append(f"{name}: {problem}")
            continue
        for e in sorted(validator.iter_errors(record), key=lambda e: list(e.path))[:5]:
            problems.append(f"{name}: schema: {'.'.join(str(x) for x in e.path) or '(document)'}: {e.message[:200]}")
    # The GPU harness's records (tests/gpu/results) wrap the documents its commands wrote: each document inside,
    # wherever it sits, is held to its schema (the wrappers, isoflop/gpu-check/v1 and validate-gpu/v1, are the
    # harness scripts' own).
    gpu_records = os.path.join(ROOT, "tests", "gpu", "results")
    documents = 0
    for name in sorted(os.listdir(gpu_records)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(gpu_records, name)) as f:
            record = json.load(f)
        for where, document in embedded_documents(record, ""):
            kind = document["schema"].split("/")
            if len(kind) != 3 or kind[2] != "v2":
                continue
            documents += 1
            if kind[1] == "train" and "curve" not in document:  # the harness leaves each run's curve out
                document = dict(document, curve=[])
            validator, problem = validator_for(kind[1])
            if problem:
                problems.append(f"{name}:{where}: {problem}")
                continue
            for e in sorted(validator.iter_errors(document), key=lambda e: list(e.path))[:5]:
                problems.append(f"{name}:{where}: schema: {'.'.join(str(x) for x in e.path) or '(document)'}: "
                                f"{e.message[:200]}")
    if documents < 10:
        problems.append(f"found only {documents} documents in tests/gpu/results: has the harness's record changed?")
    return problems


def embedded_documents(node, path):
    """(path, document) for every object below `node` whose "schema" names an isoflop document."""
    if isinstance(node, dict):
        if path and isinstance(node.get("schema"), str) and node["schema"].startswith("isoflop/"):
            yield path, node
        for k, v in node.items():
            yield from embedded_documents(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from embedded_documents(v, f"{path}[{i}]")


# The architecture members whose values the readers bound (lib/doc/architecture_json.*): the schema must give
# each a minimum and a maximum.
BOUNDED_MEMBERS = {
    "architecture": ["layers", "d_model", "heads", "kv_heads", "head_size", "ffn", "vocab", "vocab_pad_multiple",
                     "seq"],
    "moe": ["experts", "top_k", "every", "shared_experts", "expert_ffn"],
}

# How the readers word a value outside its bounds.
BOUND_WORDS = ("must be positive", "must not be negative", "must be at most", "must be at least", "must be in [",
               "is out of range")


def bound_problems(binary):
    """The schema's bounds on an architecture against the reader's, one past and at each bound."""
    problems = []
    validator, problem = validator_for("arch")
    if problem:
        return [f"arch: {problem}"]
    with open(os.path.join(ROOT, "share", "schema", "arch.schema.json")) as f:
        defs = json.load(f)["$defs"]
    with open(os.path.join(HERE, "arch-moe.json")) as f:
        saved = json.load(f)
    checked = 0
    with tempfile.TemporaryDirectory(prefix="isoflop-bounds-") as tmp:
        for where, members in BOUNDED_MEMBERS.items():
            for member in members:
                spec = defs[where]["properties"][member]
                if "minimum" not in spec or "maximum" not in spec:
                    problems.append(f"arch.schema.json: {where}.{member}: no minimum and maximum")
                    continue
                path = ["architecture"] + (["moe"] if where == "moe" else []) + [member]
                name = ".".join(path)
                for value, inside in ((spec["minimum"] - 1, False), (spec["minimum"], True),
                                      (spec["maximum"], True), (spec["maximum"] + 1, False)):
                    doc = json.loads(json.dumps(saved))
                    node = doc
                    for key in path[:-1]:
                        node = node[key]
                    node[member] = value
                    schema_says = not any(True for _ in validator.iter_errors(doc))
                    file = os.path.join(tmp, "a.json")
                    with open(file, "w") as f:
                        json.dump(doc, f)
                    p = subprocess.run([binary, "flops", "--from", file, "--tokens", "1e9"], capture_output=True,
                                       text=True, timeout=60, env=dict(os.environ, NO_COLOR="1"))
                    # Refused for its bound, not for a relation to another member (heads dividing d_model).
                    reader_names_it = p.returncode == 2 and f"{name}:" in p.stderr and any(
                        w in p.stderr for w in BOUND_WORDS)
                    checked += 1
                    if not inside and (schema_says or not reader_names_it):
                        problems.append(f"{name} = {value}: the schema {'accepts' if schema_says else 'refuses'} it, "
                                        f"the reader {'refuses it naming it' if reader_names_it else 'does not name it'}"
                                        f" (exit {p.returncode}: {p.stderr.strip()[:200]})")
                    if inside and reader_names_it:
                        problems.append(f"{name} = {value}: inside the schema's bounds, but the reader refuses it: "
                                        f"{p.stderr.strip()[:200]}")
                    if inside and not schema_says:
                        problems.append(f"{name} = {value}: at its bound, but the schema refuses the document")
                    if inside and p.returncode not in (0, 2):
                        problems.append(f"{name} = {value}: exit {p.returncode}: {p.stderr.strip()[:200]}")
    if checked < 4 * sum(len(m) for m in BOUNDED_MEMBERS.values()):
        problems.append(f"checked only {checked} bounds")
    return problems


def yaml_problems(binary):
    """-o yaml is the -o json document as PyYAML (YAML 1.1) reads it: the same keys, strings, integers and floats."""
    import yaml  # python3-yaml (Debian)
    problems = []
    # The grids' names include Norway's "no", YAML 1.1's false unless quoted.
    for name in ("optimal", "cost", "plan", "fit", "catalog", "catalog grids"):
        args, ignore = ("catalog grids -o json", ()) if name == "catalog grids" else load_case(name)[0::2]
        with tempfile.TemporaryDirectory(prefix="isoflop-golden-") as tmp:
            words = [w.replace("{tmp}", tmp).replace("{root}", ROOT) for w in shlex.split(args)]
            outputs = []
            for fmt in ("json", "yaml"):
                run = [w if w != "json" else fmt for w in words]
                p = subprocess.run([binary] + run, cwd=ROOT, capture_output=True, text=True, timeout=600)
                outputs.append(p.stdout)
        as_json, as_yaml = json.loads(outputs[0]), yaml.safe_load(outputs[1])
        diffs = []
        compare(as_json, as_yaml, "", diffs, ignore, 0.0)
        problems += [f"{name} -o yaml: {d}" for d in diffs[:10]]
    return problems


def run_case(binary, name, update):
    args, want_status, ignore, tolerance = load_case(name)
    if args is None:
        return [f"{name}.args: no command line"]
    with tempfile.TemporaryDirectory(prefix="isoflop-golden-") as tmp:
        words = [w.replace("{tmp}", tmp).replace("{root}", ROOT) for w in shlex.split(args)]
        env = dict(os.environ, NO_COLOR="1")
        env.pop("ISOFLOP_CATALOG", None)
        p = subprocess.run([binary] + words, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        stdout = p.stdout.replace(tmp, "{tmp}").replace(ROOT, "{root}")
    errors = []
    if p.returncode != want_status:
        return [f"{name}: exit {p.returncode}, expected {want_status}; stderr: {p.stderr.strip()[:400]}"]
    try:
        actual = json.loads(stdout)
    except json.JSONDecodeError as e:
        return [f"{name}: output is not JSON: {e}"]
    schema = actual.get("schema", "") if isinstance(actual, dict) else ""
    parts = schema.split("/")
    if len(parts) != 3 or parts[0] != "isoflop" or parts[2] != "v2":
        errors.append(f"{name}: schema {schema!r} is not isoflop/<kind>/v2")
    else:
        validator, problem = validator_for(parts[1])
        if problem:
            errors.append(f"{name}: {problem}")
        else:
            for e in sorted(validator.iter_errors(actual), key=lambda e: list(e.path))[:10]:
                errors.append(f"{name}: schema: {'.'.join(str(x) for x in e.path) or '(document)'}: {e.message[:300]}")
    golden = os.path.join(HERE, name + ".json")
    if update:
        with open(golden, "w") as f:
            f.write(stdout)
        return errors
    if not os.path.exists(golden):
        return errors + [f"{name}: no saved output {name}.json (run check.py --update)"]
    with open(golden) as f:
        expected = json.load(f)
    diffs = []
    compare(expected, actual, "", diffs, ignore, tolerance)
    errors += [f"{name}: {d}" for d in diffs[:20]]
    return errors


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = argv[1]
    update = "--update" in argv[2:]
    names = [a for a in argv[2:] if not a.startswith("--")]
    failures = []
    if not names:
        names = sorted(f[:-5] for f in os.listdir(HERE) if f.endswith(".args"))
        history = schema_history_problems()
        print(f"{'FAIL' if history else 'ok  '} schemas against older documents and the kept records")
        failures += history
        bounds = bound_problems(binary)
        print(f"{'FAIL' if bounds else 'ok  '} the architecture's bounds: schema and reader agree")
        failures += bounds
        yaml_read = yaml_problems(binary)
        print(f"{'FAIL' if yaml_read else 'ok  '} -o yaml reads as the -o json document in PyYAML")
        failures += yaml_read
    for name in names:
        errs = run_case(binary, name, update)
        print(f"{'FAIL' if errs else 'ok  '} {name}")
        failures += errs
    for e in failures:
        print("  " + e)
    print(f"{len(names)} golden outputs, {len(failures)} problems")
    return 1 if failures or not names else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
