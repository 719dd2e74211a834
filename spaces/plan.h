/* spaces/plan.h: the job (what to train) and one plan (how to lay it out),
 * the plan's canonical key and the cheap validity rules. */
#ifndef SPACE_PLAN_H
#define SPACE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spaces/model.h"

enum job_precision { JOB_PREC_BF16, JOB_PREC_FP16, JOB_PREC_FP8,
                     JOB_PREC_COUNT };
enum job_attention { JOB_ATTN_FLASH, JOB_ATTN_UNFUSED, JOB_ATTN_COUNT };

struct job {                    /* a plain value */
    int64_t seq;                /* tokens per sequence */
    int64_t gbs;                /* global batch, sequences */
    enum job_precision precision;
    enum job_attention attention;
    double tokens;              /* tokens to train (reports) */
    bool overlap_grad_reduce;   /* DP grad reduce overlapped with backward */
    bool overlap_param_gather;  /* ZeRO-1 param all-gather overlapped with forward */
    double host_s;              /* host time to issue one kernel (0: never waits) */
};

#define JOB_MAX_SEQ  (1 << 20)
#define JOB_MAX_GBS  (1 << 24)

/* seq 2048, gbs 512, bf16, flash attention, both overlaps on. */
void job_default(struct job *j);
const char *job_precision_name(enum job_precision p);
const char *job_attention_name(enum job_attention a);
int job_precision_parse(const char *s, enum job_precision *out);
int job_attention_parse(const char *s, enum job_attention *out);

enum plan_recompute { PLAN_RC_NONE, PLAN_RC_SELECTIVE, PLAN_RC_FULL,
                      PLAN_RC_COUNT };

struct plan {                   /* a plain value */
    int32_t tp, pp, dp;         /* tensor, pipeline, data parallel degrees */
    int32_t mbs;                /* micro-batch, sequences */
    int32_t vpp;                /* model chunks per pipeline rank (1: plain 1F1B) */
    bool sp;                    /* Megatron sequence parallelism */
    enum plan_recompute recompute;
    int32_t zero;               /* 0, or 1: optimizer states sharded over dp */
};

#define PLAN_MAX_DEGREE (1 << 20)

const char *plan_recompute_name(enum plan_recompute r);   /* "selective" */
int plan_recompute_parse(const char *s, enum plan_recompute *out);

/* "tp8.pp4.dp8.mb1.vpp2.sp.rc-sel.z1"; vpp1, no sp, rc-none and z0 are left
 * out. Always NUL-terminates; returns the length it needed. */
int plan_key(const struct plan *p, char *buf, size_t n);

int64_t plan_gpus(const struct plan *p);
/* Micro-batches per iteration per pipeline: gbs / (dp * mbs). */
int64_t plan_microbatches(const struct plan *p, const struct job *j);

/* The rules, cheapest first. PLAN_OK when all hold. */
enum plan_rule {
    PLAN_OK,
    PLAN_RULE_DEGREE,           /* every degree >= 1, zero in {0, 1} */
    PLAN_RULE_HEADS_TP,
    PLAN_RULE_KV_HEADS_TP,
    PLAN_RULE_FFN_TP,
    PLAN_RULE_TP_DOMAIN,
    PLAN_RULE_SP_TP,
    PLAN_RULE_SEQ_SP,
    PLAN_RULE_LAYERS_PP,
    PLAN_RULE_GBS_DP,
    PLAN_RULE_VPP_PP,
    PLAN_RULE_VPP_MICRO,
    PLAN_RULE_COUNT
};

struct plan_limits {            /* what the rules need to know of the system */
    int64_t tp_domain;          /* GPUs in one NVLink domain */
    bool tp_cross_node;         /* allow tp beyond it */
};

enum plan_rule plan_check(const struct plan *p, const struct model *m,
                          const struct job *j, const struct plan_limits *lim);
const char *plan_rule_name(enum plan_rule r);              /* "heads-tp" */
/* One line naming the rule and the numbers that break it. */
void plan_rule_explain(enum plan_rule r, const struct plan *p,
                       const struct model *m, const struct job *j,
                       const struct plan_limits *lim, char *buf, size_t n);

#endif /* SPACE_PLAN_H */
