/* spaces/plan.h: one plan (how to lay a job out), its canonical key and the
 * cheap validity rules. Its dimensions are described by spaces/dims.h. */
#ifndef SPACE_PLAN_H
#define SPACE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spaces/dims.h"
#include "spaces/job.h"
#include "spaces/model.h"
#include "spaces/stages.h"

enum plan_recompute { PLAN_RECOMPUTE_NONE, PLAN_RECOMPUTE_SELECTIVE,
                      PLAN_RECOMPUTE_FULL,
                      PLAN_RECOMPUTE_COUNT };

/* Every field is an int32_t described by a row of plan_dims (dims.h). */
struct plan {                   /* a plain value */
    int32_t tp;                 /* tensor parallel degree */
    int32_t cp;                 /* context parallel degree (sequence split) */
    int32_t pp, dp;             /* pipeline, data parallel degrees */
    int32_t mbs;                /* micro-batch, sequences */
    int32_t vpp;                /* model chunks per pipeline rank (1: plain 1F1B) */
    int32_t pp_first, pp_last;  /* transformer layers on the first / last
                                   pipeline rank; 0: the stack's split rule
                                   chooses (spaces/stages.h) */
    int32_t sp;                 /* 1: Megatron sequence parallelism */
    int32_t tpo;                /* 1: TP communication overlapped with GEMMs */
    int32_t recompute;          /* enum plan_recompute */
    int32_t rc_layers;          /* with full recompute: layers per model
                                   chunk recomputed (Megatron's block
                                   method), 0 every layer */
    int32_t zero;               /* ZeRO stage over dp: 0 none, 1 optimizer
                                   states, 2 + gradients, 3 + parameters
                                   (FSDP) */
    int32_t overlap;            /* 1: DP communication overlapped as the
                                   stack does it, 0: none */
    int32_t replicas;           /* HSDP: ZeRO groups of dp / replicas ranks
                                   (1: shard over all dp) */
    int32_t ep;                 /* expert parallel degree (MoE layers) */
    int32_t etp;                /* expert tensor parallel degree */
    int32_t epo;                /* 1: MoE all-to-alls overlapped with another
                                   micro-batch's computation (combined
                                   1F1B) */
    int32_t offload;            /* 1: optimizer states and master weights in
                                   host memory between steps */
};

#define PLAN_MAX_DEGREE (1 << 20)

struct plan_limits;

/* The overlap a plan has when nobody says: on where the stack overlaps
 * and there is data-parallel communication (dp > 1), off otherwise (the
 * rules stack-overlap and overlap-dp). */
int32_t plan_overlap_default(const struct plan *p, const struct plan_limits *lim);

const char *plan_recompute_name(enum plan_recompute r);   /* "selective" */
int plan_recompute_parse(const char *s, enum plan_recompute *out);

/* "tp8.cp2.pp4.dp8.mb1.vpp2.sp.tpo.rc-sel.z1.ep8.offload"; cp1, vpp1, no
 * sp, no tpo, rc-none, z0, ep1, etp1, no epo and no offload are left out. Always NUL-terminates; returns the length it needed. */
int plan_key(const struct plan *p, char *buf, size_t n);

int64_t plan_gpus(const struct plan *p);
/* Megatron-Core's MoE parallel folding (megatron/core/parallel_state.py,
 * Liu et al., "MoE Parallel Folding", arXiv 2504.14960): the MoE layers
 * lay the tp * cp * dp GPUs of a pipeline stage out again as etp x ep x
 * edp, so the expert-data-parallel degree is tp cp dp / (ep etp). */
int64_t plan_edp(const struct plan *p);
/* Micro-batches per iteration per pipeline: gbs / (dp * mbs) (the cp ranks
 * share a micro-batch, each holding seq / cp of its tokens). */
int64_t plan_microbatches(const struct plan *p, const struct job *j);

