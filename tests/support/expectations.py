"""What the Python tests share: each expectation is recorded as it is met ('ok   what', or 'FAIL what'; with
print_passes(False) only failures are printed), and finish() prints the count of failures and gives the exit
status (0 when none failed)."""

failures = []
_printing_passes = [True]


def print_passes(on):
    """Whether met expectations are printed too (a test with thousands of them prints only its failures)."""
    _printing_passes[0] = on


def fail(what):
    failures.append(what)
    print('FAIL ' + what)


def expect(ok, what):
    if not ok:
        fail(what)
    elif _printing_passes[0]:
        print('ok   ' + what)


def finish():
    print('%d failures' % len(failures))
    return 1 if failures else 0
