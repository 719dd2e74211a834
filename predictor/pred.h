/* predictor/pred.h: memory and iteration time of one plan. A pred_ctx is
 * built once from a model, a system and a job, then read-only and shared by
 * threads; pred_plan() allocates nothing, locks nothing and prints nothing.
 *
 * The time of a plan is composed from per-layer operator times (which depend
 * only on tp, sp, mbs, recompute and the job: pred_layer_time) and the plan's
 * schedule (pipeline, data parallel, optimizer: pred_compose), so a search can
 * memoise the first and pay only the arithmetic of the second per plan. */
#ifndef PRED_H
#define PRED_H

#include <stdbool.h>

#include "hardware/hw.h"
#include "predictor/kernel.h"
#include "spaces/model.h"
#include "spaces/plan.h"
#include "spaces/stack.h"

/* ---- parts of an iteration's time, and the classes they fold into ---- */
enum pred_part { PRED_PART_COMPUTE, PRED_PART_RECOMPUTE, PRED_PART_TP_COMM,
                 PRED_PART_CP_COMM, PRED_PART_EP_COMM, PRED_PART_PP_BUBBLE,
                 PRED_PART_PP_P2P, PRED_PART_DP_EXPOSED, PRED_PART_OPTIMIZER,
                 PRED_PART_COUNT };
/* The three shares people compare systems by (compare, tradeoff, charts). */
enum pred_class { PRED_CLASS_COMPUTE, PRED_CLASS_COMM, PRED_CLASS_BUBBLE,
                  PRED_CLASS_COUNT };
struct pred_part_info {
    const char *name;           /* "pp_bubble": JSON keys, CSV columns */
    enum pred_class cls;        /* the one class its time counts in */
};
extern const struct pred_part_info pred_parts[PRED_PART_COUNT];
const char *pred_part_name(enum pred_part p);   /* "pp_bubble" */
const char *pred_class_name(enum pred_class c); /* "communication" */
/* Sum part_s into class_s, each class's parts added in enum order. */
void pred_parts_fold(const double part_s[PRED_PART_COUNT],
                     double class_s[PRED_CLASS_COUNT]);

/* ---- operators of one transformer layer ---- */
enum pred_op {
    PRED_OP_NORM,               /* both pre-norms */
    PRED_OP_QKV,                /* QKV projection GEMM */
    PRED_OP_ROPE,               /* rotary embedding on q and k */
    PRED_OP_ATTN,               /* attention core: flash, or QK^T+softmax+AV */
    PRED_OP_PROJ,               /* attention output projection GEMM */
    PRED_OP_FC1,                /* MLP up (and gate) GEMM */
    PRED_OP_ACT,                /* GeLU or SwiGLU */
    PRED_OP_FC2,                /* MLP down GEMM */
    /* an MoE layer's routed experts (moe.c); its shared experts run as
     * the MLP above, of their width */
    PRED_OP_ROUTER,             /* router GEMM, softmax / sigmoid and top-k */
    PRED_OP_PERMUTE,            /* token permutation and unpermutation */
    PRED_OP_DISPATCH,           /* all-to-all to the experts' GPUs */
    PRED_OP_EXPERT_UP,          /* grouped GEMM, the experts' up (and gate) */
    PRED_OP_EXPERT_ACT,         /* the experts' activation */
    PRED_OP_EXPERT_DOWN,        /* grouped GEMM, the experts' down */
    PRED_OP_COMBINE,            /* all-to-all back to the tokens' GPUs */
    PRED_OP_RESIDUAL,           /* residual adds (+ bias, dropout) */
    PRED_OP_TP_COMM,            /* tensor-parallel all-reduce / AG + RS
                                   (with tpo: what the GEMMs do not hide) */
    PRED_OP_CP_COMM,            /* context-parallel KV exchange the
                                   attention does not hide (cp.c) */
    PRED_OP_HOST,               /* waiting for the host to issue the kernels */
    PRED_OP_COUNT
};
enum pred_op_kind {
    PRED_KIND_KERNEL,           /* GPU kernels */
    PRED_KIND_COLLECTIVE,       /* collectives over the tp, cp or ep group */
    PRED_KIND_HOST,             /* GPU idle while the host issues the rest:
                                   derived from the others' sum, not in it */
    PRED_KIND_COUNT
};
/* How an operator's kernel count depends on the model and the plan. */
enum pred_launch_rule {
    PRED_LAUNCH_FIXED,          /* always the table's counts */
    PRED_LAUNCH_ROPE,           /* the table's with rotary positions, else 0 */
    PRED_LAUNCH_ATTN,           /* the table's with flash attention; unfused
                                   attention launches more (pred_op_launches) */
    PRED_LAUNCH_TP,             /* 0 at tp 1, the table's for all-reduces,
                                   twice that with sp (all-gather + RS) */
    PRED_LAUNCH_CP,             /* the table's per ring step: cp - 1 times */
    PRED_LAUNCH_MLP,            /* the table's, 0 in an MoE layer without
                                   shared experts */
    PRED_LAUNCH_MOE,            /* the table's in an MoE layer, else 0 */
    PRED_LAUNCH_EXPERTS,        /* the table's per local expert (E / ep) in
                                   an MoE layer, one more each with FP8
                                   (pred_op_launches), else 0 */
    PRED_LAUNCH_COUNT
};
/* Which CUDA-graph scope (job.h enum job_graph) captures an operator's
 * kernels, and where it sits against the MoE dispatcher's host sync
 * (predictor/host.c). */
