/* spaces/stack.h: a training stack, the software that runs a plan
 * (spaces/README.md "Stack file"): its attention kernel, whether the
 * model's dropout runs, which communication it overlaps, the host time per
 * kernel, which pipeline schedules and optimizer-sharding modes exist, its
 * TP communication overlap and which exporter writes its launch settings.
 * The predictor never reads a stack: stack_apply folds it into the job's
 * effective values and the model's dropout, stack_limits into the plan
 * rules' limits. */
#ifndef SPACE_STACK_H
#define SPACE_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "spaces/job.h"
#include "spaces/model.h"
#include "spaces/plan.h"
#include "spaces/stages.h"

enum stack_schedule { STACK_SCHED_GPIPE, STACK_SCHED_1F1B,
                      STACK_SCHED_INTERLEAVED, STACK_SCHED_ZERO_BUBBLE,
                      STACK_SCHED_COUNT };
enum stack_tp_overlap { STACK_TPO_NONE, STACK_TPO_OFF, STACK_TPO_ON,
                        STACK_TPO_COUNT };
enum stack_framework { STACK_FW_MEGATRON, STACK_FW_NEMO, STACK_FW_TORCHTITAN,
                       STACK_FW_COUNT };

#define STACK_MAX_ZERO 3        /* ZeRO stages a file may name: 0..3 */
#define STACK_DEFAULT "megatron-core"

/* Where a stack's band was validated: the GPU counts and model sizes
 * (parameters, billions) of the held-out rows behind it (calibrate --runs
 * writes them). All 0: none (a stack file without the fields). And the
 * GPU architectures those rows ran on (their systems' gpu.arch), sorted;
 * n_archs 0: not said (a stack file without validated_archs). */
#define STACK_MAX_ARCHS 8
#define STACK_ARCH_LEN 16
struct stack_region {
    double gpus_lo, gpus_hi, params_b_lo, params_b_hi;
    int n_archs;
    char archs[STACK_MAX_ARCHS][STACK_ARCH_LEN];
};
/* Whether the region names 'arch' among its architectures; has_arch is
 * also true when it names none (every architecture inside). */
bool stack_region_lists(const struct stack_region *r, const char *arch);
bool stack_region_has_arch(const struct stack_region *r, const char *arch);

struct stack {                  /* a plain value */
    char name[64];
    char description[160];
    enum job_attention attention;
    bool dropout;               /* the model's dropout layers run */
    bool overlap_grad_reduce, overlap_param_gather;
    double host_s;              /* host time to issue one modelled kernel */
    double grad_accum_bytes;    /* bytes per parameter and micro-batch to
                                   accumulate weight gradients outside the
                                   GEMM (optional, 0: fused or none) */
    double grad_accum_bf16_bytes;   /* the same when the job is bf16 */
    double reserve_bytes;       /* reserve_gib in bytes (optional; < 0:
                                   the system's) */
    double grad_copy_bf16_bytes;    /* memory: a bf16 gradient per parameter
                                   beside the fp32 one (optional, 0) */
    double grad_bytes;          /* memory per parameter: the gradient the
                                   optimizer reads (optional, 4) */
    double grad_fp16_bytes;     /* the same for fp16 jobs (optional; < 0:
                                   grad_bytes) */
    double optim_bytes;         /* optimizer states (optional, 12) */
    double loss_logit_bytes;    /* bytes per logit at the loss's peak
                                   (optional, 6) */
    bool optim_offload;         /* it can keep them in host memory between
                                   updates, the plans' offload (optional,
                                   false) */
    bool bf16_grad_allreduce;   /* bf16 ZeRO-1 all-reduces the fp32
                                   gradients (optional, false) */
    bool launch_blocking;       /* runs with CUDA_LAUNCH_BLOCKING=1
                                   (optional, false) */
    uint32_t schedules;         /* bit (1 << enum stack_schedule) each */
    enum stage_split split;     /* how it splits layers over pipeline stages */
    uint32_t zero;              /* bit (1 << stage) per sharding mode */
    int32_t zero_pp;            /* highest stage it runs with pp > 1 */
    enum job_reshard fsdp_reshard;  /* ZeRO-3 parameters after forward */
    enum stack_tp_overlap tp_comm_overlap;
    enum job_cp_comm cp_comm;   /* its KV exchange under cp (none: no cp) */
    enum job_moe_dispatch moe_dispatch; /* its MoE token dispatcher
                                           (none: no expert parallelism) */
    bool moe_a2a_overlap;       /* it can overlap the all-to-alls (epo) */
    double moe_host_s;          /* moe_host_us: host time per MoE-layer
                                   kernel outside CUDA graphs (optional, 0) */
    bool moe_host_sync;         /* the dispatcher syncs the host each MoE
                                   layer forward (optional, false) */
    uint32_t cuda_graphs;       /* cuda_graph: JOB_GRAPH_BIT set (optional,
                                   none) */
    enum plan_ep_mesh ep_mesh;  /* how it lays out the expert ranks */
    uint32_t frameworks;        /* bit (1 << enum stack_framework); 0: none */
    double band_lo, band_hi;    /* error band: band_low_pct / band_high_pct
                                   as fractions (predictor/pred.h
                                   struct pred_band) */
    struct stack_region region; /* validated_gpus_min .. validated_params_b_max */
    /* optional fields (absent: false, "attention") */
    bool fsdp_copy_out;         /* FSDP2: gathered units copied out of the
                                   all-gather buffer on the compute stream */
    enum job_selective selective;   /* what selective recompute rebuilds */
    enum job_zero3_gather zero3_gather; /* ZeRO-3: per unit or per tensor */
    enum job_fp8_cast fp8_cast; /* FP8 operand casts (absent: "fused") */
    enum job_tpo_method tpo_method; /* tp_overlap_method (absent:
                                       "userbuffers") */
    bool cp_merge_eager;        /* cp: partial outputs merged in fp32 by
                                   eager kernels (PyTorch ring attention) */
    bool separate_proj;         /* q, k, v and gate, up as separate GEMMs */
    bool fp8_param_gather;      /* FP8 jobs gather FP8 GEMM weights
                                   (optional, absent false) */
    bool grad_reduce_16bit;     /* gradients kept and reduced in 16 bits
                                   (optional, absent false: fp32) */
    bool repeat_kv;             /* K, V repeated to every query head before
                                   the attention (optional, absent false) */
    double step_bytes;          /* optimizer step's HBM traffic a parameter
                                   (optional, absent JOB_STEP_BYTES) */
    int64_t softmax_max_seq;    /* the longest key length Megatron's fused
                                   masked softmax takes (optional, absent
                                   JOB_SOFTMAX_MAX_SEQ) */
    bool recompute_block;       /* full recompute of the first N layers of
                                   each chunk only (Megatron's
                                   --recompute-method block; optional,
                                   false) */
    double ddp_bucket_params;   /* parameters per gradient bucket of the
                                   overlapped DP reduce (--ddp-bucket-size;
                                   optional, 0: max(40M, 1M x dp)) */
};

