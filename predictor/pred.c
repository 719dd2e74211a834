/* predictor/pred.c: the prediction context (pred_ctx_init) and the times of
 * one transformer layer's operators for one micro-batch (pred_layer_time),
 * step 1 of ../shared/DESIGN.md "The plan and its cost". The operators'
 * names, parts and launch counts are data in ops.c; compose.c builds the
 * iteration from these times, mem.c the memory, flops.c the FLOPs.
 *
 * Layer (per micro-batch of T = mbs * seq tokens, per GPU of a tp group):
 * Megatron-LM's tensor-parallel layer (Shoeybi et al. 2019, sec. 3): QKV and
 * MLP-up are column-parallel, out-proj and MLP-down row-parallel, so each GEMM
 * has one dimension divided by tp; a backward GEMM is a data-gradient and a
 * weight-gradient GEMM of the same FLOPs. Two all-reduces forward and two
 * backward; with sequence parallelism each becomes an all-gather plus a
 * reduce-scatter of the same total volume, and norms, residuals and dropout
 * run on T/tp tokens instead of T (Korthikanti et al. 2023, sec. 4.2.2).
 * Flash attention: causal forward 2 b s^2 (a/t) d FLOPs (half of the dense
 * 4 b s^2 (a/t) d), backward 2.5x the forward (Dao 2023, FlashAttention-2,
 * sec. 3: five matmuls backward vs two forward).
 * Context parallelism (cp.c): every operator runs on T / cp tokens; the
 * attention core in cp ring steps of seq / cp queries against seq / cp keys.
 * TP communication overlap (tpo.c) replaces the collectives' time by what
 * the GEMMs beside them cannot hide. */
#include "predictor/pred.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predictor/flops.h"

/* MFU's denominator: the dense peak at the job's precision (the 16-bit peak
 * for FP8 jobs on GPUs without FP8). */
static double job_peak_flops(const struct hw_system *hw,
                             enum job_precision prec)
{
    return prec == JOB_PREC_FP8 && hw->fp8_flops > 0 ? hw->fp8_flops
         : prec == JOB_PREC_FP16 ? hw->fp16_flops
         : hw->bf16_flops;
}

/* FP8 GEMMs need FP8 tensor cores (Hopper and later; the A100 has none:
 * NVIDIA A100 datasheet, hardware-facts.md sec. 1, fp8_tflops 0), and
 * Transformer Engine refuses FP8 below compute capability 8.9
 * (transformer_engine/pytorch/fp8.py check_fp8_support: "Device compute
 * capability 8.9 or higher required for FP8 execution"). Timing such a job
 * at the 16-bit rate while its memory counts FP8 weights would describe a
 * run that cannot start. */
int pred_precision_check(const struct hw_system *hw, const struct job *j,
                         struct tpl_err *err)
{
    if (j->precision != JOB_PREC_FP8 || hw->fp8_flops > 0)
        return 0;
    return tpl_errorf(err, TPL_EUSAGE, "fp8: %s's %s has no FP8 tensor "
                      "cores (gpu.fp8_tflops 0)", hw->name, hw->gpu_name);
}

void pred_ctx_init(struct pred_ctx *c, const struct model *m,
                   const struct hw_system *hw, const struct job *j,
                   bool tp_cross_node)
{
    memset(c, 0, sizeof *c);
    c->model = *m;
    c->hw = *hw;
    c->job = *j;
    pred_kernels_init(&c->k, hw, j->precision != JOB_PREC_FP8 ? PRED_GEMM_16BIT
                                 : j->fp8_delayed ? PRED_GEMM_FP8_DELAYED
                                 : PRED_GEMM_FP8);
    c->peak_flops = job_peak_flops(hw, j->precision);
    c->model_flops = pred_model_flops(m, j);
    c->params = (double)model_params(m);
    for (int r = 0; r < PLAN_RECOMPUTE_COUNT; r++)
        c->hw_flops[r] = pred_hw_flops(m, j, (enum plan_recompute)r);
    c->limits = (struct plan_limits){ .tp_domain = hw->nvlink_domain,
                                      .tp_cross_node = tp_cross_node,
                                      .host_link = hw->host_bytes_per_s > 0,
                                      PLAN_ANY_STACK };
}