enum pred_graph { PRED_GRAPH_NONE, PRED_GRAPH_ATTN, PRED_GRAPH_ROUTER,
                  PRED_GRAPH_PREPROCESS, PRED_GRAPH_COUNT };
enum pred_sync_seg {
    PRED_SEG_BEFORE,            /* issued before the layer's sync point */
    PRED_SEG_AFTER,             /* issued after it, while the GPU waits */
    PRED_SEG_COUNT
};
struct pred_op_info {
    const char *name;           /* "qkv": JSON keys and the table */
    enum pred_op_kind kind;
    enum pred_part part;        /* the breakdown part its time counts in */
    int launches_fwd;           /* kernels per layer and micro-batch, */
    int launches_bwd;           /* as the launch rule reads them */
    enum pred_launch_rule launch;
    enum pred_graph graph;      /* the CUDA-graph scope that captures it */
    double graphed;             /* the share of its kernels that scope holds */
    enum pred_sync_seg seg;     /* before or after the dispatcher's sync */
};
extern const struct pred_op_info pred_ops[PRED_OP_COUNT];
const char *pred_op_name(enum pred_op op);      /* "qkv", "tp_comm", ... */

struct pred_layer {             /* one layer, one micro-batch, one GPU */
    double fwd_s[PRED_OP_COUNT];
    double bwd_s[PRED_OP_COUNT];    /* without recompute */
    double fwd_total_s, bwd_total_s;
    double recompute_s;             /* extra backward time from recompute */
    double recompute_comm_s;        /* TP communication inside it */
    double mla_up_s;                /* MLA's up projections, forward (part
                                       of fwd_s[PRED_OP_QKV]) */
    double dgrad_s[PRED_OP_COUNT];  /* a GEMM operator's data-gradient
                                       GEMMs (part of bwd_s; the rest is
                                       the weight gradient): what TP
                                       overlap pairs with (tpo.c) */
};
/* Whether the plan's selective recompute rebuilds Megatron module m (the
 * job's recompute_modules, under the attention policy: torchtitan's
 * op-level policy is its own). */
static inline bool pred_rc_has(const struct job *j, const struct plan *p,
                               enum job_rc_module m)
{
    return p->recompute == PLAN_RECOMPUTE_SELECTIVE &&
           j->selective == JOB_SELECTIVE_ATTENTION &&
           (j->recompute_modules & JOB_RC_BIT(m));
}
/* Unfused attention: whether Megatron's fused masked softmax runs, or its
 * PyTorch fallback (ops.c; its time: pred.c torch_softmax_s). */
bool pred_fused_softmax(const struct job *j, const struct model *m,
                        const struct plan *p);
/* Forward plus backward time of the layer's operators in 'part' (pred_ops),
 * recompute excluded. */
double pred_layer_part_s(const struct pred_layer *l, enum pred_part part);

