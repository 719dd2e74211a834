#!/usr/bin/env python3
"""hardware/sampling/sample_ops.py: time transformer operators on one GPU
for `trainplan calibrate`, in the format of ../shared/data/kernel-samples.

Every operator file of that set is written, with its shapes defined as
there (the file README names what runs), except the fused Megatron kernel
ScaledUpperTriangMaskedSoftmax, which needs Megatron's compiled extension
and is left out (the file is not written; calibrate says so). Times are
medians of CUDA-event timings in microseconds: the forward alone, then the
backward alone on the retained graph (not a difference of two timings).
Each run is queued behind a GPU spin (torch.cuda._sleep, --queue-ms or
three times the host's launch time of the operator, the longer) so that
the events time the kernels back to back, not the host's launches: the
published set's times are the profiler's kernel times.

Shapes are drawn at random (PCG32, --seed, a stream per operator) from the
published set's ranges widened to the shapes of 405B-class models (hidden
up to 16384, sequences up to 8192, micro-batches 1 to 8); each operator
samples until its share of --budget-s is spent, so one run fits a fixed
time. Writes OUT/operator/<GPU>_<op>_fp16.csv (the published names, in
whatever --dtype), an empty OUT/operator/<GPU>.csv summary, and
OUT/versions.txt (device, driver, CUDA, cuBLAS, cuDNN, PyTorch, dtype).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

VOCAB = 50257                       # the published set's GPT-2 vocabulary


def vocab_part(mp):
    """Megatron's vocabulary padding: to 128 per tensor-parallel rank."""
    return math.ceil(VOCAB / (128 * mp)) * 128


