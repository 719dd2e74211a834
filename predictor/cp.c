/* predictor/cp.c: context parallelism (cp), the sequence split over cp GPUs
 * (Megatron-Core --context-parallel-size with --cp-comm-type p2p, Transformer
 * Engine's attention with context parallelism; torchtitan's
 * context_parallel_degree, PyTorch's ring attention). How the keys and
 * values move is the stack's (job.cp_comm): the p2p ring below, an
 * all-gather up front, or an all-to-all over heads (each cited at its
 * function); a stack without cp refuses cp > 1 (rule stack-cp).
 *
 * Tokens: each cp rank holds seq / cp tokens of every sequence, as two
 * chunks of seq / (2 cp) (chunks i and 2cp-1-i: causal load balancing,
 * megatron/training/utils.py get_batch_on_this_cp_rank), so every operator
 * outside the attention core, and every activation, sees seq / cp tokens.
 *
 * Attention (TE transformer_engine/pytorch/attention.py,
 * AttnFuncWithCPAndKVP2P): cp steps around a ring; at each step a rank runs
 * flash attention of its seq / cp queries against one rank's seq / cp keys
 * while it sends that KV block on and receives the next. With the balanced
 * chunks every step computes the same causal half-block, (seq/cp)^2 / 2
 * query-key pairs, so the cp steps together do seq^2 / (2 cp): the causal
 * work split evenly. The exchange of step i overlaps the attention of step
 * i; what it cannot hide, cp - 1 times, is exposed. Backward runs the ring
 * again, sending KV and the KV gradients (twice the bytes) under a backward
 * step 2.5x the forward (pred.c, FlashAttention-2). The ring's link is the
 * cp group's: tp is innermost in Megatron's rank order, then cp
 * (megatron/core/parallel_state.py), so the group stays in one NVLink
 * domain while tp * cp fits in it and otherwise crosses the NICs.
 * Communication kernels running beside the attention slow it by the link
 * tier's interference factor (tpo.c, pred_overlap).
 *
 * Data parallel: Megatron reduces gradients, and the distributed optimizer
 * shards its states, over the data-parallel group with context parallelism,
 * dp * cp ranks (parallel_state.get_data_parallel_group(
 * with_context_parallel=True)); torchtitan's FSDP shards over dp_shard_cp. */
#include "predictor/pred.h"

#include <math.h>

double pred_tokens(const struct pred_ctx *c, const struct plan *p)
{
    return (double)p->mbs * (double)c->job.seq / (double)p->cp;
}

int64_t pred_grad_ranks(const struct plan *p)
{
    return (int64_t)p->dp * p->cp;
}

bool pred_cp_inter(const struct pred_ctx *c, const struct plan *p)
{
    return (int64_t)p->tp * p->cp > c->k.domain;
}

int pred_cp_auto(const struct pred_ctx *c, int64_t max_gpus, int32_t *out,
                 int cap)
{
    int n = 0;
    out[n++] = 1;
    for (int64_t cp = 2; cp <= max_gpus && n < cap && c->limits.stack_cp;
         cp *= 2) {
        if (c->job.seq % (2 * cp) || c->job.seq / cp < PLAN_CP_MIN_TOKENS)
            break;
        out[n++] = (int32_t)cp;
    }
    return n;
}

/* The width of K (and of V) the attention sees: the kv heads' (Megatron-
 * Core and Transformer Engine run grouped-query attention natively), or
 * every query head's where the model repeats K and V before the attention
 * (the job's repeat_kv: torchtitan/models/llama/model.py @ 9dec370
 * Attention.forward, keys = repeat_kv(xk, self.n_rep) before
 * F.scaled_dot_product_attention), so that the ring exchanges and merges
 * the repeated tensors. */
static double kv_width(const struct pred_ctx *c)
{
    return (double)(c->job.repeat_kv ? model_q_dim(&c->model)
                                     : model_kv_dim(&c->model));
}

/* One KV block of one step: K and V of seq / cp tokens over the rank's
 * heads (kv_width), 16-bit (TE keeps attention in 16-bit under FP8
 * recipes). */
static double kv_block_bytes(const struct pred_ctx *c, const struct plan *p)
{
    return pred_tokens(c, p) * 2.0 * kv_width(c) / (double)p->tp * 2.0;
}

/* The cp group: cp ranks spaced tp apart, so min(cp, domain / tp) of them
 * share an NVLink domain. */