/* ---- memory per GPU, bytes ---- */
struct pred_mem {
    double weights_bytes, grads_bytes, optimizer_bytes; /* of the worst stage;
                                   with offload, optimizer is what the step
                                   holds beyond the freed activations
                                   (mem.c offload_step_bytes) */
    double activations_bytes;   /* layers' saved activations in flight */
    double embed_logits_bytes;  /* embedding output / fp32 logits */
    double total_bytes;         /* sum of the above */
    double usable_bytes;        /* HBM less the system's reserve */
    double reserve_bytes;
    double headroom_bytes;      /* kept free on top (--headroom), 0 default */
    double margin_bytes;        /* usable - headroom - total (< 0: does not
                                   fit) */
    bool fits;
    int worst_stage;            /* pipeline rank of the worst stage */
};

struct pred_result {            /* a plain value */
    double iteration_s, tokens_per_s, mfu, hfu;
    double iteration_s_low, iteration_s_high;   /* the stack's error band
                                                   around it (pred_band) */
    bool band_outside;          /* outside the band's validated region */
    double model_flops, hw_flops;       /* per iteration, whole job */
    double part_s[PRED_PART_COUNT];     /* sums to iteration_s */
    double stage_fwd_s, stage_bwd_s;    /* slowest stage, one micro-batch */
    int64_t microbatches;
    struct pred_mem mem;
    struct pred_layer layer;
    enum plan_rule rule;                /* PLAN_OK or the first broken rule */
};

/* A stack's error band (spaces/stack.h band_low_pct / band_high_pct):
 * the 10th and 90th percentiles of the cross-validated signed error
 * e = predicted / measured - 1 of its rows, as fractions (lo <= hi, both
 * > -1). For a predicted time t the measured time is expected in
 * [t / (1 + hi), t / (1 + lo)]. Both 0: no band (low = high = t). */
struct pred_band {
    double lo, hi;
    struct stack_region region; /* where lo and hi were validated */
};

/* A prediction is outside the validated region when its GPU count or model
 * size lies more than PRED_BAND_REACH times beyond the region's range (a
 * factor-of-two neighbourhood: "similar scale"), when its GPU's
 * architecture is not one the region's rows ran on (the same system class:
 * a band measured on Hopper says nothing of an A100 or an MI300X), or the
 * stack has no region. Outside a region that exists, the band is widened about its
 * centre by PRED_BAND_WIDEN, the factor calibrate --runs applies to a stack
 * with too few rows of its own (fidelity/band.c): a prediction nothing
 * checked gets the width of a stack nothing checked. */
#define PRED_BAND_REACH 2.0
#define PRED_BAND_WIDEN 1.5

struct pred_ctx {               /* caller-owned; read-only after init */
    struct model model;
    struct hw_system hw;
    struct job job;
    struct pred_kernels k;
    double peak_flops;          /* MFU denominator: dense peak at job precision */
    double model_flops;         /* per iteration */
    double params;              /* model_params of the model */
    double hw_flops[PLAN_RECOMPUTE_COUNT];
    struct plan_limits limits;
    double headroom_bytes;      /* memory kept free: pred_ctx_headroom */
    char stack[64];             /* the stack's name, for reports ("" none) */
    struct pred_band band;      /* the stack's error band ({0, 0} none) */
};

/* Time of one pipeline stage's share for one micro-batch: what the layers,
 * the embedding or the LM head add. */
struct pred_stage {
    double fwd_s, bwd_s;        /* everything, recompute included in bwd */
    double comm_s;              /* tp communication inside fwd + bwd */
    double cp_comm_s;           /* cp KV exchange exposed inside fwd + bwd */
    double ep_comm_s;           /* MoE token all-to-alls inside fwd + bwd */
    double recompute_s;         /* recompute, its communication excluded */
};

/* Everything of a plan's time that depends only on (tp, cp, mbs, sp, tpo,
 * recompute) for a given context: what a search memoises. */
struct pred_memo {
    struct pred_layer layer;    /* most of the model's layers: an MoE layer
                                   for an MoE model */
    struct pred_layer dense;    /* an MoE model's dense layers (zero for a
                                   dense model) */
    struct pred_stage embed;    /* first stage's extra */
    struct pred_stage head;     /* last stage's extra */
};

void pred_ctx_init(struct pred_ctx *c, const struct model *m,
                   const struct hw_system *hw, const struct job *j,
                   bool tp_cross_node);