/* The band's limits, in percent of signed error (pred / measured - 1):
 * each in [STACK_BAND_MIN_PCT, STACK_BAND_MAX_PCT], low <= high. */
#define STACK_BAND_MIN_PCT -90.0
#define STACK_BAND_MAX_PCT 900.0

extern const struct conf_preset stack_presets[];
extern const size_t stack_presets_count;

/* Load a preset name or a file path, apply the --set assignments of
 * section "stack" and validate: 0, or TPL_ECONFIG / TPL_EIO with err. */
int stack_load(struct stack *s, const char *name_or_path,
               const char *const *sets, int n_sets, struct tpl_err *err);
int stack_read(struct stack *s, const struct conf *c, struct tpl_err *err);

const char *stack_schedule_name(enum stack_schedule k);
const char *stack_tp_overlap_name(enum stack_tp_overlap k);
const char *stack_cp_comm_name(enum job_cp_comm k);      /* "p2p" */
const char *stack_framework_name(enum stack_framework f);
const char *stack_reshard_name(enum job_reshard r);     /* "default" */
const char *stack_moe_dispatch_name(enum job_moe_dispatch d);  /* "alltoall" */
const char *stack_selective_name(enum job_selective k); /* "op" */
const char *stack_fp8_cast_name(enum job_fp8_cast k);   /* "torchao" */
const char *stack_tpo_method_name(enum job_tpo_method k); /* "async_tp" */
const char *stack_zero3_gather_name(enum job_zero3_gather k); /* "unit" */
const char *stack_graph_name(enum job_graph g);   /* "moe_router" */
int stack_framework_parse(const char *name, enum stack_framework *out);
bool stack_has_framework(const struct stack *s, enum stack_framework f);

/* The job's effective attention, overlaps and host time from the stack;
 * the model's dropout runs only where the stack runs it. */
void stack_apply(const struct stack *s, struct model *m, struct job *j);
/* What the plan rules stack-schedule, stack-zero, stack-tp-overlap,
 * stack-cp and cp-a2a-heads need. */
void stack_limits(const struct stack *s, struct plan_limits *lim);
/* The plan's switches the stack turns on by default where the plan does not
 * say: tpo where tp_comm_overlap is "on" and the plan has sp (tpo-sp). */
void stack_plan_defaults(const struct stack *s, struct plan *p);

#endif /* SPACE_STACK_H */