class PCG32:
    """O'Neill's PCG32 (XSH RR), the generator of common/rng.h."""
    MUL, MASK = 6364136223846793005, (1 << 64) - 1

    def __init__(self, seed, stream):
        self.inc = ((stream << 1) | 1) & self.MASK
        self.state = 0
        self.next()
        self.state = (self.state + seed) & self.MASK
        self.next()

    def next(self):
        old = self.state
        self.state = (old * self.MUL + self.inc) & self.MASK
        x = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((x >> rot) | (x << ((-rot) & 31))) & 0xFFFFFFFF

    def choice(self, seq):
        return seq[self.next() % len(seq)]

    def randint(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


class Timer:
    """Median GPU time of a callable, its kernels queued behind a spin.

    CUDA events time the stream, so a gap while the host is still
    launching (an autograd call spends 100-400 us in Python and the engine
    before its first kernel) would count as the operator's time: the first
    H100 set (hardware/samples/h100-sxm5/README.md) lost short backwards
    to that: its spin was sized at the idle clock (345 MHz before the run,
    so about 0.17 ms at the 1980 MHz boost) and only for operators under
    2 ms.
    The spin is now sized after a boost-clock warm-up and made three times
    the host's own launch time of the callable, measured on each (__call__)."""

    def __init__(self, queue_ms, warmup, reps, target_ms):
        self.queue_ms, self.warmup, self.reps, self.target_ms = (
            queue_ms, warmup, reps, target_ms)
        self.cycles_per_ms = 0

    def calibrate_spin(self):
        """Cycles of torch.cuda._sleep a millisecond, at the boost clock."""
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        for _ in range(50):             # ~0.1 s of matmuls: clocks up
            x @ x
        s.record()
        torch.cuda._sleep(20_000_000)
        e.record()
        torch.cuda.synchronize()
        self.cycles_per_ms = 20_000_000 / s.elapsed_time(e)

    def once(self, fn, spin_ms):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(int(spin_ms * self.cycles_per_ms))
        s.record()
        t0 = time.perf_counter()
        fn()
        host_ms = (time.perf_counter() - t0) * 1e3
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e), host_ms

    def __call__(self, fn):
        """Median microseconds of fn(); fewer repetitions for long ones.
        The first call (allocations, library handles) only warms up; the
        spin is three times the median host time of the warm-up calls
        after it, at least --queue-ms and at most 20 ms."""
        first, _ = self.once(fn, self.queue_ms)
        hosts = sorted(self.once(fn, self.queue_ms)[1]
                       for _ in range(self.warmup if first < 20 else 1))
        spin = min(20.0, max(self.queue_ms, 3.0 * hosts[len(hosts) // 2]))
        reps = max(3, min(self.reps, int(self.target_ms / max(first, 1e-3))))
        t = sorted(self.once(fn, spin)[0] for _ in range(reps))
        return t[len(t) // 2] * 1000.0


def fwd_bwd(timer, fn, inputs):
    """(forward us, backward us): fn(*inputs), then autograd on its graph."""
    out = fn(*inputs)
    grad = torch.rand_like(out)
    need = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    t_f = timer(lambda: fn(*inputs))
    t_b = timer(lambda: torch.autograd.grad(out, need, grad, retain_graph=True))
    return t_f, t_b


DATA = {"fill": torch.rand}          # --data: uniform [0, 1) or normal


def rnd(shape, dtype, grad=True):
    return DATA["fill"](*shape, device="cuda", dtype=dtype, requires_grad=grad)


# ---- the operators, shaped as the published set's (README of kernel-samples) ----

def op_linear(which, dt, mp, b, l, dim):
    """linear1 QKV (with bias), linear2 out-proj, linear3 up, linear4 down."""
    n_in, n_out = {1: (dim, 3 * dim // mp), 2: (dim // mp, dim),
                   3: (dim, 4 * dim // mp), 4: (4 * dim // mp, dim)}[which]
    x, w = rnd((l, b, n_in), dt), rnd((n_out, n_in), dt)
    if which == 1:
        bias = rnd((n_out,), dt)
        return (lambda x, w, bias: F.linear(x, w, bias)), (x, w, bias)
    return (lambda x, w: F.linear(x, w)), (x, w)


def op_linear_final(dt, mp, b, l, dim):
    x, w = rnd((l, b, dim), dt), rnd((vocab_part(mp), dim), dt)
    return (lambda x, w: F.linear(x, w)), (x, w)


def op_flash(dt, mp, b, h, l, dim):
    """Flash attention, not causal (as the published set's flash_attn_func)."""
    q, k, v = (rnd((b, h // mp, l, dim // h), dt) for _ in range(3))
    return (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), (q, k, v)


def op_layernorm(dt, b, l, dim):
    x, w, bias = rnd((l, b, dim), dt), rnd((dim,), dt), rnd((dim,), dt)
    return (lambda x, w, bias: F.layer_norm(x, (dim,), w, bias)), (x, w, bias)


def op_rmsnorm(dt, b, l, dim):
    """Megatron / GPT-NeoX's eager RMSNorm: x / (||x|| d^-1/2 + eps) * g."""
    x, g = rnd((l, b, dim), dt), rnd((dim,), dt)

    def f(x, g):
        rms = x.norm(2, dim=-1, keepdim=True) * dim ** -0.5
        return g * (x / (rms + 1e-8))
    return f, (x, g)


def op_gelu(dt, mp, b, l, dim):
    x = rnd((l, b, 4 * dim // mp), dt)
    return (lambda x: F.gelu(x)), (x,)


def op_resadd(dt, b, l, dim):
    x, y = rnd((l, b, dim), dt), rnd((l, b, dim), dt)
    return (lambda x, y: x + y), (x, y)


def op_rope(dt, mp, b, h, l, dim):
    """Eager rotary embedding of q and k ([l, b, h / mp, d]), cos / sin
    tables made once (cached, as GPT-NeoX's RotaryEmbedding)."""
    d = dim // h
    q, k = rnd((l, b, h // mp, d), dt), rnd((l, b, h // mp, d), dt)
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device="cuda").float() / d))
    ang = torch.outer(torch.arange(l, device="cuda").float(), inv)
    ang = torch.cat((ang, ang), dim=-1)
    cos, sin = ang.cos()[:, None, None, :].to(dt), ang.sin()[:, None, None, :].to(dt)

    def half(x):
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def f(q, k):
        return (q * cos + half(q) * sin) - (k * cos + half(k) * sin)
    return f, (q, k)


def op_softmax(dt, mp, b, h, l):
    x = rnd((b, h // mp, l, l), dt)
    return (lambda x: torch.softmax(x, dim=-1)), (x,)


def op_baddbmm(dt, mp, b, h, l, dim):
    bt, d = b * h // mp, dim // h
    c = torch.empty((bt, l, l), device="cuda", dtype=dt)
    q, k = rnd((bt, l, d), dt), rnd((bt, d, l), dt)
    return (lambda q, k: torch.baddbmm(c, q, k, beta=0.0, alpha=1.0)), (q, k)


def op_bmm(dt, mp, b, h, l, dim):
    bt, d = b * h // mp, dim // h
    s, v = rnd((bt, l, l), dt), rnd((bt, l, d), dt)
    return (lambda s, v: torch.bmm(s, v)), (s, v)


class VocabParallelXent(torch.autograd.Function):
    """Megatron's vocab-parallel cross-entropy on one rank (its all-reduces
    are no-ops at one rank): max, shift, exp, sum, target logit; backward
    the softmax minus the one-hot, times the incoming gradient."""

    @staticmethod
    def forward(ctx, logits, target):
        m = logits.max(dim=-1, keepdim=True)[0]
        z = logits - m
        pred = z.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        e = z.exp()
        s = e.sum(dim=-1, keepdim=True)
        e.div_(s)
        ctx.save_for_backward(e, target)
        return s.squeeze(-1).log() - pred

    @staticmethod
    def backward(ctx, g):
        p, target = ctx.saved_tensors
        dx = p.clone()
        dx.scatter_add_(-1, target.unsqueeze(-1),
                        torch.full_like(target.unsqueeze(-1), -1, dtype=p.dtype))
        return dx.mul_(g.unsqueeze(-1)), None


def op_xent(dt, mp, b, l):
    x = rnd((b, l, vocab_part(mp)), dt)
    t = torch.randint(0, vocab_part(mp), (b, l), device="cuda")
    return (lambda x: VocabParallelXent.apply(x, t)), (x,)


def time_fillmask(timer, dt, mp, b, h, l, dim):
    """Causal masked fill of the scores in place; backward its gradient
    (the autograd formula of masked_fill_: grad.masked_fill(mask, 0))."""
    sc = rnd((b, h // mp, l, l), dt, grad=False)
    mask = torch.ones((1, 1, l, l), device="cuda").tril() < 0.5
    g = torch.rand_like(sc)
    return timer(lambda: sc.masked_fill_(mask, 0)), timer(lambda: g.masked_fill(mask, 0))


def time_embedding(timer, dt, mp, b, l, dim):
    v = vocab_part(mp)
    table = torch.nn.Embedding(v, dim, device="cuda", dtype=dt)
    idx = torch.randint(0, v, (b, l), device="cuda")
    out = table(idx)
    grad = torch.rand_like(out)
    t_f = timer(lambda: table(idx))
    t_b = timer(lambda: torch.autograd.grad(out, [table.weight], grad, retain_graph=True))
    return t_f, t_b


def stage_tensors(stage, mp, dim, enc):
    """The parameter tensors of a GPT pipeline stage (the published set's
    stage simulator): per layer QKV, out, up, down weights and biases and
    two norms' weights and biases; the embedding on the first stage, the
    final norm and LM head on the last."""
    d = dim
    layer = [(3 * d // mp, d), (3 * d // mp,), (d, d // mp), (d,), (4 * d // mp, d),
             (4 * d // mp,), (d, 4 * d // mp), (d,), (d,), (d,), (d,), (d,)]
    shapes = layer * enc
    if stage == "first":
        shapes = [(vocab_part(mp), d)] + shapes
    if stage == "last":
        shapes = shapes + [(d,), (d,), (vocab_part(mp), d)]
    return shapes


def time_optimizer(timer, dt, stage, mp, dim, enc):
    """One Adam step (torch's fused multi-tensor kernel) over the stage's
    16-bit parameters and states."""
    params = [torch.nn.Parameter(torch.rand(*s, device="cuda", dtype=dt))
              for s in stage_tensors(stage, mp, dim, enc)]
    for p in params:
        p.grad = torch.rand_like(p)
    opt = torch.optim.Adam(params, lr=1e-4, fused=True)
    return timer(opt.step)


# ---- the shape draws ----

DIMS = [2048 + 512 * i for i in range(13)] + [10240, 12288, 14336, 16384]
SEQS = [1024 + 512 * i for i in range(15)]          # 1024 .. 8192
MPS, BS = [1, 2, 4, 8], [1, 2, 4, 8]


def draw(r, kind):
    """One shape for an operator kind, or None where it breaks a rule."""
    mp, b, l, dim = r.choice(MPS), r.choice(BS), r.choice(SEQS), r.choice(DIMS)
    hd = r.choice([64, 128])
    h = dim // hd
    if kind == "rows":                      # norms, residual add
        return (b, l, dim) if b * l * dim <= 2 ** 30 else None
    if kind in ("linear", "gelu", "embed"):
        return (mp, b, l, dim) if dim % mp == 0 else None
    if kind == "heads":                     # flash, RoPE
        return (mp, b, h, l, dim) if h % mp == 0 else None
    if kind in ("scores", "softmax"):       # tensors of b h / mp l^2 scores
        if h % mp or b * h // mp * l * l > 2 ** 30:
            return None
        return (mp, b, h, l) if kind == "softmax" else (mp, b, h, l, dim)
    if kind == "xent":
        return (mp, b, l)
    if kind == "stage":
        enc = r.randint(1, 12)
        n = enc * 12 * dim * dim // mp + 2 * vocab_part(mp) * dim
        return (mp, dim, enc) if n <= 2.5e9 and dim % mp == 0 else None
    raise ValueError(kind)


def gemm_ms(op, mp, b, l, dim):
    """The forward's time at 600 TF/s, to skip shapes too long to time."""
    n = {"linear1": 3 * dim // mp, "linear2": dim, "linear3": 4 * dim // mp,
         "linear4": dim, "linear_final": vocab_part(mp)}[op]
    k = {"linear2": dim // mp, "linear4": 4 * dim // mp}.get(op, dim)
    return 2.0 * b * l * n * k / 600e12 * 1e3


HEAD = {"linear": ["mp", "b", "l", "dim"], "rows": ["b", "l", "dim"],
        "heads": ["mp", "b", "h", "l", "dim"], "softmax": ["mp", "b", "h", "l"],
        "xent": ["mp", "b", "l"], "stage": ["mp", "dim", "encoders"]}


def plan(dt, timer):
    """(file operator name, shape kind, header kind, share of budget, run)."""
    lin = lambda w: lambda s: fwd_bwd(timer, *op_linear(w, dt, *s))
    fb = lambda mk: lambda s: fwd_bwd(timer, *mk(dt, *s))
    opt = lambda st: lambda s: (time_optimizer(timer, dt, st, *s),)
    return [
        ("linear1", "linear", "linear", 8, lin(1)),
        ("linear2", "linear", "linear", 7, lin(2)),
        ("linear3", "linear", "linear", 8, lin(3)),
        ("linear4", "linear", "linear", 8, lin(4)),
        ("flash_atten", "heads", "heads", 13, fb(op_flash)),
        ("layernorm", "rows", "rows", 3, fb(op_layernorm)),
        ("RMSlayernorm", "rows", "rows", 3, fb(op_rmsnorm)),
        ("gelu", "gelu", "linear", 4, fb(op_gelu)),
        ("res_add", "rows", "rows", 2, fb(op_resadd)),
        ("linear_final", "linear", "linear", 6, fb(op_linear_final)),
        ("RoPE", "heads", "heads", 5, fb(op_rope)),
        ("softmax", "softmax", "softmax", 4, fb(op_softmax)),
        ("baddbmm", "scores", "heads", 5, fb(op_baddbmm)),
        ("bmm", "scores", "heads", 5, fb(op_bmm)),
        ("fillmask", "scores", "heads", 3, lambda s: time_fillmask(timer, dt, *s)),
        ("embedding", "embed", "linear", 3, lambda s: time_embedding(timer, dt, *s)),
        ("parallel_cross_entropy_128", "xent", "xent", 3, fb(op_xent)),
        ("firstStage_optimizer", "stage", "stage", 3, opt("first")),
        ("middleStage_optimizer", "stage", "stage", 3, opt("middle")),
        ("lastStage_optimizer", "stage", "stage", 3, opt("last")),
    ]


def versions(path, dtype):
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,"
                          "clocks.max.sm,clocks.max.mem,power.limit", "--format=csv"],
                         capture_output=True, text=True).stdout.strip()
    try:
        from importlib.metadata import version
        cublas = version("nvidia-cublas")
    except Exception:               # not a pip-installed cuBLAS
        cublas = "unknown"
    p = torch.cuda.get_device_properties(0)
    with open(path, "w") as f:
        f.write("device: %s, %d SMs, %.1f GiB\n" % (p.name, p.multi_processor_count,
                                                    p.total_memory / 2 ** 30))
        f.write("nvidia-smi:\n%s\n" % smi)
        f.write("torch %s, CUDA %s, cuDNN %s, cuBLAS (wheel) %s, python %s\n" % (
            torch.__version__, torch.version.cuda, torch.backends.cudnn.version(),
            cublas, sys.version.split()[0]))
        f.write("dtype %s; flash attention: torch SDPA, flash backend only\n" % dtype)
        f.write("date %s\n" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="bf16", choices=["fp16", "bf16"])
    ap.add_argument("--budget-s", type=float, default=400.0)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--only", default="", help="comma-separated operator files")
    ap.add_argument("--queue-ms", type=float, default=1.0)
    ap.add_argument("--data", default="rand", choices=["rand", "randn"],
                    help="tensor contents: uniform [0, 1) as the published set, or "
                         "normal (a tensor core's power, so its clock, depends on it)")
    args = ap.parse_args()
    DATA["fill"] = torch.randn if args.data == "randn" else torch.rand
    dt = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    gpu = torch.cuda.get_device_name().replace(" ", "")
    opdir = os.path.join(args.out, "operator")
    os.makedirs(opdir, exist_ok=True)
    versions(os.path.join(args.out, "versions.txt"), args.dtype + ", data " + args.data)
    with open(os.path.join(opdir, gpu + ".csv"), "w") as f:
        f.write("GPU,Function,Precision,Propagation,Best_model,Best_config,Best_error%\n")
    timer = Timer(args.queue_ms, warmup=3, reps=15, target_ms=60.0)
    timer.calibrate_spin()
    from torch.nn.attention import sdpa_kernel, SDPBackend
    ops = [o for o in plan(dt, timer) if not args.only or o[0] in args.only.split(",")]
    total = sum(o[3] for o in ops)
    for i, (name, kind, head, share, run) in enumerate(plan(dt, timer)):
        if args.only and name not in args.only.split(","):
            continue
        r = PCG32(args.seed, i)
        budget, t0, rows, seen, skipped = args.budget_s * share / total, time.time(), [], set(), 0
        while time.time() - t0 < budget and skipped < 20000:
            s = draw(r, kind)
            if s is None or s in seen or (name.startswith("linear") and
                                          gemm_ms(name, *s) > 40):
                skipped += 1
                continue
            seen.add(s)
            try:
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    t = run(s)
            except torch.cuda.OutOfMemoryError:
                skipped += 1
                continue
            except Exception as e:      # report, keep sampling the others
                print("%s %s: %s" % (name, s, e), file=sys.stderr)
                break
            finally:
                torch.cuda.empty_cache()
            rows.append(list(s) + [round(x, 3) for x in t])
        cols = HEAD[head] + (["dur(us)"] if head == "stage" else ["F_dur(us)", "B_dur(us)"])
        with open(os.path.join(opdir, "%s_%s_fp16.csv" % (gpu, name)), "w", newline="") as f:
            csv.writer(f).writerows([cols] + rows)
        print("%-28s %5d shapes in %5.1f s" % (name, len(rows), time.time() - t0), flush=True)
    print("wrote", opdir)


if __name__ == "__main__":
    main()