/* 0 when the system's GPU can run the job's precision; TPL_EUSAGE and the
 * reason otherwise (an FP8 job on a GPU without FP8 tensor cores). */
int pred_precision_check(const struct hw_system *hw, const struct job *j,
                         struct tpl_err *err);
/* Name the stack and take its limits (the stack-* fields of 'stack', as
 * stack_limits fills them) and its error band; pred_ctx_init leaves every
 * schedule and sharding mode allowed, no name and no band. The model and
 * job given to pred_ctx_init already carry the stack's effects
 * (stack_apply). */
void pred_ctx_set_stack(struct pred_ctx *c, const char *name,
                        const struct plan_limits *stack, struct pred_band band);
/* The range [t / (1 + hi), t / (1 + lo)] of a predicted time t. */
void pred_band_apply(struct pred_band b, double t, double *low, double *high);
/* Whether a plan on 'gpus' GPUs of a model of 'params' parameters, on a
 * GPU of architecture 'arch' (the system's gpu.arch, "" none), lies
 * outside the band's validated region; with 'why', one line saying how. */
bool pred_band_outside(const struct pred_band *b, double gpus, double params,
                       const char *arch, char *why, size_t n);
/* The band widened about its centre by PRED_BAND_WIDEN (lo kept > -0.9). */
struct pred_band pred_band_widen(struct pred_band b);

/* Megatron's block recompute (the plan's rc_layers; mem.c stage_act): for
 * plan p with full recompute, the fewest layers per model chunk N whose
 * recompute makes its memory fit (0: it fits without recompute; above the
 * chunks' layers: no N does, full recompute of every layer may), in closed
 * form, nothing allocated; *top gets the most layers a chunk of its worst
 * ranks holds (N >= *top recomputes every layer), *full (may be NULL) the
 * memory of p with every layer recomputed, pred_memory's, from the same
 * pass. Memory falls by the same
 * amount per N below a chunk's layers, so the answer is exact up to
 * rounding, and never above the true one: a search checks it with
 * pred_memory, and one more where it misses. With the optimizer offloaded
 * the need is the activations' peak's (the step's peak does not move with
 * N: where it does not fit, no N does). */
int32_t pred_rc_layers_fit(const struct pred_ctx *c, const struct plan *p,
                           int32_t *top, struct pred_mem *full);
/* With full recompute, the share of the model's layers whose forward runs
 * again: 1, or with rc_layers N the first N of every chunk over the
 * layers (spaces/stages.h stage_first_layers); 1 for other plans. */
double pred_rc_share(const struct pred_ctx *c, const struct plan *p);

/* Memory a plan must leave free beyond the system's reserve (--headroom):
 * 'value' GiB, or with 'pct' that percentage of the GPU's HBM capacity. A
 * plan fits only when its total <= usable - headroom. Fujii et al., arXiv
 * 2411.06465: no run whose estimate was at or below 80 % of capacity ran
 * out of memory in 454 A100/H100 runs, a reason to set 20 %. */
struct pred_headroom {
    double value;               /* GiB, or percent of HBM with pct */
    bool pct;
};
/* The HBM kept off a plan's use: the stack's reserve_gib (job.reserve_bytes)
 * where it gives one, else the system's memory.reserve_gib. */
double pred_reserve_bytes(const struct pred_ctx *c);
/* Set c's headroom (0 after pred_ctx_init) from 'h' and c's HBM. */
void pred_ctx_headroom(struct pred_ctx *c, struct pred_headroom h);

/* The memory model's own error, shown beside each plan's spare memory: the
 * peak-memory MAPE on the published runs that carry a measured peak, the
 * worse of its two sources, bloom_prequel's 71 rows (5.9 %; torchtitan_2412's
 * 15: 5.0 %), as `trainplan validate ../shared/data/runs-dev.csv` prints
 * it (section "memory", "mem MAPE"). In percent of the peak, so it holds
 * for any GPU. */
#define PRED_MEM_ERROR_PCT 5.9
#define PRED_MEM_ERROR_RUNS "bloom_prequel peaks"

/* Kernels operator 'op' of one layer launches for one micro-batch under
 * plan 'p' (its row of pred_ops read by its launch rule), and the sum over
 * all operators: what the host must issue (pred_layer_time's host wait). */
void pred_op_launches(const struct pred_ctx *c, const struct plan *p,
                      enum pred_op op, double *fwd, double *bwd);