static int64_t cp_per_domain(const struct pred_ctx *c, const struct plan *p)
{
    int64_t k = p->tp >= c->k.domain ? 1 : c->k.domain / p->tp;
    return k > p->cp ? p->cp : k;
}

static double cp_coll(const struct pred_ctx *c, const struct plan *p,
                      enum pred_coll kind, double bytes)
{
    return pred_coll_s(&c->k, kind, bytes, p->cp, cp_per_domain(c, p));
}

/* p2p: the ring, each step's exchange beside that step's attention. */
static void ring_p2p(const struct pred_ctx *c, const struct plan *p,
                     double f, double b, struct pred_layer *o)
{
    double steps = (double)p->cp, kv, u, extra, exposed;
    kv = pred_p2p_s(&c->k, kv_block_bytes(c, p), pred_cp_inter(c, p));
    u = pred_interference(pred_cp_inter(c, p));
    pred_overlap(f, kv, u, 1, &extra, &exposed);
    o->fwd_s[PRED_OP_ATTN] = steps * f + (steps - 1.0) * extra;
    o->fwd_s[PRED_OP_CP_COMM] = (steps - 1.0) * exposed;
    pred_overlap(b, 2.0 * kv, u, 1, &extra, &exposed);
    o->bwd_s[PRED_OP_ATTN] = steps * b + (steps - 1.0) * extra;
    o->bwd_s[PRED_OP_CP_COMM] = (steps - 1.0) * exposed;
}

/* The KV gradients' way back in PyTorch's ring attention (the stack's
 * cp_merge_eager; _attention.py _templated_ring_attention_backward):
 * whatever the KV's rotate method, dkv_rotater is _RotateMethod.ALL_TO_ALL,
 * a point-to-point ring: after each step the fp32 running dK, dV
 * (accum_dtype float32 with convert_to_f32, the default) go to the next
 * rank, twice a KV block's 16-bit bytes, and the next step waits for them
 * after its own attention backward; the last ones are waited for after the
 * loop. So cp - 1 sends run beside a step's backward b and one is exposed
 * whole. Transformer Engine's all-gather variant reduce-scatters the
 * 16-bit KV gradients once after the last step (AttnFuncWithCPAndKV
 * AllGather.backward). */
static double dkv_back(const struct pred_ctx *c, const struct plan *p,
                       double b, double *extra_s)
{
    double steps = (double)p->cp, all = steps * kv_block_bytes(c, p);
    double u = pred_interference(pred_cp_inter(c, p)), send, extra, exposed;
    *extra_s = 0;
    if (!c->job.cp_merge_eager)
        return cp_coll(c, p, PRED_COLL_REDUCESCATTER, all);
    send = pred_p2p_s(&c->k, 2.0 * kv_block_bytes(c, p), pred_cp_inter(c, p));
    pred_overlap(b, send, u, 1, &extra, &exposed);
    *extra_s = (steps - 1.0) * extra;
    return (steps - 1.0) * exposed + send;
}

/* allgather (PyTorch's ring attention with rotate method "allgather",
 * torch/distributed/tensor/experimental/_attention.py _AllGatherRotater;
 * Megatron --cp-comm-type allgather): the whole sequence's KV gathered at
 * once, overlapped with the first (local) step only; backward gathers it
 * again, and the KV gradients go back as dkv_back says. */
static void gather_kv(const struct pred_ctx *c, const struct plan *p,
                      double f, double b, struct pred_layer *o)
{
    double steps = (double)p->cp, all = steps * kv_block_bytes(c, p);
    double ag = cp_coll(c, p, PRED_COLL_ALLGATHER, all);
    double u = pred_interference(pred_cp_inter(c, p)), extra, exposed, dkv, dx;
    pred_overlap(f, ag, u, 1, &extra, &exposed);
    o->fwd_s[PRED_OP_ATTN] = steps * f + extra;
    o->fwd_s[PRED_OP_CP_COMM] = exposed;
    pred_overlap(b, ag, u, 1, &extra, &exposed);
    dkv = dkv_back(c, p, b, &dx);
    o->bwd_s[PRED_OP_ATTN] = steps * b + extra + dx;
    o->bwd_s[PRED_OP_CP_COMM] = exposed + dkv;
}