void pred_ctx_set_stack(struct pred_ctx *c, const char *name,
                        const struct plan_limits *stack, struct pred_band band)
{
    snprintf(c->stack, sizeof c->stack, "%s", name);
    c->band = band;
    c->limits.stack_zero = stack->stack_zero;
    c->limits.stack_zero_pp = stack->stack_zero_pp;
    c->limits.stack_overlap = stack->stack_overlap;
    c->limits.stack_1f1b = stack->stack_1f1b;
    c->limits.stack_interleaved = stack->stack_interleaved;
    c->limits.split = stack->split;
    c->limits.stack_tpo = stack->stack_tpo;
    c->limits.stack_cp = stack->stack_cp;
    c->limits.stack_ep = stack->stack_ep;
    c->limits.stack_epo = stack->stack_epo;
    c->limits.ep_mesh = stack->ep_mesh;
    c->limits.stack_rc_block = stack->stack_rc_block;
    c->limits.stack_offload = stack->stack_offload;
}

void pred_band_apply(struct pred_band b, double t, double *low, double *high)
{
    *low = t / (1 + b.hi);
    *high = t / (1 + b.lo);
}

static bool beyond(double v, double lo, double hi)
{
    return v * PRED_BAND_REACH < lo || v > hi * PRED_BAND_REACH;
}

/* "a, b" of the region's architectures. */
static void arch_list(const struct stack_region *r, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n_archs && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", r->archs[i]);
}

bool pred_band_outside(const struct pred_band *b, double gpus, double params,
                       const char *arch, char *why, size_t n)
{
    const struct stack_region *r = &b->region;
    double pb = params / 1e9;
    bool none = r->gpus_hi <= 0, far_g, far_p, far_a;
    char archs[STACK_MAX_ARCHS * (STACK_ARCH_LEN + 2)], on[sizeof archs + 64];
    far_g = !none && beyond(gpus, r->gpus_lo, r->gpus_hi);
    far_p = !none && beyond(pb, r->params_b_lo, r->params_b_hi);
    far_a = !none && r->n_archs > 0 && !stack_region_lists(r, arch);
    if (!why)                   /* the search's path: no text */
        return none || far_g || far_p || far_a;
    arch_list(r, archs, sizeof archs);
    snprintf(on, sizeof on, "%s%s (validated on %s)", *arch ? arch : "a GPU without gpu.arch",
             *arch ? " GPUs" : "", archs);
    if (why && none)
        snprintf(why, n, "the stack has no validated region");
    else if (why && (far_g || far_p))
        snprintf(why, n, "outside the validated region (%.0f-%.0f GPUs, "
                 "%.3g-%.4g B parameters, x%.0f either way): %.0f GPUs, "
                 "%.4g B%s%s; range widened x%.1f", r->gpus_lo, r->gpus_hi,
                 r->params_b_lo, r->params_b_hi, PRED_BAND_REACH, gpus, pb,
                 far_a ? ", on " : "", far_a ? on : "", PRED_BAND_WIDEN);
    else if (why && far_a && *arch)
        snprintf(why, n, "outside the validated region: no row of this stack "
                 "ran on %s; range widened x%.1f", on, PRED_BAND_WIDEN);
    else if (why && far_a)
        snprintf(why, n, "outside the validated region: the system names no "
                 "gpu.arch and the stack was validated only on %s GPUs; range "
                 "widened x%.1f", archs, PRED_BAND_WIDEN);
    else if (why && n)
        why[0] = '\0';
    return none || far_g || far_p || far_a;
}

