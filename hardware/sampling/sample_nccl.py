#!/usr/bin/env python3
"""hardware/sampling/sample_nccl.py: time NCCL all-reduce for `trainplan
calibrate`. Start with torchrun (one process per GPU, on every node):

    torchrun --nnodes N --nproc-per-node G sample_nccl.py --out DIR

Rank 0 writes DIR/nccl/<GPU>_allreduce_large_fp16_<N>_<G>.csv with columns
shape (fp16 elements per rank), nodes, GPUsPerNode, dur(us): the median of
--reps timed calls after --warmup, for message sizes from 1 MiB to 1 GiB.
"""
import argparse
import csv
import os

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    world = dist.get_world_size()
    gpn = int(os.environ.get("LOCAL_WORLD_SIZE", world))
    nodes = world // gpn
    rows = []
    for mib in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]:
        n = mib * 1024 * 1024 // 2
        x = torch.randn(n, device="cuda", dtype=torch.float16)
        for _ in range(args.warmup):
            dist.all_reduce(x)
        times = []
        for _ in range(args.reps):
            dist.barrier()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            dist.all_reduce(x)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        times.sort()
        rows.append([float(n), float(nodes), float(gpn), round(times[len(times) // 2], 1)])
    if dist.get_rank() == 0:
        gpu = torch.cuda.get_device_name().replace(" ", "")
        d = os.path.join(args.out, "nccl")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "%s_allreduce_large_fp16_%d_%d.csv" % (gpu, nodes, gpn))
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["shape", "nodes", "GPUsPerNode", "dur(us)"])
            w.writerows(rows)
        print("wrote", path)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
