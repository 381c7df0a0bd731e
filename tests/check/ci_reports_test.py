#!/usr/bin/env python3
"""`isoflop check` as CI systems read it, parsed by other programs: the JUnit XML validates against the Ant
schema Jenkins and GitLab read (tests/check/JUnit.xsd, with lxml) and parses back to the verdicts of the JSON
document; GitHub annotations point at the proposal line of the offending field; every example proposal gives
the verdicts its "# expect" comment states; reruns are byte-identical; exit statuses are 0, 1 and 2.

Usage: ci_reports_test.py BINARY
"""
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile

from lxml import etree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
from expectations import expect, fail, finish, print_passes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "share", "examples", "proposals")
POLICY = os.path.join(ROOT, "share", "examples", "policies", "default.yaml")


def run(binary, *args):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("ISOFLOP_CATALOG", None)
    return subprocess.run([binary, "check", *args], capture_output=True, text=True, env=env, cwd=ROOT)


def expected_verdicts(path):
    """The '# expect (default policy): gate X; rule verdict, ...' comment of an example proposal."""
    text = ""
    for line in open(path):
        if not line.startswith("#"):
            break
        text += line.lstrip("#").strip() + " "
    m = re.search(r"expect \(default policy\): gate (passed|failed); (.*)", text)
    assert m, path + ": no '# expect (default policy):' comment"
    rules = {}
    for item in re.sub(r"\([^)]*\)", "", m.group(2)).split(","):
        rule, verdict = item.split()
        rules[rule] = verdict
    return m.group(1), rules


def check_examples(binary):
    proposals = sorted(glob.glob(os.path.join(EXAMPLES, "*.yaml")))
    expect(len(proposals) >= 5, "at least five example proposals")
    for path in proposals:
        gate, rules = expected_verdicts(path)
        r = run(binary, path, "--policy", POLICY, "-o", "json")
        expect(r.returncode == (0 if gate == "passed" else 1), f"{path}: exit {r.returncode}, gate {gate}")
        doc = json.loads(r.stdout)
        expect(doc["gate"] == gate, f"{path}: gate {doc['gate']} != {gate}")
        got = {v["rule"]: v for v in doc["proposals"][0]["verdicts"]}
        for rule, verdict in rules.items():
            expect(got[rule]["verdict"] == verdict, f"{path}: {rule} is {got[rule]['verdict']}, comment says {verdict}")
        if "no-fit" in path:
            expect((got["memory_headroom_gib"]["fix"] or "").startswith("layout.zero: 3"),
                   f"{path}: memory fix names the proposal's layout.zero: 3")


def check_junit(binary):
    proposals = sorted(glob.glob(os.path.join(EXAMPLES, "*.yaml")))
    r = run(binary, *proposals, "--policy", POLICY, "-o", "junit")
    expect(r.returncode == 1, "junit: the gate fails (the examples include failing proposals)")
    schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
    xml = etree.fromstring(r.stdout.encode())
    if not schema.validate(xml):
        fail("junit: invalid against JUnit.xsd: " + str(schema.error_log))
    doc = json.loads(run(binary, *proposals, "--policy", POLICY, "-o", "json").stdout)
    suites = xml.findall("testsuite")
    expect(len(suites) == len(doc["proposals"]), "junit: one testsuite per proposal")
    for suite, proposal in zip(suites, doc["proposals"]):
        cases = suite.findall("testcase")
        expect([c.get("name") for c in cases] == [v["rule"] for v in proposal["verdicts"]], "junit: one testcase per rule")
        for case, v in zip(cases, proposal["verdicts"]):
            failure, skipped = case.find("failure"), case.find("skipped")
            expect((failure is not None) == (v["verdict"] == "fail"), f"junit: {suite.get('name')}/{v['rule']} failure")
            expect((skipped is not None) == (v["verdict"] == "not-applicable"), f"junit: {v['rule']} skipped")
            if failure is not None:
                expect(failure.get("message") == v["reason"], "junit: failure message is the reason")
                expect(f":{v['line']}: {v['field']}" in failure.text, "junit: failure text names file:line")
        expect(int(suite.get("failures")) == proposal["summary"]["failed"], "junit: failures count")
        expect(int(suite.get("skipped")) == proposal["summary"]["not_applicable"], "junit: skipped count")
    again = run(binary, *proposals, "--policy", POLICY, "-o", "junit")
    expect(again.stdout == r.stdout, "junit: byte-identical rerun")
    # --junit names a file: /dev/stdout into a pipe (as here) links to the pipe, said so rather than as a bad link.
    piped = run(binary, proposals[0], "--policy", POLICY, "--junit", "/dev/stdout")
    expect(piped.returncode == 2 and "'/dev/stdout' is a link to a device, FIFO or socket (a pipe" in piped.stderr
           and not piped.stdout, "junit: --junit /dev/stdout into a pipe: %d %s" % (piped.returncode, piped.stderr))