struct pred_band pred_band_widen(struct pred_band b)
{
    double mid = (b.lo + b.hi) / 2;
    b.lo = fmax(mid - PRED_BAND_WIDEN * (mid - b.lo), -0.9);
    b.hi = mid + PRED_BAND_WIDEN * (b.hi - mid);
    return b;
}

/* ---- one layer ---- */


/* Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 sec. 2.1;
 * Megatron-Core transformer/multi_latent_attention.py): the down
 * projections of q (h -> q_lora) and of kv (h -> kv_lora + rope) are
 * duplicated on every tp rank, over all T tokens; the up projections
 * (q_lora -> heads (nope + rope), kv_lora -> heads (nope + v)) are
 * column-parallel, the output projection (heads v -> h) row-parallel. */
static void mla_gemm_time(const struct pred_ctx *c, const struct plan *p,
                          double in, struct pred_layer *o)
{
    const struct model *m = &c->model;
    const struct model_mla *a = &m->mla;
    double t = (double)p->tp, tok = pred_tokens(c, p), h = (double)m->hidden;
    double n = (double)m->heads / t, qk = (double)(a->qk_nope_dim + a->qk_rope_dim);
    double f, b, ql = (double)a->q_lora_rank, kvl = (double)a->kv_lora_rank;
    double *qf = &o->fwd_s[PRED_OP_QKV], *qb = &o->bwd_s[PRED_OP_QKV];
    double *qd = &o->dgrad_s[PRED_OP_QKV];
    if (ql > 0) {
        pred_gemm_fb(&c->k, tok, ql, h, in, qf, qb, qd);
        pred_gemm_fb(&c->k, tok, n * qk, ql, in, &f, &b, qd);
        o->mla_up_s = f;
    } else
        pred_gemm_fb(&c->k, tok, n * qk, h, in, &f, &b, qd);
    *qf += f;
    *qb += b;
    pred_gemm_fb(&c->k, tok, kvl + (double)a->qk_rope_dim, h, in, &f, &b, qd);
    *qf += f;
    *qb += b;
    pred_gemm_fb(&c->k, tok, n * (double)(a->qk_nope_dim + a->v_dim), kvl, in,
                 &f, &b, qd);
    *qf += f;
    *qb += b;
    o->mla_up_s += f;
    pred_gemm_add(c, PRED_OP_PROJ, tok, h, n * (double)a->v_dim, 1, o);
}

/* The MLP's width in a layer of this kind: the dense FFN, or in an MoE
 * layer its shared experts (0: none, and no MLP operators). */
static double mlp_width(const struct model *m, bool moe)
{
    return (double)(moe ? m->moe.shared_ffn_hidden : m->ffn_hidden);
}

/* QKV and MLP-up column-parallel (N / tp), out-proj and MLP-down
 * row-parallel (K / tp). */
static void gemm_time(const struct pred_ctx *c, const struct plan *p,
                      bool moe, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double t = (double)p->tp, tok = pred_tokens(c, p);
    double h = (double)m->hidden, kv = (double)model_kv_dim(m);
    double q = (double)model_q_dim(m);  /* h unless head_dim says otherwise */
    double f = mlp_width(m, moe), in = c->job.precision == JOB_PREC_FP8
                                     ? 1.0 : 2.0;
    if (m->mla.kv_lora_rank > 0)
        mla_gemm_time(c, p, in, o);
    else {
        pred_gemm_add(c, PRED_OP_QKV, tok, (q + 2.0 * kv) / t, h, 1, o);
        pred_gemm_add(c, PRED_OP_PROJ, tok, h, q / t, 1, o);
    }
    if (f <= 0)
        return;
    pred_gemm_add(c, PRED_OP_FC1, tok, (m->glu ? 2.0 : 1.0) * f / t, h, 1, o);
    pred_gemm_add(c, PRED_OP_FC2, tok, h, f / t, 1, o);
}

/* Per head: the width flash attention runs q.k at and the width of v.
 * MLA's heads are nope + rope wide for q and k and v_dim for v; others
 * head_dim both. */