void pred_layer_launches(const struct pred_ctx *c, const struct plan *p,
                         double *fwd, double *bwd);
/* ---- the host's wait in an MoE layer (host.c) ---- */
/* Whether the MoE layers pay the host time of their kernels outside CUDA
 * graphs: job.moe_host_s > 0, not an eager stack (job.host_s, pred.c's
 * host wait, covers those) and no full-iteration graph. */
bool pred_moe_host_applies(const struct pred_ctx *c);
/* Kernels the host issues in one pass (bwd) of the layer in segment seg:
 * the operators' launches less what CUDA graphs capture, plus one launch
 * per captured scope (before the sync). */
double pred_host_kernels(const struct pred_ctx *c, const struct plan *p,
                         bool bwd, enum pred_sync_seg seg);
/* The GPU's idle time in the segment from one MoE layer's host sync to
 * the next: h_after, g_after the host's and GPU's time of the part issued
 * after the sync, h_before, g_before of the rest, h one kernel's host
 * time (host.c). */
double pred_host_sync_wait(double h_after, double g_after, double h_before,
                           double g_before, double h);
/* Set o's host wait (PRED_OP_HOST) both ways and add it to its totals. */
void pred_moe_host_wait(const struct pred_ctx *c, const struct plan *p,
                        struct pred_layer *o);


/* Everything about one plan. Numbers are computed even when a rule is broken
 * or memory does not fit (out->rule, out->mem.fits say so); degrees must be
 * >= 1 (PLAN_RULE_DEGREE otherwise, and only 'rule' is set). */
void pred_plan(const struct pred_ctx *c, const struct plan *p,
               struct pred_result *out);

/* The pieces pred_plan is made of. pred_memo_build reads only tp, sp, mbs
 * and recompute of 'p'; pred_compose adds pp, dp, vpp and zero, allocating
 * nothing (out->layer is left alone, out->mem is not computed). */
void pred_layer_time(const struct pred_ctx *c, const struct plan *p,
                     struct pred_layer *out);
/* The same for one kind of layer of an MoE model: an MoE layer (moe true)
 * or a dense one; pred_layer_time is the model's typical layer. */
void pred_layer_time_kind(const struct pred_ctx *c, const struct plan *p,
                          bool moe, struct pred_layer *out);
void pred_memo_build(const struct pred_ctx *c, const struct plan *p,
                     struct pred_memo *out);
void pred_compose(const struct pred_ctx *c, const struct plan *p,
                  const struct pred_memo *memo, struct pred_result *out);
/* The span of 1F1B over pp stages of unequal time (compose.c header):
 * stage_s(arg, k) is rank k's time for one micro-batch, forward and
 * backward; m micro-batches, vpp model chunks per rank. O(pp), two passes,
 * nothing allocated. */
double pred_pipeline_span(int64_t pp, double m, int32_t vpp,
                          double (*stage_s)(void *arg, int64_t rank),
                          void *arg);
/* A lower bound of pred_compose's iteration_s: the pipeline's layer time
 * alone, without ends, communication outside layers, DP and optimizer. */
double pred_time_bound(const struct pred_ctx *c, const struct plan *p,
                       const struct pred_memo *memo);
void pred_memory(const struct pred_ctx *c, const struct plan *p,
                 struct pred_mem *out);

/* ---- context parallelism (cp.c) ---- */
/* Tokens of one micro-batch on one GPU: mbs * seq / cp. */
double pred_tokens(const struct pred_ctx *c, const struct plan *p);
/* Ranks that reduce gradients and shard optimizer states: dp * cp. */
int64_t pred_grad_ranks(const struct plan *p);
/* Whether the cp group leaves the NVLink domain (tp * cp > domain). */
bool pred_cp_inter(const struct pred_ctx *c, const struct plan *p);
/* 'auto' values of cp for c's job (dims.h PLAN_AUTO_CP), ascending. */
int pred_cp_auto(const struct pred_ctx *c, int64_t max_gpus, int32_t *out,
                 int cap);
/* Turn o's attention times of one ring step (seq / cp queries against seq /
 * cp keys, causal half-block) into the cp steps with the KV exchange
 * exposed in PRED_OP_CP_COMM. Nothing at cp 1. */
