#!/usr/bin/env python3
"""-o csv read as a spreadsheet reads it (Python's csv module): one row per element of the document's main table,
the document's other values as dotted columns beside it, lists of values as indexed columns, numbers that read
back to the JSON's doubles.

usage: csv_test.py ISOFLOP"""
import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'support'))
from expectations import expect, finish  # noqa: E402

RUNS = os.path.join(HERE, '..', '..', 'share', 'examples', 'runs.csv')


def both(binary, args):
    """The command's JSON document and its CSV rows (dicts by header)."""
    out = {}
    for fmt in ('json', 'csv'):
        r = subprocess.run([binary] + args + ['-q', '-o', fmt], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit('%s -o %s: exit %d: %s' % (' '.join(args), fmt, r.returncode, r.stderr))
        out[fmt] = r.stdout
    return json.loads(out['json']), list(csv.DictReader(io.StringIO(out['csv'])))


def main():
    binary = os.path.abspath(sys.argv[1])
    # fit: a row per IsoFLOP budget of Approach 2, Approach 3's law beside each, the approaches asked for listed.
    doc, rows = both(binary, ['fit', RUNS, '--approach', '2,3'])
    budgets = doc['approach2']['budgets']
    expect(len(rows) == len(budgets) > 1, 'fit: one row per Approach 2 budget (%d rows, %d budgets)' %
           (len(rows), len(budgets)))
    expect(all(float(row['approach2.budgets.params_opt']) == b['params_opt'] for row, b in zip(rows, budgets)),
           'fit: each row\'s N_opt is its budget\'s, exactly')
    expect(all(float(row['approach3.alpha']) == doc['approach3']['alpha'] for row in rows),
           'fit: Approach 3\'s alpha beside every row')
    expect([int(rows[0]['inputs.approaches.%d' % i]) for i in range(2)] == doc['inputs']['approaches'],
           'fit: the approaches asked for as indexed columns')
    expect(not any(k.startswith('runs.points') for k in rows[0]), 'fit: the run points (the input file) are not echoed')
    # Only Approach 3: no budgets table, one row.
    doc, rows = both(binary, ['fit', RUNS, '--approach', '3'])
    expect(len(rows) == 1 and float(rows[0]['approach3.E']) == doc['approach3']['E'], 'fit --approach 3: one row')
    # optimal: a row per allocation.
    doc, rows = both(binary, ['optimal', '--flops', '5.76e23', '--all-laws'])
    expect(len(rows) == len(doc['allocations']) and
           [float(r['allocations.params']) for r in rows] == [a['params'] for a in doc['allocations']],
           'optimal --all-laws: a row per allocation with its N')
    # catalog trainers: a row per trainer; DeepSpeed's fourth ZeRO stage is a column beside the other three.
    doc, rows = both(binary, ['catalog', 'trainers'])
    header = list(rows[0].keys())
    stages = ['entries.rules.zero_stages.stages.%d' % i for i in range(4)]
    expect(all(s in header for s in stages) and
           header.index(stages[3]) == header.index(stages[2]) + 1 == header.index(stages[1]) + 2,
           'catalog trainers: the ZeRO stages\' columns side by side')
    expect([[int(r[s]) for s in stages if r[s] != ''] for r in rows] ==
           [e['rules']['zero_stages']['stages'] for e in doc['entries']],
           'catalog trainers: each row\'s stages are its trainer\'s')
    return finish()


if __name__ == '__main__':
    sys.exit(main())