/* The rules, cheapest first. PLAN_OK when all hold. */
enum plan_rule {
    PLAN_OK,
    PLAN_RULE_DEGREE,           /* every degree >= 1, zero in 0..3 */
    PLAN_RULE_HEADS_TP,
    PLAN_RULE_KV_HEADS_TP,
    PLAN_RULE_FFN_TP,
    PLAN_RULE_TP_DOMAIN,
    PLAN_RULE_SP_TP,
    PLAN_RULE_SEQ_SP,           /* with sp, seq / cp divisible by tp */
    PLAN_RULE_CP_SEQ,           /* seq divisible by 2 cp (two chunks each) */
    PLAN_RULE_CP_HEADS,         /* a2a cp: heads and kv heads per tp rank
                                   divisible by cp */
    PLAN_RULE_TPO_SP,           /* tp overlap needs sequence parallelism */
    PLAN_RULE_LAYERS_PP,
    PLAN_RULE_GBS_DP,
    PLAN_RULE_VPP_PP,
    PLAN_RULE_VPP_MICRO,
    PLAN_RULE_STACK_SCHEDULE,   /* the stack has no such pipeline schedule */
    PLAN_RULE_STACK_ZERO,       /* the stack has no such sharding mode */
    PLAN_RULE_STACK_TPO,        /* the stack has no TP comm overlap */
    PLAN_RULE_STACK_CP,         /* the stack has no context parallelism */
    PLAN_RULE_ZERO_PP,          /* the stack shards no further than
                                   stack_zero_pp with pp > 1 */
    PLAN_RULE_RC_LAYERS,        /* recompute_layers > 0 without full
                                   recompute */
    PLAN_RULE_STACK_RC_BLOCK,   /* recompute_layers > 0 and the stack has no
                                   block recompute */
    PLAN_RULE_STACK_OVERLAP,    /* overlap on, and the stack overlaps no
                                   data-parallel communication */
    PLAN_RULE_OVERLAP_DP,       /* overlap on with dp 1: nothing to
                                   overlap (the plan with overlap off) */
    PLAN_RULE_REPLICAS,         /* replicas > 1 needs zero >= 1 and must
                                   divide dp */
    PLAN_RULE_EP_DENSE,         /* ep or etp > 1 on a model without experts */
    PLAN_RULE_EP_EXPERTS,       /* experts divisible by ep */
    PLAN_RULE_ETP_FFN,          /* the expert FFN divisible by etp */
    PLAN_RULE_EP_FOLD,          /* ep * etp divides tp * cp * dp */
    PLAN_RULE_EP_MESH_ETP,      /* FSDP expert mesh: etp is 1 or tp, and
                                   tp when ep is 1 */
    PLAN_RULE_EP_MESH_FOLD,     /* FSDP expert mesh: ep * etp divides the
                                   FSDP-sharded ranks x cp x tp */
    PLAN_RULE_EP_SP,            /* MoE with tp > 1 needs sp */
    PLAN_RULE_STACK_EP,         /* the stack has no expert parallelism */
    PLAN_RULE_EPO_EP,           /* all-to-all overlap needs ep > 1 */
    PLAN_RULE_EPO_RECOMPUTE,    /* ... and no full recompute */
    PLAN_RULE_EPO_SCHEDULE,     /* ... and no pipeline, or interleaving */
    PLAN_RULE_STACK_EPO,        /* the stack cannot overlap them */
    PLAN_RULE_OFFLOAD_ZERO,     /* optimizer offload needs the distributed
                                   optimizer (zero 1) */
    PLAN_RULE_STACK_OFFLOAD,    /* the stack cannot offload it */
    PLAN_RULE_OFFLOAD_HOST,     /* the system says no host link */
    PLAN_RULE_COUNT
};

/* How a stack lays out the expert-parallel ranks: Megatron-Core's folding
 * over the tp * cp * dp GPUs of a stage (plan_edp), or torchtitan's expert
 * mesh, cut from the FSDP-sharded ranks, cp and tp (plan_check_ep_mesh). */
enum plan_ep_mesh { PLAN_EP_MESH_MEGATRON, PLAN_EP_MESH_FSDP,
                    PLAN_EP_MESH_COUNT };

struct plan_limits {            /* what the rules need to know of the system
                                   and the stack (spaces/stack.h) */
    int64_t tp_domain;          /* GPUs in one NVLink domain */
    bool tp_cross_node;         /* allow tp beyond it */
    uint32_t stack_zero;        /* bit (1 << zero) for each mode it runs */
    int32_t stack_zero_pp;      /* highest zero it runs with pp > 1 */
    bool stack_overlap;         /* it overlaps some DP communication */
    bool stack_1f1b;            /* it has 1F1B (pp > 1, vpp 1) */
    bool stack_interleaved;     /* it has interleaved 1F1B (vpp > 1) */
    enum stage_split split;     /* its layer-split rule (0: Megatron-Core's) */
    bool stack_tpo;             /* it can overlap TP communication (tpo) */
    bool stack_cp;              /* it has context parallelism (cp > 1) */
    bool stack_ep;              /* it has expert parallelism (ep > 1) */
    bool stack_epo;             /* it overlaps MoE all-to-alls (epo) */
    bool stack_rc_block;        /* it recomputes the first N layers of a
                                   chunk (recompute_layers > 0) */
    bool stack_offload;         /* it offloads optimizer states (offload) */
    bool host_link;             /* the system says its GPUs' host link */
    enum plan_ep_mesh ep_mesh;  /* its expert layout (0: Megatron's) */
};
/* Initialisers of the stack's limits for a stack that runs everything:
 * (struct plan_limits){ .tp_domain = 8, PLAN_ANY_STACK }. */