static void head_widths(const struct model *m, double *dqk, double *dv)
{
    if (m->mla.kv_lora_rank > 0) {
        *dqk = (double)(m->mla.qk_nope_dim + m->mla.qk_rope_dim);
        *dv = (double)m->mla.v_dim;
    } else
        *dqk = *dv = (double)model_head_dim(m);
}

/* The share of a full causal attention's work a layer does on average:
 * sliding-window layers (every sliding_every-th) see w keys, a causal
 * query on average w - w^2 / (2 s) of them against s / 2 (Beltagy et al.,
 * "Longformer", arXiv 2004.05150 sec. 3.1; GPT-OSS alternates them). */
static double attn_share(const struct model *m, double s)
{
    double w = (double)m->sliding_window, every, win;
    if (w <= 0 || w >= s)
        return 1.0;
    every = (double)(m->sliding_every > 0 ? m->sliding_every : 1);
    win = (w - w * w / (2.0 * s)) / (s / 2.0);
    return (win + (every - 1.0)) / every;
}

static void flash_attn_time(const struct pred_ctx *c, const struct plan *p,
                            double *fwd, double *bwd)
{
    const struct model *m = &c->model;
    double b = (double)p->mbs, s = (double)c->job.seq / p->cp;  /* a step */
    /* flash kernels are built for head dims in steps of 32 (FlashAttention-2
     * supports 32 ... 256): a head of 80 runs as 96 (kernel.h pred_flash_s) */
    double at = (double)m->heads / p->tp, dqk, dv, d;
    double kvh = m->mla.kv_lora_rank > 0 ? at : (double)m->kv_heads / p->tp;
    double tok = b * s;
    struct pred_flash_shape sh;
    head_widths(m, &dqk, &dv);
    d = (ceil(dqk / 32.0) * 32.0 + ceil(dv / 32.0) * 32.0) / 2.0;
    sh = (struct pred_flash_shape){
        .b = b, .heads = at, .lq = s, .lk = s, .d = (dqk + dv) / 2.0,
        .causal = true, .share = attn_share(m, (double)c->job.seq),
        .io_bytes = 2.0 * tok * (2.0 * at * d + kvh * (dqk + dv)),  /* q, o; k, v */
    };
    *fwd = pred_flash_s(&c->k, 0, &sh);
    *bwd = pred_flash_s(&c->k, 1, &sh);
}

/* The PyTorch fallback (fused_softmax.py forward_torch_softmax, softmax in
 * fp32 as the attention asks with query-key layer scaling, Megatron's
 * default: transformer.py "if self.apply_query_key_layer_scaling:
 * self.attention_softmax_in_fp32 = True"): input.float() (read 2, write 4
 * bytes a score), input * scale (4, 4), the causal mask_func's masked_fill_
 * (4 and the 1-byte mask, 4), torch softmax (4, 4), .half() (4, 2): five
 * kernels; backward their gradients: the cast (2, 4), softmax backward
 * (the output and its gradient, 4 + 4, 4), masked_fill (4 + 1, 4), the
 * scale (4, 4), the cast (4, 2). The two softmaxes at the system's softmax
 * fit (kernel.h pred_memop_rows_s), the rest memory-bound. */
static void torch_softmax_s(const struct pred_ctx *c, double scores, double s,
                            double *fwd, double *bwd)
{
    *fwd = pred_mem_s(&c->k, (6.0 + 8.0 + 9.0 + 6.0) * scores, 4) +
           pred_memop_rows_s(&c->k, HW_MEMOP_SOFTMAX, 0, 8.0 * scores,
                             scores / s, s, 1);
    *bwd = pred_mem_s(&c->k, (6.0 + 9.0 + 8.0 + 6.0) * scores, 4) +
           pred_memop_rows_s(&c->k, HW_MEMOP_SOFTMAX, 1, 12.0 * scores,
                             scores / s, s, 1);
}

