#!/usr/bin/env bash
# The CI smoke sweep, end to end through the binary: emit the smoke preset (3 budgets x 3 sizes at ~1e10 FLOPs),
# run it with -j2, SIGKILL one run after its first checkpoint, run again (it resumes, the others are kept),
# and check the documents and the exit statuses; then a run that fails is recorded as failed.
# The verdict document is checked against share/schema/validation.schema.json by tests/golden/check.py's
# validator, with SCHEMA_PYTHON (one with python3-jsonschema).
# usage: smoke.sh ISOFLOP WORKDIR [SCHEMA_PYTHON]
set -euo pipefail
ISOFLOP=$1
WORK=$2
SCHEMA_PYTHON=${3:-/usr/bin/python3}
GOLDEN=$(cd "$(dirname "$0")/../golden" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
DIR=$WORK/sweep
fail() { echo "FAIL: $*" >&2; exit 1; }

"$ISOFLOP" validate --flops 1e21 --law chinchilla --preset smoke --emit "$DIR" -o json > "$WORK/design.json"
python3 - "$WORK/design.json" "$DIR/sweep.json" <<'PY'
import json, sys
printed, written = (json.load(open(p)) for p in sys.argv[1:])
assert printed == written, "the printed and the written sweep differ"
assert written["schema"] == "isoflop/sweep/v2" and len(written["runs"]) == 9 and len(written["budgets"]) == 3
PY
bash -n "$DIR/slurm.sh" || fail "bash -n slurm.sh"
bash -n "$DIR/run.sh" || fail "bash -n run.sh"

# Emitting the same sweep again is accepted; another sweep into the folder is refused (exit 2).
"$ISOFLOP" validate --flops 1e21 --law chinchilla --preset smoke --emit "$DIR" -q > /dev/null
set +e
"$ISOFLOP" validate --flops 1e22 --law chinchilla --preset smoke --emit "$DIR" -q > /dev/null 2> "$WORK/other.err"
status=$?
set -e
[ "$status" -eq 2 ] || fail "another sweep into the folder: exit $status, expected 2"
grep -q "holds another sweep" "$WORK/other.err" || fail "another sweep: $(cat "$WORK/other.err")"

# A report output that exists is refused before any run starts (exit 2, nothing run).
touch "$WORK/exists.svg"
set +e
"$ISOFLOP" validate run "$DIR" --plot "$WORK/exists.svg" 2> "$WORK/plot.err"
status=$?
set -e
[ "$status" -eq 2 ] || fail "validate run onto an existing --plot: exit $status, expected 2"
grep -q "exists.svg exists; use --force to replace it" "$WORK/plot.err" || fail "existing plot: $(cat "$WORK/plot.err")"
[ ! -e "$DIR/runs" ] || [ -z "$(ls -A "$DIR/runs")" ] || fail "validate run started runs before refusing --plot"

# The largest-token run of the top budget is killed after its first checkpoint.
VICTIM=b2-s0
"$ISOFLOP" validate run "$DIR" -j 2 2> "$WORK/run1.err" &
RUNNER=$!
killed=0
for _ in $(seq 1 3000); do
  if [ -e "$DIR/runs/$VICTIM/checkpoint.bin" ] && [ ! -e "$DIR/runs/$VICTIM/results.json" ]; then
    pid=$(ps -o pid=,args= --ppid "$RUNNER" | awk -v job="jobs/$VICTIM.yaml" 'index($0, job) { print $1 }')
    if [ -n "$pid" ]; then kill -KILL "$pid" && killed=1; break; fi
  fi
  if ! kill -0 "$RUNNER" 2> /dev/null; then break; fi
  sleep 0.02
done
set +e
wait "$RUNNER"
status=$?
set -e
[ "$killed" -eq 1 ] || fail "could not kill $VICTIM mid-way; runner said: $(cat "$WORK/run1.err")"
[ "$status" -eq 1 ] || fail "a sweep with a killed run: exit $status, expected 1"
grep -q "$VICTIM FAILED (killed by signal 9" "$WORK/run1.err" || fail "no failure line: $(cat "$WORK/run1.err")"
[ -e "$DIR/runs/$VICTIM/failed.txt" ] || fail "the killed run is not recorded as failed"
grep -q "9 runs 100%\|8/9 runs" "$WORK/run1.err" || fail "no overall bar: $(cat "$WORK/run1.err")"

# Again: the eight finished runs are kept, the killed one resumes from its checkpoint.
set +e
"$ISOFLOP" validate run "$DIR" -j 2 2> "$WORK/run2.err"
status=$?
set -e
# Every run finished, so run's exit status is its report's verdict (the tiny smoke budgets may miss it).
verdict=$("$SCHEMA_PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' "$DIR/report/validation.json")
expected=$([ "$verdict" = pass ] && echo 0 || echo 1)
[ "$status" -eq "$expected" ] || fail "resume: exit $status with verdict $verdict: $(cat "$WORK/run2.err")"
set +e
"$ISOFLOP" validate report "$DIR" > /dev/null 2>&1
[ $? -eq "$expected" ] || fail "validate report's exit status differs from run's ($expected)"
set -e
[ "$(grep -c 'finished already; kept' "$WORK/run2.err")" -eq 8 ] || fail "finished runs not kept: $(cat "$WORK/run2.err")"
grep -q "$VICTIM resuming from its checkpoint" "$WORK/run2.err" || fail "no resume: $(cat "$WORK/run2.err")"
[ ! -e "$DIR/runs/$VICTIM/failed.txt" ] || fail "the resumed run is still recorded as failed"
python3 - "$DIR" "$VICTIM" <<'PY'
import json, os, sys
folder, victim = sys.argv[1:]
sweep = json.load(open(os.path.join(folder, "sweep.json")))
for run in sweep["runs"]:
    r = json.load(open(os.path.join(folder, run["folder"], "results.json")))
    assert r["schema"] == "isoflop/train/v2"
    assert r["steps"] == r["steps_total"] == run["steps"], run["id"]
    assert r["params"] == run["params"], (run["id"], r["params"], run["params"])
    assert r["tokens"] == run["tokens"], run["id"]
    assert r["eval_loss"] is not None and r["eval_loss"] > 0
    assert r["resumed"] == (run["id"] == victim), (run["id"], r["resumed"])
PY

# The verdict document the run's report wrote parses against its schema, with both approaches' intervals.
"$SCHEMA_PYTHON" - "$DIR/report/validation.json" "$GOLDEN" <<'PY'
import json, sys
document, golden = sys.argv[1:]
sys.path.insert(0, golden)
from check import validator_for  # the golden check's validator over share/schema
validator, problem = validator_for("validation")
assert validator, problem
with open(document) as f:
    d = json.load(f)
errors = [e.message for e in validator.iter_errors(d)]
assert not errors, errors[:3]
fit = d["fit"]
assert d["schema"] == "isoflop/validation/v2" and fit["finished"] == 9 and fit["bootstrap_resamples"] == 200
# Approach 3 is fitted to the 9 runs; its interval, when given, brackets its a (or the refits failed).
a3 = fit["approach3"]["a"]
i3 = fit["approach3_intervals"].get("a")
assert (i3 is not None and i3["p2_5"] <= a3 <= i3["p97_5"]) or fit["approach3_bootstrap_failed"] > 0, (a3, i3)
# 9 runs are too few for the interaction law (6 parameters, 12 runs), and the report says so.
assert fit["interaction"] is None and fit["interaction_note"].startswith("9 finished runs; the interaction law"), fit
# The kept cpu records carry it: they parse against the same schema, with the choice spelled as the schema has it.
import os
for name in ("validate-cpu-5x7-2026-12-05", "validate-cpu-5x7-tuned-lr-2026-12-05", "validate-cpu-6x7-2026-12-05",
             "validate-cpu-5x7-stacked-2026-12-05"):
    kept = os.path.join(golden, "..", "validate", "results", name + ".json")
    with open(kept) as f:
        k = json.load(f)
    errors = [e.message for e in validator.iter_errors(k)]
    assert not errors, (kept, errors[:3])
    if "stacked" in name:  # written before the interaction law: the key is absent, as the schema allows
        assert "interaction" not in k["fit"], kept
    else:
        assert k["fit"]["interaction"]["choice"]["chosen"] in ("chinchilla", "interaction"), kept
PY

# A third run has nothing to do.
set +e
"$ISOFLOP" validate run "$DIR" 2> "$WORK/run3.err"
[ $? -eq "$expected" ] || fail "nothing to do: exit status is not the verdict's ($expected)"
set -e
[ "$(grep -c 'finished already; kept' "$WORK/run3.err")" -eq 9 ] || fail "$(cat "$WORK/run3.err")"

# A finished run whose job file was edited since is kept, and the line says what changed.
sed -i 's/^  lr: .*/  lr: 0.0125/' "$DIR/jobs/b1-s1.yaml"
set +e
"$ISOFLOP" validate run "$DIR" 2> "$WORK/run3b.err"
set -e
grep -q "b1-s1 finished already; kept, though its job file changed since: train.lr .* → 0.0125" "$WORK/run3b.err" ||
  fail "an edited job of a finished run: $(cat "$WORK/run3b.err")"

# A job that cannot run is recorded as failed with its reason, and the sweep exits 1.
sed -i 's/^  lr: .*/  lr: -1/' "$DIR/jobs/b0-s0.yaml"
rm -rf "$DIR/runs/b0-s0"
set +e
"$ISOFLOP" validate run "$DIR" 2> "$WORK/run4.err"
status=$?
set -e
[ "$status" -eq 1 ] || fail "a failing job: exit $status, expected 1"
grep -q "b0-s0 FAILED (exit 2: .*train' field 'lr'" "$WORK/run4.err" || fail "failure reason: $(cat "$WORK/run4.err")"
grep -q "exit 2" "$DIR/runs/b0-s0/failed.txt" || fail "failed.txt: $(cat "$DIR/runs/b0-s0/failed.txt")"
# Ctrl-C in a terminal interrupts the whole process group, the runs with the runner: a run that exits on it
# (130, its checkpoint saved) before the runner sees the stop is interrupted, not failed, and the runner exits 130.
GROUP=$WORK/group
"$ISOFLOP" validate --flops 1e21 --law chinchilla --preset smoke --emit "$GROUP" -q > /dev/null
setsid "$ISOFLOP" validate run "$GROUP" -j 2 2> "$WORK/group.err" &
LEADER=$!
for _ in $(seq 1 3000); do
  if ls "$GROUP"/runs/*/checkpoint.bin > /dev/null 2>&1; then break; fi
  sleep 0.02
done
kill -INT -- "-$LEADER"
set +e
wait "$LEADER"
status=$?
set -e
[ "$status" -eq 130 ] || fail "Ctrl-C to the group: exit $status, expected 130: $(cat "$WORK/group.err")"
grep -q " 0 failed, [1-9][0-9]* interrupted" "$WORK/group.err" || fail "Ctrl-C to the group: $(cat "$WORK/group.err")"
! ls "$GROUP"/runs/*/failed.txt > /dev/null 2>&1 || fail "an interrupted run is recorded as failed"
echo "validate smoke: ok"