def check_proposal_in_error(binary):
    """One proposal that cannot be read (a typo in a key) or planned (a count without its unit) among good ones:
    exit 2 with its message on stderr, and every report still carries the good proposal's verdicts, the bad ones
    as an error: a JUnit <error> testcase (valid against the schema), a JSON entry with its error, a CSV row and
    an annotation at the line named."""
    good = os.path.join(EXAMPLES, "gopher-280b.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        typo = os.path.join(tmp, "typo.yaml")
        open(typo, "w").write("name: typo\narch: chinchilla-70b\ntokens: 1.4T\nownr: me\n"
                              "cluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n")
        unitless = os.path.join(tmp, "unitless.yaml")
        open(unitless, "w").write("name: unitless\narch: chinchilla-70b\ntokens: 1.4\n"
                                  "cluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n")
        junit = os.path.join(tmp, "report.xml")
        r = run(binary, good, typo, unitless, "--policy", POLICY, "-o", "json", "--junit", junit)
        expect(r.returncode == 2, "in error: exit 2 (bad input): %d" % r.returncode)
        expect(f"isoflop: error: {typo}:4: ownr: unknown field (did you mean 'owner'?)" in r.stderr and
               f"isoflop: error: {unitless}:3: tokens: 1.4 tokens are fewer than one sequence" in r.stderr,
               "in error: stderr names each file, line and field: " + r.stderr)
        doc = json.loads(r.stdout)
        expect([p["error"] is None for p in doc["proposals"]] == [True, False, False] and doc["gate"] == "failed" and
               doc["summary"]["errors"] == 2, "in error: the JSON keeps the good proposal and marks the others")
        good_verdicts = json.loads(run(binary, good, "--policy", POLICY, "-o", "json").stdout)["proposals"][0]
        expect(doc["proposals"][0]["verdicts"] == good_verdicts["verdicts"], "in error: the good proposal's verdicts")
        expect(doc["proposals"][1]["verdicts"] == [] and doc["proposals"][1]["error"].startswith(typo + ":4: ownr:"),
               "in error: the unreadable proposal has its error and no verdicts")
        xml = etree.parse(junit).getroot()
        schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
        if not schema.validate(xml):
            fail("in error: JUnit invalid against JUnit.xsd: " + str(schema.error_log))
        suites = xml.findall("testsuite")
        expect([s.get("errors") for s in suites] == ["0", "1", "1"], "in error: one errored suite per bad proposal")
        errors = [s.find("testcase").find("error") for s in suites[1:]]
        expect(all(e is not None and e.get("type") == "input" for e in errors) and
               errors[0].get("message") == doc["proposals"][1]["error"], "in error: the <error> carries the message")
        expect(len(suites[0].findall("testcase")) == len(good_verdicts["verdicts"]), "in error: the good suite is whole")
        rows = list(csv.DictReader(io.StringIO(run(binary, good, typo, "--policy", POLICY, "-o", "csv").stdout)))
        expect(rows[-1]["proposal"] == typo and rows[-1]["verdict"] == "error" and
               rows[-1]["reason"].startswith(typo + ":4:"), "in error: a CSV row in error")
        notes = run(binary, typo, "--policy", POLICY, "--annotations", "github", "-q").stdout
        expect(f"::error file={typo},line=4," in notes, "in error: an annotation at the line named: " + notes)
        # A key given twice (the YAML reader's own refusal) is the proposal's fault, not the catalog's: the good
        # proposal is still judged.
        twice = os.path.join(tmp, "twice.yaml")
        open(twice, "w").write("name: twice\narch: chinchilla-70b\ntokens: 1.4T\ntokens: 1.5T\n")
        r = run(binary, good, twice, "--policy", POLICY, "-o", "json")
        doc = json.loads(r.stdout) if r.stdout else {}
        expect(r.returncode == 2 and doc.get("summary", {}).get("errors") == 1 and
               doc["proposals"][0]["verdicts"] == good_verdicts["verdicts"] and
               doc["proposals"][1]["error"] == twice + ":4: duplicate key 'tokens' (first at line 3)",
               "in error: a key given twice leaves the others judged: %d %s" % (r.returncode, r.stderr))
        # So is a fault in the architecture file a proposal names.
        arch = os.path.join(tmp, "arch-twice.yaml")
        open(arch, "w").write("name: a\nlayers: 80\nlayers: 81\nd_model: 8192\nheads: 64\nvocab: 32000\n")
        named = os.path.join(tmp, "named.yaml")
        open(named, "w").write("name: named\narch: %s\ntokens: 1.4T\n" % arch)
        r = run(binary, good, named, "--policy", POLICY, "-o", "json")
        doc = json.loads(r.stdout) if r.stdout else {}
        expect(r.returncode == 2 and doc.get("summary", {}).get("errors") == 1 and
               doc["proposals"][1]["error"] == arch + ":3: duplicate key 'layers' (first at line 2)",
               "in error: a fault in the named arch file leaves the others judged: %d %s" % (r.returncode, r.stderr))
        # A --junit that names an input is refused before anything is printed, --force or not.
        r = run(binary, good, "--policy", POLICY, "--junit", good, "--force")
        expect(r.returncode == 2 and r.stdout == "" and "is one of this command's inputs" in r.stderr,
               "--junit naming an input: exit 2, nothing on stdout: %d %r" % (r.returncode, r.stdout[:80]))


def check_junit_warnings(binary):
    """A warning is visible to reporters within the schema: a suite property and <system-out> text; under
    --strict a failure of type warn."""
    path = os.path.join(EXAMPLES, "gopher-280b.yaml")
    doc = json.loads(run(binary, path, "--policy", POLICY, "-o", "json").stdout)
    warned = [v for v in doc["proposals"][0]["verdicts"] if v["verdict"] == "warn"]
    expect(warned, "junit warnings: the Gopher example warns")
    schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
    for strict in (False, True):
        r = run(binary, path, "--policy", POLICY, "-o", "junit", *(["--strict"] if strict else []))
        xml = etree.fromstring(r.stdout.encode())
        if not schema.validate(xml):
            fail(f"junit warnings (strict {strict}): invalid: {schema.error_log}")
        suite = xml.find("testsuite")
        props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        out = suite.find("system-out").text or ""
        expect(props["warnings"] == ("0" if strict else str(len(warned))), f"junit warnings: count, strict {strict}")
        for v in warned:
            failure = cases[v["rule"]].find("failure")
            if strict:
                expect(failure is not None and failure.get("type") == "warn", f"junit strict: {v['rule']} fails")
                expect(failure is not None and failure.get("message") == v["reason"], "junit strict: the reason")
            else:
                expect(failure is None, f"junit: warned {v['rule']} is no failure")
                expect(props.get("warn." + v["rule"]) == f"{path}:{v['line']}: {v['reason']}" +
                       (f"; fix: {v['fix']}" if v["fix"] else ""), f"junit: property warn.{v['rule']}")
                expect(f"WARN {v['rule']}: {path}:{v['line']}: {v['field']}\n{v['reason']}\n" in out,
                       f"junit: system-out names the warning {v['rule']}")


def check_junit_control_characters(binary):
    """A proposal name with control characters (a script's stray escape sequence) or U+FFFE still gives
    well-formed XML that validates: each such character becomes U+FFFD."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ctl.yaml")
        with open(path, "w") as f:
            f.write('name: "c\\x01d \\e[31mRED \\uFFFE"\narch: chinchilla-70b\ntokens: 300B\nglobal_batch: 1536\n'
                    "cluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n")
        r = run(binary, path, "--policy", POLICY, "-o", "junit")
        expect(r.returncode in (0, 1), f"junit control characters: exit {r.returncode}: {r.stderr.strip()}")
        try:
            xml = etree.fromstring(r.stdout.encode())
        except etree.XMLSyntaxError as e:
            fail(f"junit control characters: not well-formed XML: {e}")
            return
        schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
        if not schema.validate(xml):
            fail("junit control characters: invalid against JUnit.xsd: " + str(schema.error_log))
        expect(xml.find("testsuite").get("name") == "c\ufffdd \ufffd[31mRED \ufffd",
               f"junit control characters: suite name {xml.find('testsuite').get('name')!r}")
        # The table prints them as escapes: no byte of the terminal's escape reaches it.
        r = run(binary, path, "--policy", POLICY)
        expect("\x1b" not in r.stdout and "\x01" not in r.stdout and r.stdout.startswith("c\\x01d \\x1b[31mRED"),
               f"table control characters: {r.stdout[:60]!r}")


def check_names(binary):
    """A proposal file named in Latin-1 (no UTF-8) gives JSON and JUnit their readers parse, its stray byte as
    U+FFFD; an empty or blank name is an input error at its line (a JUnit suite needs a name), not an empty suite."""
    with tempfile.TemporaryDirectory() as tmp:
        latin1 = os.path.join(tmp, os.fsdecode(b"caf\xe9.yaml"))
        with open(latin1, "w") as f:
            f.write("arch: chinchilla-70b\ntokens: 300B\nglobal_batch: 1536\ncluster: {gpu: a100-sxm4-80gb, gpus: 1024}\n")
        r = run(binary, latin1, "--policy", POLICY, "-o", "json")
        expect(r.returncode in (0, 1), f"latin-1 file name, json: exit {r.returncode}: {r.stderr.strip()}")
        try:
            names = [p["name"] for p in json.loads(r.stdout)["proposals"]]
            expect(names == ["caf\ufffd.yaml"], f"latin-1 file name, json: {names!r}")
        except (ValueError, KeyError) as e:
            fail(f"latin-1 file name: the JSON does not parse: {e}")
        r = run(binary, latin1, "--policy", POLICY, "-o", "junit")
        try:
            xml = etree.fromstring(r.stdout.encode())
            schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
            expect(schema.validate(xml) and xml.find("testsuite").get("name") == "caf\ufffd.yaml",
                   f"latin-1 file name, junit: {xml.find('testsuite').get('name')!r} {schema.error_log}")
        except etree.XMLSyntaxError as e:
            fail(f"latin-1 file name: not well-formed XML: {e}")
        for name in ('""', '"   "'):
            blank = os.path.join(tmp, "blank.yaml")
            with open(blank, "w") as f:
                f.write(f"arch: chinchilla-70b\nname: {name}\ntokens: 300B\n")
            r = run(binary, blank, "--policy", POLICY, "-o", "junit")
            xml = etree.fromstring(r.stdout.encode())
            schema = etree.XMLSchema(etree.parse(os.path.join(HERE, "JUnit.xsd")))
            expect(r.returncode == 2 and "blank.yaml:2: name: must not be empty" in r.stderr and schema.validate(xml),
                   f"name {name}: exit {r.returncode}: {r.stderr.strip()} {schema.error_log}")


def check_duplicate_names(binary):
    """Two proposals of one name (a copied file) are two suites GitLab tells apart: each takes its file after the
    shared name; a name no other proposal has stays as it is."""
    with tempfile.TemporaryDirectory() as tmp:
        text = open(os.path.join(EXAMPLES, "gopher-280b.yaml")).read()
        copies = [os.path.join(tmp, f) for f in ("a.yaml", "b.yaml")]
        for c in copies:
            open(c, "w").write(text)
        r = run(binary, *copies, os.path.join(EXAMPLES, "llama2-70b.yaml"), "--policy", POLICY, "-o", "junit")
        suites = etree.fromstring(r.stdout.encode()).findall("testsuite")
        names = [s.get("name") for s in suites]
        expect(len(set(names)) == 3 and names[0].endswith(" (%s)" % copies[0]) and names[1].endswith(" (%s)" % copies[1]),
               f"duplicate names: suites {names!r}")
        classes = {c.get("classname") for s in suites[:2] for c in s.findall("testcase")}
        expect(len(classes) == 2, f"duplicate names: test case classes {classes!r}")
        expect(not names[2].endswith(")"), f"a unique name stays: {names[2]!r}")


def check_timestamp_csv_and_formats(binary):
    path = os.path.join(EXAMPLES, "gopher-280b.yaml")
    stamps = lambda out: {s.get("timestamp") for s in etree.fromstring(out.encode()).findall("testsuite")}
    expect(stamps(run(binary, path, "--policy", POLICY, "-o", "junit").stdout) == {"1970-01-01T00:00:00"},
           "junit: the epoch by default")
    env = dict(os.environ, NO_COLOR="1", SOURCE_DATE_EPOCH="1700000000")
    env.pop("ISOFLOP_CATALOG", None)
    r = subprocess.run([binary, "check", path, "--policy", POLICY, "-o", "junit", "--timestamp"], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    expect(stamps(r.stdout) == {"2023-11-14T22:13:20"}, "junit --timestamp: SOURCE_DATE_EPOCH 1700000000")
    env["SOURCE_DATE_EPOCH"] = "soon"
    r = subprocess.run([binary, "check", path, "--policy", POLICY, "-o", "junit", "--timestamp"], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    expect(r.returncode == 2 and "SOURCE_DATE_EPOCH: 'soon'" in r.stderr, "junit --timestamp: a bad SOURCE_DATE_EPOCH")
    env.pop("SOURCE_DATE_EPOCH")
    r = subprocess.run([binary, "check", path, "--policy", POLICY, "-o", "junit", "--timestamp"], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    now = list(stamps(r.stdout))[0]
    expect(re.fullmatch(r"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}", now) and now > "2024",
           "junit --timestamp: now " + now)
    r = run(binary, path, "--policy", POLICY, "-o", "xml")
    expect(r.returncode == 2 and "-o/--format: 'xml' is not one of table|json|yaml|csv|junit" in r.stderr,
           "-o xml: names -o/--format and the accepted values: " + r.stderr)
    # -o csv: one row per proposal and rule, the JSON document's values.
    proposals = sorted(glob.glob(os.path.join(EXAMPLES, "*.yaml")))
    doc = json.loads(run(binary, *proposals, "--policy", POLICY, "-o", "json").stdout)
    rows = list(csv.DictReader(io.StringIO(run(binary, *proposals, "--policy", POLICY, "-o", "csv").stdout)))
    want = [(p["source"], v) for p in doc["proposals"] for v in p["verdicts"]]
    expect(len(rows) == len(want), f"csv: {len(rows)} rows for {len(want)} verdicts")
    for row, (source, v) in zip(rows, want):
        expect(row["proposal"] == source and row["rule"] == v["rule"] and row["verdict"] == v["verdict"] and
               row["severity"] == v["severity"] and row["reason"] == v["reason"] and row["unit"] == (v["unit"] or ""),
               f"csv: {source} {v['rule']}")
        for key in ("value", "threshold"):
            expect((row[key] == "") == (v[key] is None) and (v[key] is None or float(row[key]) == v[key]),
                   f"csv: {source} {v['rule']} {key} {row[key]} != {v[key]}")


def key_line(path, key):
    """The line of a top-level or nested key (its last path element) in a YAML proposal, found as text."""
    last = key.split(".")[-1]
    for number, line in enumerate(open(path), 1):
        if re.match(r"\s*" + re.escape(last) + r"\s*:", line):
            return number
    return None


def check_annotations(binary):
    path = os.path.join(EXAMPLES, "gopher-280b.yaml")
    r = run(binary, path, "--policy", POLICY, "--annotations", "github")
    lines = [l for l in r.stdout.splitlines() if l.startswith("::")]
    expect(lines, "annotations: some lines")
    doc = json.loads(run(binary, path, "--policy", POLICY, "-o", "json").stdout)
    flagged = [v for v in doc["proposals"][0]["verdicts"] if v["verdict"] in ("fail", "warn")]
    expect(len(lines) == len(flagged), "annotations: one per failed or warned rule")
    for line, v in zip(lines, flagged):
        m = re.match(r"::(error|warning) file=([^,]+),line=(\d+),title=([^:]+)::(.*)", line)
        expect(m is not None, "annotations: workflow command syntax: " + line)
        if not m:
            continue
        expect(m.group(1) == ("error" if v["verdict"] == "fail" else "warning"), "annotations: level")
        expect(m.group(2) == path, "annotations: file")
        expect(int(m.group(3)) == key_line(path, v["field"]), f"annotations: {v['rule']} line {m.group(3)}")
    loss = [l for l in lines if "loss_gap_vs_optimal" in l]
    expect(loss and loss[0].startswith("::error") and f"line={key_line(path, 'arch')}," in loss[0],
           "annotations: the loss gap points at the arch line")


def check_plan_document(binary):
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "plan.json")
        env = dict(os.environ)
        env.pop("ISOFLOP_CATALOG", None)
        out = subprocess.run([binary, "plan", "--flops", "5.76e23", "--gpu", "a100-sxm4-80gb", "--gpus", "1024",
                              "-o", "json"], capture_output=True, text=True, env=env)
        open(plan, "w").write(out.stdout)
        r = run(binary, plan, "--policy", POLICY, "-o", "json")
        expect(r.returncode in (0, 1), "plan document: a valid proposal")
        doc = json.loads(r.stdout)
        got = {v["rule"]: v["verdict"] for v in doc["proposals"][0]["verdicts"]}
        expect(got["loss_gap_vs_optimal"] == "pass", "plan document: a compute-optimal plan passes the loss gap")
        # Its budget is what it states: 5.76e23 FLOPs against 6ND of the model it shaped; it states no days.
        stated = {v["rule"]: v for v in doc["proposals"][0]["verdicts"]}
        expect(stated["stated_flops"]["verdict"] == "pass" and abs(stated["stated_flops"]["value"]) < 2 and
               stated["stated_days"]["verdict"] == "not-applicable",
               "plan document: its FLOPs budget is stated, no days: %s" % [stated["stated_flops"], stated["stated_days"]])
        expect(stated["stated_days"]["reason"] == "the plan was asked for FLOPs, not days, so its days are predicted, "
               "not stated", "plan document: the days it predicts are said not to be stated: %s" % stated["stated_days"])
        # Edited to state no budget at all, it says so rather than naming one.
        edited = json.loads(out.stdout)
        for key in edited["inputs"]["budget"]:
            edited["inputs"]["budget"][key] = None
        unbudgeted = os.path.join(tmp, "unbudgeted.json")
        open(unbudgeted, "w").write(json.dumps(edited))
        r = run(binary, unbudgeted, "--policy", POLICY, "-o", "json")
        reasons = {v["rule"]: v["reason"] for v in json.loads(r.stdout)["proposals"][0]["verdicts"]} if r.stdout else {}
        expect(reasons.get("stated_flops") == "the plan document states no budget, so its FLOPs are predicted, not "
               "stated", "plan document with no budget: %d %s" % (r.returncode, reasons.get("stated_flops", r.stderr)))
        # The plan names its grid region (--grid fr), which a regions gate holds; one given as a number names none.
        for grid, allow, verdict in (("fr", "fr", "pass"), ("fr", "us", "fail"), ("300g/kWh", "fr", "not-applicable")):
            out = subprocess.run([binary, "plan", "--flops", "1e22", "--gpu", "h100-sxm5-80gb", "--gpus", "64",
                                  "--grid", grid, "-o", "json"], capture_output=True, text=True, env=env)
            open(plan, "w").write(out.stdout)
            policy = os.path.join(tmp, "regions.yaml")
            open(policy, "w").write("name: regions\nrules:\n  regions: {allow: [%s]}\n" % allow)
            r = run(binary, plan, "--policy", policy, "-o", "json")
            got = {v["rule"]: v["verdict"] for v in json.loads(r.stdout)["proposals"][0]["verdicts"]}
            expect(got.get("regions") == verdict and r.returncode == (1 if verdict == "fail" else 0),
                   f"plan document on grid {grid}, regions {allow}: {got} exit {r.returncode}")
        # A plan that fits nowhere (530B on 8 GPUs for a day): check takes it as it is, so its fix is what planning
        # again takes, the plan's own search's fewest GPUs, and planning again with it fits.
        args = ["--arch", "mt-nlg-530b", "--gpu", "a100-sxm4-80gb", "--days", "1"]
        out = subprocess.run([binary, "plan", *args, "--gpus", "8", "-o", "json"], capture_output=True, text=True, env=env)
        open(plan, "w").write(out.stdout)
        policy = os.path.join(tmp, "memory.yaml")
        open(policy, "w").write("name: memory\nrules:\n  memory_headroom_gib: {min: 0}\n")
        r = run(binary, plan, "--policy", policy, "-o", "json")
        verdict = json.loads(r.stdout)["proposals"][0]["verdicts"][0] if r.stdout else {}
        fix = re.fullmatch(r"plan again with --gpus (\d+)", verdict.get("fix", ""))
        expect(r.returncode == 1 and fix is not None, "unfit plan document: the fix plans again: %s" % verdict)
        if fix:
            again = subprocess.run([binary, "plan", *args, "--gpus", fix.group(1), "-o", "json"], capture_output=True,
                                   text=True, env=env)
            expect(again.returncode == 0 and json.loads(again.stdout)["layouts"],
                   "unfit plan document: planned again with gpus %s it fits: %s" % (fix.group(1), again.stderr))
        # A plan whose best layout fits with less free than the policy asks: the fix is the first of the plan's own
        # ranked layouts that keeps enough, as pins of every knob; `layout --from` the plan with them lays out that
        # very layout (a VPP left open was the search's again: the layout that failed).
        for args, least in ((["--gpus", "1024", "--gpu", "h100-sxm5-80gb", "--days", "30"], 4),
                            (["--days", "30", "--gpu", "a100-sxm4-40gb", "--gpus", "128", "--arch", "llama2-13b"], 3)):
            out = subprocess.run([binary, "plan", *args, "-o", "json"], capture_output=True, text=True, env=env)
            open(plan, "w").write(out.stdout)
            planned = json.loads(out.stdout)
            open(policy, "w").write("name: memory\nrules:\n  memory_headroom_gib: {min: %d}\n" % least)
            r = run(binary, plan, "--policy", policy, "-o", "json")
            verdict = json.loads(r.stdout)["proposals"][0]["verdicts"][0] if r.stdout else {}
            fix = re.fullmatch(r"the plan's layout (\d+) of its ranking keeps ([0-9.]+) GiB free at ([0-9.]+) % MFU: "
                               r"give emit \(or layout --from\) (.*)", verdict.get("fix", ""))
            expect(r.returncode == 1 and verdict.get("value", 99) < least and fix is not None,
                   "plan document short of headroom: the fix names a ranked layout: %s" % verdict)
            if not fix:
                continue
            ranked = planned["layouts"][int(fix.group(1)) - 1]
            relaid = subprocess.run([binary, "layout", "--from", plan, *fix.group(4).split(), "-o", "json"],
                                    capture_output=True, text=True, env=env)
            best = json.loads(relaid.stdout)["layouts"][0] if relaid.returncode == 0 else {}
            knobs = ("tp", "pp", "cp", "dp", "ep", "vpp", "micro_batch", "zero_stage", "recompute")
            expect(all(best.get(k) == ranked[k] for k in knobs) and
                   abs(best.get("memory_gib", 0) - ranked["memory_gib"]) < 1e-9 and
                   abs(best.get("mfu", 0) * 100 - float(fix.group(3))) < 0.1,
                   "the fix's pins lay out the ranked layout: %s against %s" % (best, ranked))
            headroom = verdict["value"] + planned["layouts"][0]["memory_gib"] - ranked["memory_gib"]
            expect(headroom >= least and abs(headroom - float(fix.group(2))) < 0.1,
                   "the ranked layout keeps the policy's %d GiB free: %s" % (least, headroom))


def main():
    print_passes(False)
    binary = sys.argv[1]
    check_examples(binary)
    check_junit(binary)
    check_junit_warnings(binary)
    check_proposal_in_error(binary)
    check_junit_control_characters(binary)
    check_names(binary)
    check_duplicate_names(binary)
    check_timestamp_csv_and_formats(binary)
    check_annotations(binary)
    check_plan_document(binary)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