/* baddbmm QK^T and bmm AV: by the system's batched-GEMM fit where it has
 * one (kernel.c pred_unfused_bmm_s, fitted on the baddbmm / bmm samples),
 * else at GEMM efficiency; the fused masked softmax (and dropout) is
 * memory-bound over b (a/t) s^2 scores */
static void unfused_attn_time(const struct pred_ctx *c, const struct plan *p,
                              double *fwd, double *bwd)
{
    const struct model *m = &c->model;
    double b = (double)p->mbs, s = (double)c->job.seq / p->cp;  /* a step */
    double at = (double)m->heads / p->tp;
    struct pred_kparams bmm = c->k.gemm;
    double dh = (double)model_head_dim(m);          /* no padding here */
    double flops = 2.0 * b * at * s * s * dh, scores = b * at * s * s;
    /* bytes: the softmax's read and write (backward y, dy, dx); attention
     * dropout is a kernel of its own (torch dropout on the probabilities:
     * read, write them and a 1-byte mask; backward read dy, mask, write) */
    double sm_f = 4.0 * scores, sm_b = 6.0 * scores;
    double dr_f = m->dropout ? pred_mem_s(&c->k, 5.0 * scores, 1) : 0;
    double dr_b = m->dropout ? pred_mem_s(&c->k, 5.0 * scores, 1) : 0;
    bmm.peak_flops = c->k.attn.peak_flops;
    /* the softmax at the system's fit of Megatron's fused masked softmax
     * (ScaledUpperTriangMaskedSoftmax samples: a warp per row of s scores,
     * kernel.h pred_memop_rows_s) where it has one */
    double mm_f, mm_b;
    if (c->k.has_bgemm) {       /* the system's batched-GEMM fit (kernel.c) */
        mm_f = pred_unfused_bmm_s(&c->k, 0, b * at, s, dh);
        mm_b = pred_unfused_bmm_s(&c->k, 1, b * at, s, dh);
    } else {
        mm_f = 2.0 * pred_compute_s(&c->k, &bmm, flops, 2.0 * scores);
        mm_b = 4.0 * pred_compute_s(&c->k, &bmm, flops, 2.0 * scores);
    }
    if (!pred_fused_softmax(&c->job, m, p)) {
        torch_softmax_s(c, scores, s, &sm_f, &sm_b);
        *fwd = mm_f + dr_f + sm_f;
        *bwd = mm_b + dr_b + sm_b;
        return;
    }
    *fwd = mm_f + dr_f +
           pred_memop_rows_s(&c->k, HW_MEMOP_MASKED_SOFTMAX, 0, sm_f, scores / s, s, 1);
    *bwd = mm_b + dr_b +
           pred_memop_rows_s(&c->k, HW_MEMOP_MASKED_SOFTMAX, 1, sm_b, scores / s, s, 1);
}

static void attn_time(const struct pred_ctx *c, const struct plan *p,
                      struct pred_layer *o)
{
    double *fwd = &o->fwd_s[PRED_OP_ATTN], *bwd = &o->bwd_s[PRED_OP_ATTN];
    if (c->job.attention == JOB_ATTN_FLASH)
        flash_attn_time(c, p, fwd, bwd);
    else
        unfused_attn_time(c, p, fwd, bwd);
    pred_cp_attention(c, p, o);
}

/* Bytes moved by the memory-bound operators (2-byte activations): norms
 * and residual adds over the tokens each GPU holds (T/tp with sp). */