/* a2a (DeepSpeed-Ulysses, Jacobs et al. 2023, sec. 3; Megatron
 * --cp-comm-type a2a): all-to-all q, k and v from sequence- to
 * head-sharded before the attention and the output back after it, the
 * gradients likewise backward, none of it overlapped; the attention runs
 * the whole sequence on heads / cp, the same causal work as the ring. An
 * all-to-all of a rank's L bytes over n ranks moves (n-1)/n L per rank, as
 * an all-gather of an L-byte buffer does (NCCL tests PERFORMANCE.md). */
static void heads_a2a(const struct pred_ctx *c, const struct plan *p,
                      double f, double b, struct pred_layer *o)
{
    double tok = pred_tokens(c, p), t = (double)p->tp;
    double h = (double)c->model.hidden, kv = kv_width(c);
    double qkv = cp_coll(c, p, PRED_COLL_ALLGATHER, 2.0 * tok * (h + 2.0 * kv) / t);
    double out = cp_coll(c, p, PRED_COLL_ALLGATHER, 2.0 * tok * h / t);
    o->fwd_s[PRED_OP_ATTN] = (double)p->cp * f;
    o->bwd_s[PRED_OP_ATTN] = (double)p->cp * b;
    o->fwd_s[PRED_OP_CP_COMM] = o->bwd_s[PRED_OP_CP_COMM] = qkv + out;
}

/* The eager merges of PyTorch's ring attention (the stack's
 * cp_merge_eager; torch/distributed/tensor/experimental/_attention.py,
 * _templated_ring_attention and _SDPAMerger with convert_to_f32, the
 * default): each step's partial output is converted to fp32
 * (out.to(torch.float32): read 2, write 4 bytes an element) and folded
 * into the running output, out - sigmoid(block_lse - lse) * (out -
 * block_out), three element-wise kernels (read 8 write 4, read 4 write 4,
 * read 8 write 4): 38 bytes an element of the rank's output; the KV are
 * concatenated for the rotation every step (torch.cat: read 2, write 2 a
 * KV element); the first step's output is converted (6) and the result
 * cast back (read 4, write 2). The last cp rank merges its whole output at
 * every step (i <= rank: the full query against the first KV chunk; rank
 * 0's steps take half the query and a cat), and it paces the group:
 * forward (cp - 1)(38 E + 4 KV) + 12 E bytes, E = the rank's tokens x q
 * width / tp, KV = tokens x 2 kv width / tp. Backward
 * (_templated_ring_attention_backward) accumulates every step's query and
 * KV gradients into fp32 buffers (read 4 + 2, write 4: 10 bytes an
 * element), concatenates the KV gradients for their rotation (read 4,
 * write 4) and the KV again (4), and casts the sums back (6 each):
 * cp (10 E + 22 KV) + 6 (E + KV) bytes. */
static void merge_eager(const struct pred_ctx *c, const struct plan *p,
                        struct pred_layer *o)
{
    double tok = pred_tokens(c, p), t = (double)p->tp, cp = (double)p->cp;
    double e = tok * (double)model_q_dim(&c->model) / t;
    double kv = tok * 2.0 * kv_width(c) / t;
    o->fwd_s[PRED_OP_ATTN] += pred_mem_s(&c->k, pred_cp_merge_bytes(e, kv, cp, 0),
                                         5.0 * cp);
    o->bwd_s[PRED_OP_ATTN] += pred_mem_s(&c->k, pred_cp_merge_bytes(e, kv, cp, 1),
                                         5.0 * cp);
}

double pred_cp_merge_bytes(double e, double kv, double cp, int bwd)
{
    if (bwd)
        return cp * (10.0 * e + 22.0 * kv) + 6.0 * (e + kv);
    return (cp - 1.0) * (38.0 * e + 4.0 * kv) + 12.0 * e;
}

void pred_cp_attention(const struct pred_ctx *c, const struct plan *p,
                       struct pred_layer *o)
{
    double f = o->fwd_s[PRED_OP_ATTN], b = o->bwd_s[PRED_OP_ATTN];
    if (p->cp == 1)
        return;
    if (c->job.cp_comm == JOB_CP_ALLGATHER)
        gather_kv(c, p, f, b, o);
    else if (c->job.cp_comm == JOB_CP_A2A)
        heads_a2a(c, p, f, b, o);
    else
        ring_p2p(c, p, f, b, o);
    if (c->job.cp_merge_eager)
        merge_eager(c, p, o);
}
