#!/usr/bin/env python3
"""Whole-process start time and memory of every non-train command.

For each command: N runs, each spawned and reaped with os.wait4, which returns the child's own resource use.
Reported: the median wall time (time.perf_counter around spawn and wait), the median CPU time (user + system,
from the child's rusage: unlike the wall time it is not inflated by other processes on a loaded machine), and
the largest maximum resident set size of five runs under /usr/bin/time -f %M (a process started straight from
Python would report Python's own size: Linux keeps the high-water mark across exec). /bin/true is measured the
same way first: its wall time is the floor the machine's load puts under every process.

    /usr/bin/python3 tests/bench/start_time.py [path/to/isoflop] [runs]     defaults: build/isoflop, 50
    --rounds K   repeat the whole table K times and report, per command, the minimum of the K medians
    --instructions   also count each command's instructions once under valgrind --tool=callgrind (the whole
                     process: dynamic loader, static initialisers, the command): unlike times, the count does
                     not depend on the machine's load, so it compares builds on a busy machine

The commands are the golden invocations of tests/golden (output to /dev/null).
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

COMMANDS = [
    ("true", None),
    ("version", ["--version"]),
    ("optimal", ["optimal", "--flops", "5.76e23", "--law", "chinchilla", "-o", "json"]),
    ("loss", ["loss", "--params", "6.34B", "--tokens", "242B", "--unique-tokens", "25B", "--law", "muennighoff-2023",
              "-o", "json"]),
    ("flops", ["flops", "--arch", "mt-nlg-530b", "--global-batch", "1920", "--flops-convention", "megatron", "-o",
               "json"]),
    ("cost", ["cost", "--params", "70B", "--tokens", "1.4T", "--gpu", "a100-sxm4-80gb", "--gpus", "1024", "--mfu",
              "0.45", "--grid", "fr", "--whatif", "-o", "json"]),
    ("arch", ["arch", "--params", "70B", "--tp", "8", "-o", "json"]),
    ("catalog", ["catalog", "hardware", "-o", "json"]),
    ("plan", ["plan", "--gpus", "3360", "--gpu", "a100-sxm4-80gb", "--days", "30", "-o", "json"]),
]


def run_once(argv):
    devnull = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"start_time.py: {' '.join(argv)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def max_rss_mb(argv):
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, check=True).stderr
    return int(out.strip().splitlines()[-1]) / 1024.0


def instructions(argv):
    """Instructions the whole process executes, as callgrind counts them (None without valgrind)."""
    if not shutil.which("valgrind"):
        return None
    err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True).stderr
    found = re.search(r"Collected : (\d+)", err)
    return int(found.group(1)) if found else None


def measure(argv, runs):
    run_once(argv)  # the page cache
    samples = [run_once(argv) for _ in range(runs)]
    return (statistics.median(s[0] for s in samples) * 1e3, statistics.median(s[1] for s in samples) * 1e3,
            max(max_rss_mb(argv) for _ in range(5)))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--rounds") and a != "--instructions"]
    count = "--instructions" in sys.argv[1:]
    rounds = 1
    for a in sys.argv[1:]:
        if a.startswith("--rounds="):
            rounds = int(a.split("=", 1)[1])
    binary = os.path.abspath(args[0] if args else "build/isoflop")
    runs = int(args[1]) if len(args) > 1 else 50
    if not os.access(binary, os.X_OK):
        sys.exit(f"start_time.py: no executable {binary}")
    best = {}
    for _ in range(rounds):
        for name, rest in COMMANDS:
            argv = ["/bin/true"] if rest is None else [binary] + rest
            wall, cpu, rss = measure(argv, runs)
            old = best.get(name)
            best[name] = (min(wall, old[0]), min(cpu, old[1]), max(rss, old[2])) if old else (wall, cpu, rss)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"# {binary}, {runs} runs x {rounds} round(s), load average {load} at the end")
    print(f"{'command':8} {'wall_ms':>8} {'cpu_ms':>7} {'max_rss_mb':>10}" + (f" {'instructions':>13}" if count else ""))
    for name, rest in COMMANDS:
        wall, cpu, rss = best[name]
        line = f"{name:8} {wall:8.2f} {cpu:7.2f} {rss:10.1f}"
        if count:
            n = instructions(["/bin/true"] if rest is None else [binary] + rest)
            line += f" {n:13,}" if n is not None else f" {'-':>13}"
        print(line)


if __name__ == "__main__":
    main()