static void norm_residual_time(const struct pred_ctx *c, const struct plan *p,
                               struct pred_layer *o)
{
    const struct model *m = &c->model;
    const struct pred_kernels *k = &c->k;
    double t = (double)p->tp, tok = pred_tokens(c, p);
    double rows = p->sp ? tok / t : tok;        /* tokens each GPU normalises */
    double h = (double)m->hidden;
    double mask = m->dropout ? 2.0 * rows * h : 0.0;
    /* two norms: read x, write y; backward read x and dy, write dx, then
     * read x and dy again for the weight (and bias) gradient reduction */
    /* (RMSNorm borrows the fused layernorm's fit: the same row reduction
     * and traffic, one statistic less) */
    o->fwd_s[PRED_OP_NORM] = pred_memop_row_s(k, HW_MEMOP_NORM, 0,
                                              2.0 * 4.0 * rows * h, 2, 2, h);
    o->bwd_s[PRED_OP_NORM] = pred_memop_row_s(k, HW_MEMOP_NORM, 1,
                                              2.0 * 10.0 * rows * h, 2, 4, h);
    /* two (bias-dropout-)adds: read 2, write 1; backward read 2, write 1 */
    o->fwd_s[PRED_OP_RESIDUAL] = pred_memop_s(k, HW_MEMOP_RESADD, 0,
                                              2.0 * 6.0 * rows * h + mask, 2, 2);
    o->bwd_s[PRED_OP_RESIDUAL] = pred_memop_s(k, HW_MEMOP_RESADD, 1,
                                              2.0 * 6.0 * rows * h + mask, 2, 2);
}

/* Rotary embedding and activation, over the tp-split heads and ffn. */
static void rope_act_time(const struct pred_ctx *c, const struct plan *p,
                          bool moe, struct pred_layer *o)
{
    const struct model *m = &c->model;
    const struct pred_kernels *k = &c->k;
    double t = (double)p->tp, tok = pred_tokens(c, p);
    double ft = mlp_width(m, moe) / t;
    double qk = tok * (double)(model_q_dim(m) + model_kv_dim(m)) / t;
    /* rotary: read and write q and k, both ways */
    o->fwd_s[PRED_OP_ROPE] = m->position == MODEL_POS_ROPE
                           ? pred_mem_s(k, 4.0 * qk, 2) : 0.0;
    o->bwd_s[PRED_OP_ROPE] = o->fwd_s[PRED_OP_ROPE];
    /* GeLU: read f, write f; back read 2f, write f. SwiGLU: read 2f, write f;
     * back read 3f, write 2f; the samples have no SwiGLU, which borrows the
     * gelu fit: one elementwise pass over the MLP's hidden either way */
    if (ft <= 0)
        return;
    o->fwd_s[PRED_OP_ACT] = pred_memop_s(k, HW_MEMOP_GELU, 0,
                                         (m->glu ? 6.0 : 4.0) * tok * ft, 1, 1);
    o->bwd_s[PRED_OP_ACT] = pred_memop_s(k, HW_MEMOP_GELU, 1,
                                         (m->glu ? 10.0 : 6.0) * tok * ft, 1, 1);
}
/* Tier for a tp group: tp is innermost in Megatron's rank order, so a group
 * stays in one NVLink domain unless tp exceeds it. */
static void tp_comm_time(const struct pred_ctx *c, const struct plan *p,
                         bool moe, struct pred_layer *o)
{
    /* an MoE layer without shared experts has attention's half only */
    double half = moe && mlp_width(&c->model, moe) <= 0 ? 0.5 : 1.0;
    double bytes = pred_tokens(c, p) * (double)c->model.hidden * 2.0;
    int64_t k = p->tp < c->k.domain ? p->tp : c->k.domain;
    double t, ag, rs;
    if (p->tp == 1) {
        o->fwd_s[PRED_OP_TP_COMM] = o->bwd_s[PRED_OP_TP_COMM] = 0;
        return;
    }
    ag = pred_coll_s(&c->k, PRED_COLL_ALLGATHER, bytes, p->tp, k);
    rs = pred_coll_s(&c->k, PRED_COLL_REDUCESCATTER, bytes, p->tp, k);
    if (p->sp && p->tpo) {      /* overlapped with the GEMMs (tpo.c) */
        pred_tpo_layer(c, p, half * ag, half * rs, bytes, o);
        return;
    }
    if (p->sp)
        t = 2.0 * (ag + rs);
    else
        t = 2.0 * pred_coll_s(&c->k, PRED_COLL_ALLREDUCE, bytes, p->tp, k);
    o->fwd_s[PRED_OP_TP_COMM] = o->bwd_s[PRED_OP_TP_COMM] = half * t;
}