#define PLAN_ANY_STACK .stack_zero = UINT32_MAX, .stack_zero_pp = 3, \
                       .stack_overlap = true, .stack_1f1b = true, \
                       .stack_interleaved = true, .stack_tpo = true, \
                       .stack_cp = true, .stack_ep = true, \
                       .stack_epo = true, .stack_rc_block = true, \
                       .stack_offload = true

/* The plan's pipeline layout under the stack's split rule: 0, or -1 when
 * the rule cannot split the layers so (rule layers-pp). */
int plan_stage_layout(const struct plan *p, const struct model *m,
                      const struct plan_limits *lim, struct stage_layout *out);
/* Write the layout the rule chose into pp_first / pp_last (0 for equal
 * stages, also when asked for explicitly), so that the key shows it;
 * nothing when the rule cannot. */
void plan_stages_resolve(struct plan *p, const struct model *m,
                         const struct plan_limits *lim);

enum plan_rule plan_check(const struct plan *p, const struct model *m,
                          const struct job *j, const struct plan_limits *lim);
/* The rules after PLAN_RULE_DEGREE, for a plan whose every field is known
 * to be in its dimension's range (a search checks its lists once). */
enum plan_rule plan_check_shape(const struct plan *p, const struct model *m,
                                const struct job *j, const struct plan_limits *lim);
/* plan_check_shape runs the rules in groups, in this order; each group
 * reads only the fields named, so a search may keep a group's answer for
 * as long as they stay (search/search.c). A new rule goes into the group
 * whose fields it reads, or the group's comment grows.
 * zero: the stack's sharding modes (stack-zero, zero-pp), which read only
 * zero and pp. */
enum plan_rule plan_check_zero(const struct plan *p,
                               const struct plan_limits *lim);
/* tp: heads-tp, kv-heads-tp, ffn-tp, tp-domain; reads tp. */
enum plan_rule plan_check_tp(const struct plan *p, const struct model *m,
                             const struct plan_limits *lim);
/* seq: sp-tp, cp-seq, seq-sp, cp-a2a-heads, tpo-sp; reads tp, cp, sp, tpo. */
enum plan_rule plan_check_seq(const struct plan *p, const struct model *m,
                              const struct job *j);
/* Whether the MoE group runs: ep or etp above 1, or epo. */
static inline bool plan_is_moe_shaped(const struct plan *p)
{
    return p->ep > 1 || p->etp > 1 || p->epo;
}
/* Whether the moe group runs on a plan: when it is MoE-shaped, and on an
 * FSDP expert mesh also for a model with experts and tp > 1 (ep-mesh-etp:
 * there ep 1 and etp 1 is no plan the stack runs). */
static inline bool plan_moe_checked(const struct plan *p, const struct model *m,
                                    const struct plan_limits *lim)
{
    return plan_is_moe_shaped(p) || (lim->ep_mesh == PLAN_EP_MESH_FSDP &&
                                     m->moe.experts > 0 && p->tp > 1);
}
/* moe: ep-dense ... stack-epo; reads tp, cp, dp, pp, vpp, sp, recompute,
 * zero, replicas, ep, etp, epo. */
enum plan_rule plan_check_moe(const struct plan *p, const struct model *m,
                              const struct plan_limits *lim);
/* The FSDP expert mesh's rules alone (ep-mesh-etp, ep-mesh-fold), as
 * plan_check_moe runs them under PLAN_EP_MESH_FSDP. */
enum plan_rule plan_check_ep_mesh(const struct plan *p);
/* batch: gbs-dp, vpp-pp, vpp-microbatches, layers-pp, stack-schedule;
 * reads dp, mbs, pp, vpp, pp_first, pp_last. */
enum plan_rule plan_check_batch(const struct plan *p, const struct model *m,
                                const struct job *j, const struct plan_limits *lim);
/* stack: stack-tp-overlap, stack-cp, replicas-dp, recompute-layers,
 * stack-rc-block, the offload's, then the overlap's; reads tpo, cp,
 * replicas, zero, dp, recompute, rc_layers, offload, overlap. */
enum plan_rule plan_check_stack(const struct plan *p,
                                const struct plan_limits *lim);
/* The rules of a plan with offload on (stack-offload, offload-host,
 * offload-zero: what the plan cannot change first); reads zero. A search that gives a plan the offload (a
 * fit dimension) checks them alone. */
enum plan_rule plan_check_offload(const struct plan *p,
                                  const struct plan_limits *lim);
/* The last rules, the only ones the overlap changes (stack-overlap,
 * overlap-dp): a search checks the others once per plan. */
enum plan_rule plan_check_overlap(const struct plan *p,
                                  const struct plan_limits *lim);
const char *plan_rule_name(enum plan_rule r);              /* "heads-tp" */
/* One line naming the rule and the numbers that break it. */
void plan_rule_explain(enum plan_rule r, const struct plan *p,
                       const struct model *m, const struct job *j,
                       const struct plan_limits *lim, char *buf, size_t n);

#endif /* SPACE_PLAN_H */
