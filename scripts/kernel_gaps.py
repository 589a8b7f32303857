#!/usr/bin/env python3
"""Where a chain of kernels spends its device time, from an Nsight Systems GPU trace (nsys stats -r cuda_gpu_trace
-f csv): the kernels of each name are cut into chains (a gap of more than 50 us starts a new one), and for each name
the script prints the median kernel duration, the median gap between consecutive kernels of a chain, and the median
span of a chain (first start to last end) divided by its kernel count. Usage: kernel_gaps.py LABEL TRACE.csv..."""
import csv
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        lines = [line for line in f if line.count(",") > 3]
    reader = csv.DictReader(lines)
    for row in reader:
        name = row.get("Name") or row.get("Kernel Name") or ""
        start = row.get("Start (ns)")
        duration = row.get("Duration (ns)")
        if not name or start is None or duration is None:
            continue
        try:
            yield name, int(float(start)), int(float(duration))
        except ValueError:
            continue


def chains(kernels):
    current = []
    for start, duration in kernels:
        if current and start - (current[-1][0] + current[-1][1]) > 50_000:
            yield current
            current = []
        current.append((start, duration))
    if current:
        yield current


def main():
    label = sys.argv[1]
    by_name = {}
    for path in sys.argv[2:]:
        for name, start, duration in rows(path):
            if "saxpy" in name:
                by_name.setdefault(name, []).append((start, duration))
    for name, kernels in sorted(by_name.items()):
        kernels.sort()
        kinds = {}
        for chain in chains(kernels):
            if len(chain) < 50:
                continue
            gaps = [chain[i + 1][0] - (chain[i][0] + chain[i][1]) for i in range(len(chain) - 1)]
            # a graph replay's kernels follow each other within about a microsecond; eager ones wait for the host
            kind = "replay" if statistics.median(gaps) < 2000 else "eager"
            k = kinds.setdefault(kind, ([], [], [], []))
            k[0].extend(d for _, d in chain)
            k[1].extend(gaps)
            k[2].append((chain[-1][0] + chain[-1][1] - chain[0][0]) / len(chain))
            k[3].append(len(chain))
        for kind, (durations, gaps, spans, lengths) in sorted(kinds.items()):
            print(f"gaps: {label} kernel={name} kind={kind} chains={len(spans)} "
                  f"kernels_per_chain={statistics.median(lengths):.0f} duration_ns={statistics.median(durations):.0f} "
                  f"gap_ns={statistics.median(gaps):.0f} span_per_kernel_ns={statistics.median(spans):.0f}")


if __name__ == "__main__":
    main()
