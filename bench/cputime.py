#!/usr/bin/env python3
"""cputime.py -o FILE CMD [ARG...]: runs CMD (stdin, stdout and stderr as
given) and writes the user + system CPU seconds it and its waited-for
children used to FILE, to the microsecond (os.wait4's rusage), where
/usr/bin/time -f '%U %S' prints 10 ms steps. Exits with CMD's status.
Used by the bench/ scripts (bench_lib.sh)."""
import os
import subprocess
import sys

if len(sys.argv) < 4 or sys.argv[1] != "-o":
    sys.stderr.write("usage: cputime.py -o FILE CMD [ARG...]\n")
    sys.exit(2)
proc = subprocess.Popen(sys.argv[3:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[2], "w") as out:
    out.write(f"{usage.ru_utime + usage.ru_stime:.6f}\n")
sys.exit(os.waitstatus_to_exitcode(status))