void pred_cp_attention(const struct pred_ctx *c, const struct plan *p,
                       struct pred_layer *o);
/* Bytes PyTorch ring attention's eager merges move per layer and micro-
 * batch on the pacing rank (the stack's cp_merge_eager), forward (bwd 0)
 * or backward: 'e' output and 'kv' key-value elements of the rank, over
 * cp steps (cp.c). */
double pred_cp_merge_bytes(double e, double kv, double cp, int bwd);

/* ---- mixture of experts (moe.c) ---- */
/* An all-to-all in which every one of n ranks sends 'bytes' in all, an
 * equal share to each rank (itself included), per_domain of the n in each
 * NVLink domain (moe.c header). */
double pred_a2a_s(const struct pred_kernels *k, double bytes, int64_t n,
                  int64_t per_domain);
/* The chance that a token's top-k experts include one of the E / units
 * experts of one unit (a GPU of ep, a node), the experts laid out in
 * order, the router limited to group_topk of its groups (moe.c header);
 * units times it is the units a token reaches. */
double pred_moe_hit_share(const struct model_moe *e, double units);
/* GPUs of one ep group in an NVLink domain (etp innermost, then ep). */
int64_t pred_ep_per_domain(const struct pred_ctx *c, const struct plan *p);
/* Routed token copies one GPU's experts receive per layer and micro-batch,
 * on average (balanced routing). */
double pred_moe_expert_tokens(const struct pred_ctx *c, const struct plan *p);
/* The factor by which the busiest GPU of an ep group exceeds that mean,
 * 'z' standard deviations of the per-GPU load above it (moe.c header),
 * never above the capacity factor when the model has one. */
double pred_moe_imbalance(const struct pred_ctx *c, const struct plan *p,
                          double z);
/* E grouped GEMMs C[m, n] = A[m, k] B[k, n] in one kernel. */
double pred_grouped_gemm_s(const struct pred_kernels *k,
                           const struct pred_kparams *kp, double groups,
                           double m, double n, double kk, double in_bytes);
/* The routed experts' operators of one MoE layer into o (PRED_OP_ROUTER
 * .. PRED_OP_COMBINE). */
void pred_moe_layer(const struct pred_ctx *c, const struct plan *p,
                    struct pred_layer *o);
/* MoE layers of pipeline rank 'rank' (the others dense); 0 for a dense
 * model. Dense-first layers sit on the first virtual stages. */
double pred_stage_moe_layers(const struct model *m,
                             const struct stage_layout *s, int64_t rank);
/* Routed-expert parameters one GPU of rank 'rank' holds (its E / ep
 * experts of each of its MoE layers, split over etp; the MTP layer on the
 * last rank), kept apart from pred_stage_params: they are sharded and
 * reduced over the expert-data-parallel group, not dp. */
double pred_stage_expert_params(const struct model *m, const struct plan *p,
                                const struct stage_layout *s, int64_t rank);
/* The plan as the experts' data parallelism sees it: edp ranks (dp),
 * ep * etp GPUs apart (tp), no cp, no replicas; for pred_shard_mem,
 * pred_dp_reduce_s and the optimizer. */
void pred_expert_plan(const struct plan *p, struct plan *out);
/* Saved activations of one MoE layer's routed experts and router for one
 * micro-batch on one GPU, with the memory headroom for imbalance. */
double pred_moe_act_bytes(const struct pred_ctx *c, const struct plan *p);

/* ---- projections as separate GEMMs (proj.c) ---- */
/* Where the stack runs the query, key and value projections, and SwiGLU's
 * gate and up projections, as GEMMs of their own (job.separate_proj), set
 * o's QKV and MLP-up times to those GEMMs'; nothing otherwise. */
void pred_separate_proj(const struct pred_ctx *c, const struct plan *p,
                        bool moe, struct pred_layer *o);

/* ---- FP8 operand casts outside the GEMMs (fp8cast.c) ---- */
/* Bytes torchao's dynamic tensorwise casts move for one GEMM of 'a' input,
 * 'w' weight and 'g' output elements, forward (bwd 0) or backward. */
double pred_fp8_cast_bytes(double a, double w, double g, int bwd);
/* Add to o's GEMM operators (QKV, out-proj, MLP up and down) the time of
 * their operands' casts where the job is FP8 and the stack casts them
 * with torchao (job.fp8_cast); nothing otherwise. */