/* The host issues kernels one by one; when issuing them takes longer than
 * running them (small layers, eager frameworks), the GPU waits. A layer's
 * kernels differ in size: where its host time H nears its GPU time G the
 * host paces the short kernels while the long ones run ahead of it, so
 * the layer takes the soft maximum (H^p + G^p)^(1/p), not max(H, G): the
 * knee p of the system's eager-call samples (kernel.h pred_host_knee: the
 * rotary's, a Python-issued kernel sequence timed whole, fitted on kernel
 * samples, not on runs; the hard maximum without them). The exposed wait
 * is that less G. With CUDA_LAUNCH_BLOCKING=1 every launch returns only
 * when its kernel has run (CUDA C++ Programming Guide, "Asynchronous
 * Concurrent Execution": the variable disables asynchronous launches), so
 * the host's time per kernel adds to the GPU's: all of it is waited for. */
static double host_exposed(const struct pred_ctx *c, double launches,
                           double gpu_s, int bwd)
{
    double host = launches * c->job.host_s;
    if (c->job.launch_blocking)
        return host;
    if (host <= 0)
        return 0.0;
    return fmax(0.0, pred_soft_max(host, gpu_s, pred_host_knee(&c->k, bwd)) - gpu_s);
}

static void host_wait(const struct pred_ctx *c, const struct plan *p,
                      struct pred_layer *o)
{
    double nf, nb;
    pred_layer_launches(c, p, &nf, &nb);
    o->fwd_s[PRED_OP_HOST] = host_exposed(c, nf, o->fwd_total_s, 0);
    o->bwd_s[PRED_OP_HOST] = host_exposed(c, nb, o->bwd_total_s, 1);
    o->fwd_total_s += o->fwd_s[PRED_OP_HOST];
    o->bwd_total_s += o->bwd_s[PRED_OP_HOST];
}

/* The layer's totals: every operator but the host wait, which is measured
 * against them. */
static void sum_totals(struct pred_layer *o)
{
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (pred_ops[i].kind != PRED_KIND_HOST) {
            o->fwd_total_s += o->fwd_s[i];
            o->bwd_total_s += o->bwd_s[i];
        }
}

/* torchtitan's op-level selective checkpointing (torchtitan/parallelisms/
 * parallelize_llama.py @ 9dec370, _apply_ac_to_transformer_block with
 * selective_ac_option "op"): the outputs of the ops on its save list (mm,
 * flash and efficient attention, reduce-scatter) are kept, except every
 * second mm of a block; every other op runs again in the backward. A
 * Llama block's mms in order are wq wk wv wo w1 w3 w2 (w1 w2 without a
 * gate), so wk, wo and w3 (w2) are rebuilt, the attention is not, and the
 * norms, rotary, activation, residual adds and the sequence-parallel
 * all-gathers (not on the list) are; an all-gather takes what its
 * reduce-scatter takes (same bytes and ring factor), half the tp part. */
static void op_sac_time(const struct pred_ctx *c, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double q = (double)model_q_dim(m), kv = (double)model_kv_dim(m);
    double mm = o->fwd_s[PRED_OP_QKV] * kv / (q + 2.0 * kv) +
                o->fwd_s[PRED_OP_PROJ] +
                (m->glu ? o->fwd_s[PRED_OP_FC1] / 2.0 : o->fwd_s[PRED_OP_FC2]);
    o->recompute_comm_s = o->fwd_s[PRED_OP_TP_COMM] / 2.0;
    o->recompute_s = mm + o->fwd_s[PRED_OP_NORM] + o->fwd_s[PRED_OP_ROPE] +
                     o->fwd_s[PRED_OP_ACT] + o->fwd_s[PRED_OP_RESIDUAL] +
                     o->recompute_comm_s;
}

