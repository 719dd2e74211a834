#!/usr/bin/env python3
# bench/nccl-floor.py: the alpha-beta floor of each collective family in a
# kernel-samples folder: a straight line t = a + b S fitted to each
# nccl/<GPU>_<kind>_fp16_<nodes>_<gpus>.csv on its own (least squares on
# relative errors), its MAPE, and the sample-weighted mean per family and
# tier. No model with one line per configuration does better on a file;
# calibrate's one model per tier over all configurations is compared with
# it in README ("Calibration"). Usage: bench/nccl-floor.py SAMPLES_DIR
import csv, glob, os, sys

def line_mape(rows):
    w = [1 / t / t for _, t in rows]
    sw = sum(w); sx = sum(wi * s for wi, (s, _) in zip(w, rows))
    sy = sum(wi * t for wi, (_, t) in zip(w, rows))
    sxx = sum(wi * s * s for wi, (s, _) in zip(w, rows))
    sxy = sum(wi * s * t for wi, (s, t) in zip(w, rows))
    b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    a = (sy - b * sx) / sw
    return 100 * sum(abs((a + b * s) / t - 1) for s, t in rows) / len(rows)

fam = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'nccl', '*_fp16_*_*.csv'))):
    name = os.path.basename(f)[:-4]
    parts = name.split('_')
    nodes, gpn = int(parts[-2]), int(parts[-1])
    kind = 'allreduce' if 'allreduce' in name else 'allgather' if 'allgather' in name else 'p2p'
    rows = [(float(r['shape']), float(r['dur(us)'])) for r in csv.DictReader(open(f))]
    if nodes * gpn < 2 or len(rows) < 3:
        continue
    m = line_mape(rows)
    key = '%s (%s)' % (kind, 'nodes' if nodes > 1 else 'node')
    fam.setdefault(key, []).append((len(rows), m))
    print('%-50s %5d rows  line MAPE %6.2f %%' % (name, len(rows), m))
for key, v in sorted(fam.items()):
    n = sum(k for k, _ in v)
    print('%-18s floor %.2f %% (%d rows)' % (key, sum(k * m for k, m in v) / n, n))