void pred_fp8_cast_layer(const struct pred_ctx *c, const struct plan *p,
                         bool moe, struct pred_layer *o);

/* ---- overlap of communication with computation (tpo.c) ---- */
/* The share of the GPU a link tier's communication kernels take from a
 * computation beside them (NVLink, or inter-node). */
double pred_interference(bool inter);
/* The share of the SMs Transformer Engine's userbuffers take from a GEMM
 * they overlap (tpo.c): 1 / SMs beside a ring-exchange all-gather, 16 /
 * SMs beside a reduce-scatter ('rs'). */
double pred_tpo_interference(const struct pred_ctx *c, bool rs);
/* A computation of 'compute' s beside a communication of 'comm' s sharing
 * the GPU with interference u, pipelined in 'chunks' pieces (<= 1: not
 * pipelined): how much longer the computation runs and how much of the
 * communication stays exposed. */
void pred_overlap(double compute, double comm, double u, double chunks,
                  double *compute_extra, double *exposed);
/* One GEMM of the layer's operator 'op', [m x k] by [k x n], forward and
 * both gradients, 'times' over, added to o (fwd_s, bwd_s and dgrad_s):
 * pred.c. */
void pred_gemm_add(const struct pred_ctx *c, enum pred_op op, double m,
                   double n, double k, double times, struct pred_layer *o);
/* Async TP's exposed kernels around one pair (tpo.c): the local shard's
 * copy before an all-gather, the partials' sum after a reduce-scatter
 * ('rs'); 'bytes' the whole activation, all tokens. */
double pred_tpo_async_s(const struct pred_ctx *c, double bytes, double tp,
                        bool rs);
/* TP communication overlap (tpo) of one layer: 'ag_s' and 'rs_s' are one
 * all-gather and one reduce-scatter of the activation of 'bytes' (all
 * tokens); slows o's GEMMs by the interference and sets PRED_OP_TP_COMM to
 * the exposed remainder, both ways. */
void pred_tpo_layer(const struct pred_ctx *c, const struct plan *p,
                    double ag_s, double rs_s, double bytes,
                    struct pred_layer *o);

/* ---- memory model pieces (bytes), exposed for tests ---- */
/* Saved activations of one layer for one micro-batch on one GPU
 * (Korthikanti et al. 2022 Table 2, adapted for flash attention, GQA, GLU
 * and Transformer Engine's FP8 GEMM inputs). */
double pred_act_layer_bytes(const struct model *m, const struct job *j,
                            const struct plan *p);
/* Micro-batches (in layer-chunk units of layers/(pp*vpp)) whose activations
 * pipeline rank 'rank' holds at its peak under 1F1B or interleaved 1F1B. */
double pred_inflight_chunks(const struct plan *p, int64_t microbatches,
                            int64_t rank);
/* The plan's pipeline layout under the context's split rule
 * (plan_stage_layout); where the rule cannot lay it out (a published run
 * the rule refuses), ceil(layers / pp) on every rank. */
void pred_layout(const struct pred_ctx *c, const struct plan *p,
                 struct stage_layout *out);
/* Transformer Engine's FP8 scaling state (scales and amax histories) of a
 * stage of 'layers' layers; 0 unless the job is FP8 (mem.c header). */
double pred_fp8_scaling_bytes(const struct job *j, double layers);
/* Parameters held by one GPU of pipeline rank 'rank' of layout 's'. */
double pred_stage_params(const struct model *m, const struct plan *p,
                         const struct stage_layout *s, int64_t rank);

/* ---- data-parallel sharding (predictor/shard.c) ---- */
/* GPUs of one dp group inside an NVLink domain (Megatron's rank order: tp
 * innermost, then dp). */
int64_t pred_dp_per_domain(const struct pred_ctx *c, const struct plan *p);
/* The plan's data-parallel overlaps: the gradient reduction and the
 * parameter all-gather overlap compute when the plan's overlap is on and
 * the stack overlaps them (the gather only beside the reduction, as
 * Megatron-LM's arguments.py requires). */
/* Bytes per gradient element in the data-parallel reduce: 4 (fp32), or 2
 * with the job's grad_reduce_16bit. */