/* Megatron's selective modules (job.h; what they keep: mem.c) run their
 * forward again before their backward: core_attn the attention (its cp
 * ring too), layernorm the two norms, mla_up_proj MLA's up projections
 * and rotary, mlp a dense layer's MLP, shared_experts an MoE layer's, moe_act
 * the experts' activation, moe the whole MoE layer (router, permutation,
 * dispatch and combine, experts, shared experts). */
static double module_time(const struct pred_ctx *c, const struct plan *p,
                          bool moe, const struct pred_layer *o)
{
    const double *f = o->fwd_s;
    double t = 0, mlp = f[PRED_OP_FC1] + f[PRED_OP_ACT] + f[PRED_OP_FC2];
    const struct job *j = &c->job;
    if (pred_rc_has(j, p, JOB_RC_CORE_ATTN))
        t += f[PRED_OP_ATTN] + f[PRED_OP_CP_COMM];
    if (pred_rc_has(j, p, JOB_RC_LAYERNORM))
        t += f[PRED_OP_NORM];
    if (pred_rc_has(j, p, JOB_RC_MLA_UP_PROJ) && c->model.mla.kv_lora_rank > 0)
        t += o->mla_up_s + f[PRED_OP_ROPE];
    if (!moe)
        return t + (pred_rc_has(j, p, JOB_RC_MLP) ? mlp : 0.0);
    if (pred_rc_has(j, p, JOB_RC_MOE))
        return t + mlp + f[PRED_OP_ROUTER] + f[PRED_OP_PERMUTE] +
               f[PRED_OP_DISPATCH] + f[PRED_OP_EXPERT_UP] +
               f[PRED_OP_EXPERT_ACT] + f[PRED_OP_EXPERT_DOWN] +
               f[PRED_OP_COMBINE];
    return t + (pred_rc_has(j, p, JOB_RC_SHARED_EXPERTS) ? mlp : 0.0) +
           (pred_rc_has(j, p, JOB_RC_MOE_ACT) ? f[PRED_OP_EXPERT_ACT] : 0.0);
}

/* Selective recompute runs the job's modules again (above) or the
 * stack's op-level policy, full recompute the whole forward, its tp
 * collectives included (counted as tp communication; the cp exchange it
 * repeats counts as recompute). */
static void recompute_time(const struct pred_ctx *c, const struct plan *p,
                           bool moe, struct pred_layer *o)
{
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE &&
        c->job.selective == JOB_SELECTIVE_OP)
        op_sac_time(c, o);
    else if (p->recompute == PLAN_RECOMPUTE_SELECTIVE)
        o->recompute_s = module_time(c, p, moe, o);
    else if (p->recompute == PLAN_RECOMPUTE_FULL) {
        o->recompute_s = o->fwd_total_s;
        for (int i = 0; i < PRED_OP_COUNT; i++)     /* the tp part's */
            if (pred_ops[i].part == PRED_PART_TP_COMM)
                o->recompute_comm_s += o->fwd_s[i];
    }
}

void pred_layer_time_kind(const struct pred_ctx *c, const struct plan *p,
                          bool moe, struct pred_layer *o)
{
    memset(o, 0, sizeof *o);
    gemm_time(c, p, moe, o);
    pred_separate_proj(c, p, moe, o);
    pred_fp8_cast_layer(c, p, moe, o);
    attn_time(c, p, o);
    norm_residual_time(c, p, o);
    rope_act_time(c, p, moe, o);
    tp_comm_time(c, p, moe, o);
    if (moe)
        pred_moe_layer(c, p, o);
    sum_totals(o);
    if (moe && pred_moe_host_applies(c))
        pred_moe_host_wait(c, p, o);
    else
        host_wait(c, p, o);
    recompute_time(c, p, moe, o);
}

void pred_layer_time(const struct pred_ctx *c, const struct plan *p,
                     struct pred_layer *o)
{
    pred_layer_time_kind(c, p, model_is_moe(&c->model), o);
}
