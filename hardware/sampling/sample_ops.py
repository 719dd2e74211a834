#!/usr/bin/env python3
"""hardware/sampling/sample_ops.py: time transformer operators on one GPU
for `trainplan calibrate` (format of ../shared/data/kernel-samples).

Each operator runs forward, then backward on a random gradient; times are
CUDA-event medians over --reps runs after --warmup runs, in microseconds.
"""
import argparse
import csv
import itertools
import os
import random

import torch
import torch.nn.functional as F

try:
    from flash_attn import flash_attn_func  # FlashAttention-2
except ImportError:
    flash_attn_func = None


def timed(fn, warmup, reps):
    """Median time of fn() in microseconds (CUDA events)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def fwd_bwd(make, warmup, reps):
    """(forward us, backward us) of the op built by make() -> (fn, inputs)."""
    fn, inputs = make()
    out = fn(*inputs)
    grad = torch.randn_like(out)
    t_f = timed(lambda: fn(*inputs), warmup, reps)

    def backward():
        o = fn(*inputs)
        torch.autograd.grad(o, [x for x in inputs if x.requires_grad], grad)
    t_fb = timed(backward, warmup, reps)
    return t_f, max(t_fb - t_f, 0.0)


def tensor(shape, dtype, grad=True):
    return torch.randn(*shape, device="cuda", dtype=dtype, requires_grad=grad)


def linear_op(which, mp, b, l, dim, dtype):
    """linear1 QKV, linear2 out-proj, linear3 MLP up, linear4 MLP down."""
    n_in, n_out = {1: (dim, 3 * dim // mp), 2: (dim // mp, dim),
                   3: (dim, 4 * dim // mp), 4: (4 * dim // mp, dim)}[which]

    def make():
        x = tensor((l, b, n_in), dtype)
        w = tensor((n_out, n_in), dtype)
        return (lambda x, w: F.linear(x, w)), (x, w)
    return make


def flash_op(mp, b, h, l, dim, dtype):
    heads, d = h // mp, dim // h

    def make():
        q, k, v = (tensor((b, l, heads, d), dtype) for _ in range(3))
        if flash_attn_func is not None:   # non-causal, as the published set
            return (lambda q, k, v: flash_attn_func(q, k, v)), (q, k, v)
        return (lambda q, k, v: F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))), (q, k, v)
    return make


def layernorm_op(b, l, dim, dtype):
    def make():
        x = tensor((l, b, dim), dtype)
        w, bias = tensor((dim,), dtype), tensor((dim,), dtype)
        return (lambda x, w, bias: F.layer_norm(x, (dim,), w, bias)), (x, w, bias)
    return make


def gelu_op(mp, b, l, dim, dtype):
    def make():
        x = tensor((l, b, 4 * dim // mp), dtype)
        return (lambda x: F.gelu(x)), (x,)
    return make


def resadd_op(b, l, dim, dtype):
    def make():
        x, y = tensor((l, b, dim), dtype), tensor((l, b, dim), dtype)
        return (lambda x, y: x + y), (x, y)
    return make


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--max-samples", type=int, default=400,
                    help="shapes per operator, drawn from the grid (seed 42)")
    args = ap.parse_args()
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    gpu = torch.cuda.get_device_name().replace(" ", "")
    opdir = os.path.join(args.out, "operator")
    os.makedirs(opdir, exist_ok=True)
    open(os.path.join(opdir, gpu + ".csv"), "w").write(
        "GPU,Function,Precision,Propagation,Best_model,Best_config,Best_error%\n")
    print("flash attention:", "flash_attn" if flash_attn_func else "torch SDPA")
    rnd = random.Random(42)
    grid = list(itertools.product([1, 2, 4, 8], [1, 2, 4],
                                  [1024, 2048, 4096, 8192],
                                  [2048, 3072, 4096, 5120, 6144, 8192, 12288, 16384]))
    rnd.shuffle(grid)
    grid = [g for g in grid if g[3] % g[0] == 0][:args.max_samples]
    # the file names keep the published "_fp16" whatever the dtype
    name = lambda op: os.path.join(opdir, "%s_%s_fp16.csv" % (gpu, op))
    for which in (1, 2, 3, 4):
        rows = []
        for mp, b, l, dim in grid:
            f, bw = fwd_bwd(linear_op(which, mp, b, l, dim, dtype), args.warmup, args.reps)
            rows.append([mp, b, l, dim, round(f, 2), round(bw, 2)])
        write(name("linear%d" % which), ["mp", "b", "l", "dim", "F_dur(us)", "B_dur(us)"], rows)
    rows = []
    for mp, b, l, dim in grid:
        h = dim // 128
        if h % mp == 0:
            f, bw = fwd_bwd(flash_op(mp, b, h, l, dim, dtype), args.warmup, args.reps)
            rows.append([mp, b, h, l, dim, round(f, 2), round(bw, 2)])
    write(name("flash_atten"), ["mp", "b", "h", "l", "dim", "F_dur(us)", "B_dur(us)"], rows)
    rows_g, rows_n, rows_r = [], [], []
    for mp, b, l, dim in grid:
        f, bw = fwd_bwd(gelu_op(mp, b, l, dim, dtype), args.warmup, args.reps)
        rows_g.append([mp, b, l, dim, round(f, 2), round(bw, 2)])
        if mp == 1:
            f, bw = fwd_bwd(layernorm_op(b, l, dim, dtype), args.warmup, args.reps)
            rows_n.append([b, l, dim, round(f, 2), round(bw, 2)])
            f, bw = fwd_bwd(resadd_op(b, l, dim, dtype), args.warmup, args.reps)
            rows_r.append([b, l, dim, round(f, 2), round(bw, 2)])
    write(name("gelu"), ["mp", "b", "l", "dim", "F_dur(us)", "B_dur(us)"], rows_g)
    write(name("layernorm"), ["b", "l", "dim", "F_dur(us)", "B_dur(us)"], rows_n)
    write(name("res_add"), ["b", "l", "dim", "F_dur(us)", "B_dur(us)"], rows_r)
    print("wrote", opdir)


if __name__ == "__main__":
    main()