double pred_grad_reduce_bytes(const struct pred_ctx *c);
bool pred_overlap_grad(const struct pred_ctx *c, const struct plan *p);
bool pred_overlap_param(const struct pred_ctx *c, const struct plan *p);
/* Parameters per bucket of the overlapped DP reduce and gather: the job's
 * ddp_bucket_params, or Megatron-Core's default max(40M, 1M x dp x cp)
 * (megatron/core/distributed/distributed_data_parallel.py). */
double pred_dp_bucket_params(const struct pred_ctx *c, const struct plan *p);
/* ZeRO's sharding degree: dp, or dp / replicas with hybrid sharding. */
int64_t pred_shard_degree(const struct plan *p);
/* The dp group's gradient reduction of 'bytes': an all-reduce over dp
 * (zero 0), else a reduce-scatter over the shard group and, with
 * replicas, an all-reduce of the 1/d shard across them; and the
 * parameter all-gather over the shard group (shard.c header). */
double pred_dp_reduce_s(const struct pred_ctx *c, const struct plan *p,
                        double bytes);
double pred_dp_gather_s(const struct pred_ctx *c, const struct plan *p,
                        double bytes);
/* Whether the stage's parameters stay gathered through the step: ZeRO-2,
 * and ZeRO-3 without reshard after forward (the job's fsdp_reshard). */
bool pred_shard_keeps_params(const struct pred_ctx *c, const struct plan *p);
struct pred_shard_mem { double weights_bytes, grads_bytes, optimizer_bytes;
                         double restore_bytes; /* offload: the master
                                                  weights restored for the
                                                  step (shard.c) */ };
/* Optimizer offload (the plan's offload): the state chunk Megatron
 * restores at a time, the size export writes as --optimizer-state-offload-
 * chunk-size-mb (megatron/core/optimizer/cpu_offloading/README.md: its
 * example's 256), and the two of them a step holds ("two reusable GPU
 * state windows ... about 2 * optimizer_state_offload_chunk_size_mb"). */
#define PRED_OFFLOAD_CHUNK_MB 256
#define PRED_OFFLOAD_WINDOWS 2
/* fp32 master weights, per parameter, of the optimizer_bytes. */
#define PRED_MASTER_BYTES 4.0
/* One of an offloaded step's state windows, bytes (shard.c). */
double pred_offload_window_bytes(const struct pred_ctx *c, const struct plan *p);
/* Seconds of the optimizer step of 'local' parameters (the rank's shard),
 * with the offload's host-link transfers when the plan offloads
 * (compose.c). */
double pred_optimizer_step_s(const struct pred_ctx *c, const struct plan *p,
                             double local);
/* Bytes per second one GPU of the plan copies to or from host memory
 * while every GPU of its node does the same (compose.c). */
double pred_host_copy_bytes_per_s(const struct pred_ctx *c, const struct plan *p);
/* Model states per GPU of a stage holding 'params' parameters, 'unit' of
 * them in one FSDP unit (a layer): shard.c header. */
void pred_shard_mem(const struct pred_ctx *c, const struct plan *p,
                    double params, double unit, struct pred_shard_mem *out);
struct pred_shard_layer {       /* the slowest stage, as sharding sees it */
    double n;                   /* layers (FSDP units) */
    double fwd_s, bwd_s;        /* one layer, one micro-batch (bwd with
                                   recompute) */
    double unit_params;         /* one layer's parameters per GPU */
    double ends_params;         /* embedding / LM head on the stage */
};
/* Seconds of ZeRO-2/3 all-gathers and reduce-scatters per iteration that
 * the compute does not hide, m micro-batches (0 for zero < 2 or dp 1). */
double pred_shard_exposed(const struct pred_ctx *c, const struct plan *p,
                          const struct pred_shard_layer *l, double m);
/* Parameters of one transformer layer held by one GPU (tp-split matrices,
 * replicated norms and row-parallel biases). */
double pred_layer_params(const struct model *m, const struct plan *p);
/* The same for a dense layer (moe false) or an MoE layer without its
 * routed experts (moe true); and one MoE layer's routed experts on one
 * GPU (E / ep of them, split over etp; 0 for a dense model). */
double pred_layer_params_kind(const struct model *m, const struct plan *p,
                              bool moe);
double pred_layer_expert_params(const struct model *m, const struct plan *p);

#endif /* PRED_H */
