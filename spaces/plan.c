/* spaces/plan.c: plan keys and validity rules. The rules are
 * Megatron-LM's own argument checks (megatron/training/arguments.py): heads,
 * query groups and the MLP width split evenly over tp; sequence parallelism
 * needs tp > 1 and a sequence divisible by tp; the stack's split rule can
 * lay the layers out over pp x vpp (spaces/stages.c); the global batch is a whole number of dp * mbs micro-batches; the
 * interleaved schedule needs pp > 1 and micro-batches divisible by pp.
 * Context parallelism: Megatron-Core splits each sequence into 2 cp chunks
 * and gives rank i chunks i and 2cp-1-i (causal load balancing,
 * megatron/training/utils.py get_batch_on_this_cp_rank), so seq must divide
 * by 2 cp, and with sp each rank's seq / cp tokens split again over tp.
 * The all-to-all variant (--cp-comm-type a2a, DeepSpeed-Ulysses: Jacobs et
 * al. 2023) gives each cp rank whole heads, so the heads and kv heads of a
 * tp rank must divide by cp (cp-a2a-heads).
 * --tp-comm-overlap needs --sequence-parallel (arguments.py: "Tensor
 * parallel communication/GEMM overlap can happen only when sequence
 * parallelism is enabled"; torchtitan's async TP likewise runs on its
 * sequence-parallel TP plan).
 * Last, what the stack can run (spaces/stack.h): its pipeline schedules
 * (stack-schedule), its optimizer-sharding modes (stack-zero), its TP
 * communication overlap (stack-tp-overlap), context parallelism
 * (stack-cp), its block recompute (stack-rc-block: recompute_layers
 * > 0, which needs recompute full, recompute-layers: Megatron-Core
 * TransformerConfig refuses a recompute_method without granularity full)
 * and how far it shards under a pipeline (zero-pp: DeepSpeed's
 * PipelineEngine refuses ZeRO stages 2 and 3, deepspeed/runtime/pipe/
 * engine.py asserts zero_optimization_stage() < 2); data-parallel overlap
 * only where the stack overlaps something (stack-overlap) and there is
 * data parallelism (overlap-dp: with dp 1 the plan is the one with overlap
 * off); hybrid sharding's replicas divide dp and need a ZeRO stage
 * (replicas-dp).
 * Mixture of experts (Megatron-Core MoE parallel folding, plan_edp): ep
 * and etp stay 1 on a dense model (ep-dense); the routed experts divide
 * evenly over ep (ep-experts: megatron/core/transformer/moe/moe_layer.py
 * asserts num_experts % ep == 0) and each expert's FFN over etp
 * (etp-ffn); ep * etp divides the tp * cp * dp GPUs of a stage (ep-fold:
 * parallel_state.py builds the expert groups from them); on torchtitan's
 * expert mesh instead (torchtitan/distributed/parallel_dims.py, the mesh
 * of the release the exporter writes for) etp is 1 or tp ("Currently we
 * only support ETP=TP or ETP=1"), and tp with ep 1, the experts then split
 * over the tp mesh (models/llama4/infra/parallelize.py apply_moe_ep_tp;
 * ep-mesh-etp), and ep * etp divides dp_shard * cp * tp, the FSDP-sharded
 * data-parallel ranks (dp / replicas under zero 3, none under DDP) times
 * cp and tp (ep-mesh-fold: efsdp = dp_shard * cp * tp / (etp * ep)); with tp > 1 and
 * ep > 1 sequence parallelism is required (ep-sp: megatron/core/
 * model_parallel_config.py, "When using expert parallelism and tensor
 * parallelism, sequence parallelism must be used"); the stack must have a
 * token dispatcher (stack-ep). The all-to-all overlap (epo,
 * --overlap-moe-expert-parallel-comm) needs ep > 1 (epo-ep), no full
 * recompute (epo-recompute: the combined schedule splits each layer into
 * sub-modules that whole-layer recompute would merge again; its recipes
 * ask for selective recompute), and the combined 1F1B exists without a
 * pipeline or with the interleaved one only (epo-schedule:
 * pipeline_parallel/schedules.py calls combined_1f1b_schedule_for_no_
 * pipelining or its interleaved variant).
 * Optimizer offload (offload, Megatron-Core --chunked-optimizer-state-
 * offload) runs with the distributed optimizer only (offload-zero:
 * megatron/core/optimizer/cpu_offloading/README.md, "Supported paths are
 * Adam with DistributedOptimizer"; Megatron-FSDP's zero 2 / 3 are not
 * among them), where the stack offloads (stack-offload: a stack file's
 * optimizer_offload; the README: "Full-iteration and optimizer CUDA graphs
 * are not supported while the fraction is nonzero", so a stack with a
 * full-iteration graph says false) and where the system file says the
 * GPUs' host link (offload-host: node.host_gbs, which times it). */
#include "spaces/plan.h"

#include "spaces/dims.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const rule_names[PLAN_RULE_COUNT] = {
    [PLAN_OK] = "ok", [PLAN_RULE_DEGREE] = "degree",
    [PLAN_RULE_HEADS_TP] = "heads-tp", [PLAN_RULE_KV_HEADS_TP] = "kv-heads-tp",
    [PLAN_RULE_FFN_TP] = "ffn-tp", [PLAN_RULE_TP_DOMAIN] = "tp-domain",
    [PLAN_RULE_SP_TP] = "sp-tp", [PLAN_RULE_SEQ_SP] = "seq-sp",
    [PLAN_RULE_CP_SEQ] = "cp-seq", [PLAN_RULE_CP_HEADS] = "cp-a2a-heads",
    [PLAN_RULE_TPO_SP] = "tpo-sp",
    [PLAN_RULE_LAYERS_PP] = "layers-pp", [PLAN_RULE_GBS_DP] = "gbs-dp",
    [PLAN_RULE_VPP_PP] = "vpp-pp", [PLAN_RULE_VPP_MICRO] = "vpp-microbatches",
    [PLAN_RULE_STACK_SCHEDULE] = "stack-schedule",
    [PLAN_RULE_STACK_ZERO] = "stack-zero",
    [PLAN_RULE_STACK_TPO] = "stack-tp-overlap",
    [PLAN_RULE_STACK_CP] = "stack-cp", [PLAN_RULE_ZERO_PP] = "zero-pp",
    [PLAN_RULE_STACK_OVERLAP] = "stack-overlap",
    [PLAN_RULE_OVERLAP_DP] = "overlap-dp", [PLAN_RULE_REPLICAS] = "replicas-dp",
    [PLAN_RULE_RC_LAYERS] = "recompute-layers",
    [PLAN_RULE_STACK_RC_BLOCK] = "stack-rc-block",
    [PLAN_RULE_EP_DENSE] = "ep-dense", [PLAN_RULE_EP_EXPERTS] = "ep-experts",
    [PLAN_RULE_ETP_FFN] = "etp-ffn", [PLAN_RULE_EP_FOLD] = "ep-fold",
    [PLAN_RULE_EP_MESH_ETP] = "ep-mesh-etp",
    [PLAN_RULE_EP_MESH_FOLD] = "ep-mesh-fold",
    [PLAN_RULE_EP_SP] = "ep-sp", [PLAN_RULE_STACK_EP] = "stack-ep",
    [PLAN_RULE_EPO_EP] = "epo-ep", [PLAN_RULE_EPO_RECOMPUTE] = "epo-recompute",
    [PLAN_RULE_EPO_SCHEDULE] = "epo-schedule",
    [PLAN_RULE_STACK_EPO] = "stack-epo",
    [PLAN_RULE_OFFLOAD_ZERO] = "offload-zero",
    [PLAN_RULE_STACK_OFFLOAD] = "stack-offload",
    [PLAN_RULE_OFFLOAD_HOST] = "offload-host",
};
static_assert(PLAN_RULE_COUNT == 40, "update rule_names and plan_rule_explain");

/* The recompute names are the dimension's value names (dims.c). */
const char *plan_recompute_name(enum plan_recompute r)
{
    return plan_dim_value_name(PLAN_DIM_RECOMPUTE, (int32_t)r);
}
const char *plan_rule_name(enum plan_rule r) { return rule_names[r]; }

int plan_recompute_parse(const char *s, enum plan_recompute *out)
{
    int32_t v;
    if (plan_dim_parse(PLAN_DIM_RECOMPUTE, s, &v))
        return -1;
    *out = (enum plan_recompute)v;
    return 0;
}

/* Each dimension's token in table order: key + value for integers (left
 * out at the default where the table says so), the value's own token for
 * named values ("" leaves it out). */
static int key_token(const struct plan *p, int d, bool joined, char *buf,
                     size_t n)
{
    const struct plan_dim_info *di = &plan_dims[d];
    int32_t v = plan_dim_get(p, (enum plan_dim)d);
    const char *sep = d ? "." : "";
    if (di->key_names) {
        const char *tok = v >= di->lo && v <= di->hi ? di->key_names[v] : "?";
        return *tok ? snprintf(buf, n, "%s%s", sep, tok) : 0;
    }
    if (di->key_omits_default && v == di->dflt)
        return 0;
    if (joined)                 /* "rc-full" + "4" */
        return snprintf(buf, n, "%d", (int)v);
    return snprintf(buf, n, "%s%s%d", sep, di->key, (int)v);
}

int plan_key(const struct plan *p, char *buf, size_t n)
{
    size_t len = 0;
    int last = 0;
    if (n)
        buf[0] = '\0';
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        bool joined = plan_dims[d].key_joins && last > 0;
        last = key_token(p, d, joined, len < n ? buf + len : NULL,
                         len < n ? n - len : 0);
        len += (size_t)last;
    }
    return (int)len;
}

int32_t plan_overlap_default(const struct plan *p, const struct plan_limits *lim)
{
    return lim->stack_overlap && (int64_t)p->dp * p->cp > 1;
}

int64_t plan_gpus(const struct plan *p)
{
    return (int64_t)p->tp * p->cp * p->pp * p->dp;
}

int64_t plan_edp(const struct plan *p)
{
    int64_t folded = (int64_t)p->ep * p->etp;
    return (int64_t)p->tp * p->cp * p->dp / (folded > 0 ? folded : 1);
}

int64_t plan_microbatches(const struct plan *p, const struct job *j)
{
    return j->gbs / ((int64_t)p->dp * p->mbs);
}

static enum plan_rule plan_check_epo(const struct plan *p,
                                     const struct plan_limits *lim);

static bool degrees_ok(const struct plan *p)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++) {
        int32_t v = plan_dim_get(p, (enum plan_dim)d);
        if (v < plan_dims[d].lo || v > plan_dims[d].hi)
            return false;
    }
    return true;
}

int plan_stage_layout(const struct plan *p, const struct model *m,
                      const struct plan_limits *lim, struct stage_layout *out)
{
    return stage_layout(lim->split, m->layers, p->pp, p->vpp, p->pp_first,
                        p->pp_last, out);
}

void plan_stages_resolve(struct plan *p, const struct model *m,
                         const struct plan_limits *lim)
{
    struct stage_layout s;
    if (plan_stage_layout(p, m, lim, &s))
        return;
    p->pp_first = s.even ? 0 : s.first;     /* equal stages: one key */
    p->pp_last = s.even ? 0 : s.last;
}

enum plan_rule plan_check(const struct plan *p, const struct model *m,
                          const struct job *j, const struct plan_limits *lim)
{
    return degrees_ok(p) ? plan_check_shape(p, m, j, lim) : PLAN_RULE_DEGREE;
}

/* The groups below in the order plan_check_shape runs them; each reads
 * only the fields its header comment (plan.h) names, which is what lets a
 * search keep a group's answer while those fields stay. */
enum plan_rule plan_check_shape(const struct plan *p, const struct model *m,
                                const struct job *j, const struct plan_limits *lim)
{
    enum plan_rule r = plan_check_zero(p, lim);
    if (r == PLAN_OK)           /* first: a search skips such blocks whole */
        r = plan_check_tp(p, m, lim);
    if (r == PLAN_OK)
        r = plan_check_seq(p, m, j);
    if (r == PLAN_OK && plan_moe_checked(p, m, lim))
        r = plan_check_moe(p, m, lim);
    if (r == PLAN_OK)
        r = plan_check_batch(p, m, j, lim);
    return r == PLAN_OK ? plan_check_stack(p, lim) : r;
}

enum plan_rule plan_check_tp(const struct plan *p, const struct model *m,
                             const struct plan_limits *lim)
{
    if (m->heads % p->tp)
        return PLAN_RULE_HEADS_TP;
    if (m->kv_heads % p->tp)
        return PLAN_RULE_KV_HEADS_TP;
    if (m->ffn_hidden % p->tp)
        return PLAN_RULE_FFN_TP;
    /* tp is innermost in Megatron's rank order (megatron/core/
     * parallel_state.py), so the groups tile the domain: a tp that does not
     * divide it puts a group across two domains (GB200 NVL72: tp 16 on
     * ranks 64-79), whose collectives the NVLink model would not time */
    if (p->tp > lim->tp_domain ? !lim->tp_cross_node : lim->tp_domain % p->tp)
        return PLAN_RULE_TP_DOMAIN;
    return PLAN_OK;
}

enum plan_rule plan_check_seq(const struct plan *p, const struct model *m,
                              const struct job *j)
{
    if (p->sp && p->tp == 1)
        return PLAN_RULE_SP_TP;
    /* the two chunks per cp rank (predictor/cp.c); no split without cp */
    if (p->cp > 1 && j->seq % (2 * (int64_t)p->cp))
        return PLAN_RULE_CP_SEQ;
    if (p->sp && (j->seq / p->cp) % p->tp)
        return PLAN_RULE_SEQ_SP;
    if (p->cp > 1 && j->cp_comm == JOB_CP_A2A &&
        ((m->heads / p->tp) % p->cp || (m->kv_heads / p->tp) % p->cp))
        return PLAN_RULE_CP_HEADS;
    if (p->tpo && !p->sp)
        return PLAN_RULE_TPO_SP;
    return PLAN_OK;
}

enum plan_rule plan_check_batch(const struct plan *p, const struct model *m,
                                const struct job *j, const struct plan_limits *lim)
{
    int64_t dpm = (int64_t)p->dp * p->mbs;
    if (j->gbs % dpm)
        return PLAN_RULE_GBS_DP;
    if (p->vpp > 1 && p->pp == 1)
        return PLAN_RULE_VPP_PP;
    if (p->vpp > 1 && (j->gbs / dpm) % p->pp)
        return PLAN_RULE_VPP_MICRO;
    /* the costliest rule last (spaces/stages.c; O(1), a few divisions) */
    if (plan_stage_layout(p, m, lim, &(struct stage_layout){ 0 }))
        return PLAN_RULE_LAYERS_PP;
    if (p->vpp > 1 ? !lim->stack_interleaved : p->pp > 1 && !lim->stack_1f1b)
        return PLAN_RULE_STACK_SCHEDULE;
    return PLAN_OK;
}

enum plan_rule plan_check_stack(const struct plan *p,
                                const struct plan_limits *lim)
{
    if (p->tpo && !lim->stack_tpo)
        return PLAN_RULE_STACK_TPO;
    if (p->cp > 1 && !lim->stack_cp)
        return PLAN_RULE_STACK_CP;
    if (p->replicas > 1 && (p->zero == 0 || p->dp % p->replicas))
        return PLAN_RULE_REPLICAS;
    if (p->rc_layers > 0 && p->recompute != PLAN_RECOMPUTE_FULL)
        return PLAN_RULE_RC_LAYERS;
    if (p->rc_layers > 0 && !lim->stack_rc_block)
        return PLAN_RULE_STACK_RC_BLOCK;
    if (p->offload) {
        enum plan_rule r = plan_check_offload(p, lim);
        if (r != PLAN_OK)
            return r;
    }
    return plan_check_overlap(p, lim);
}

/* The optimizer offload's (header). */
enum plan_rule plan_check_offload(const struct plan *p,
                                  const struct plan_limits *lim)
{
    if (!lim->stack_offload)    /* what cannot change first */
        return PLAN_RULE_STACK_OFFLOAD;
    if (!lim->host_link)
        return PLAN_RULE_OFFLOAD_HOST;
    return p->zero != 1 ? PLAN_RULE_OFFLOAD_ZERO : PLAN_OK;
}

/* The all-to-all overlap's (header). */
static enum plan_rule plan_check_epo(const struct plan *p,
                                     const struct plan_limits *lim)
{
    if (p->ep == 1)
        return PLAN_RULE_EPO_EP;
    if (p->recompute == PLAN_RECOMPUTE_FULL)
        return PLAN_RULE_EPO_RECOMPUTE;
    if (p->pp > 1 && p->vpp == 1)
        return PLAN_RULE_EPO_SCHEDULE;
    return lim->stack_epo ? PLAN_OK : PLAN_RULE_STACK_EPO;
}

/* The data-parallel ranks FSDP shards over: dp / replicas under zero 3,
 * none (1) otherwise. */
static int64_t fsdp_shard(const struct plan *p)
{
    return p->zero == 3 ? p->dp / (p->replicas > 1 ? p->replicas : 1) : 1;
}

enum plan_rule plan_check_ep_mesh(const struct plan *p)
{
    if (p->etp != 1 && p->etp != p->tp)
        return PLAN_RULE_EP_MESH_ETP;
    if (p->ep == 1 && p->etp != p->tp)
        return PLAN_RULE_EP_MESH_ETP;
    if (fsdp_shard(p) * p->cp * p->tp % ((int64_t)p->ep * p->etp))
        return PLAN_RULE_EP_MESH_FOLD;
    return PLAN_OK;
}

/* The MoE rules of a plan plan_moe_checked lets in (header). */
enum plan_rule plan_check_moe(const struct plan *p, const struct model *m,
                              const struct plan_limits *lim)
{
    if (m->moe.experts == 0)
        return PLAN_RULE_EP_DENSE;
    if (m->moe.experts % p->ep)
        return PLAN_RULE_EP_EXPERTS;
    if (m->moe.ffn_hidden % p->etp)
        return PLAN_RULE_ETP_FFN;
    if (lim->ep_mesh == PLAN_EP_MESH_FSDP) {
        enum plan_rule r = plan_check_ep_mesh(p);
        if (r != PLAN_OK)
            return r;
    } else if ((int64_t)p->tp * p->cp * p->dp % ((int64_t)p->ep * p->etp))
        return PLAN_RULE_EP_FOLD;
    if (p->tp > 1 && !p->sp)
        return PLAN_RULE_EP_SP;
    if (p->ep > 1 && !lim->stack_ep)
        return PLAN_RULE_STACK_EP;
    return p->epo ? plan_check_epo(p, lim) : PLAN_OK;
}

enum plan_rule plan_check_zero(const struct plan *p,
                               const struct plan_limits *lim)
{
    if (!(lim->stack_zero >> p->zero & 1))
        return PLAN_RULE_STACK_ZERO;
    if (p->pp > 1 && p->zero > lim->stack_zero_pp)
        return PLAN_RULE_ZERO_PP;
    return PLAN_OK;
}

enum plan_rule plan_check_overlap(const struct plan *p,
                                  const struct plan_limits *lim)
{
    if (p->overlap && !lim->stack_overlap)
        return PLAN_RULE_STACK_OVERLAP;
    if (p->overlap && (int64_t)p->dp * p->cp == 1)  /* gradient group */
        return PLAN_RULE_OVERLAP_DP;
    return PLAN_OK;
}

/* ---- explanations, one per rule: the rule and the numbers that break it */

struct why {                    /* what an explanation may quote */
    const struct plan *p;
    const struct model *m;
    const struct job *j;
    const struct plan_limits *lim;
    char *buf;
    size_t n;
};

static void why_ok(const struct why *w) { snprintf(w->buf, w->n, "valid"); }

static void why_degree(const struct why *w)
{
    snprintf(w->buf, w->n, "degree: tp, cp, pp, dp, mbs, vpp, ep and etp must be in "
             "[1, %d], zero 0 to 3, sp and tpo n or y", PLAN_MAX_DEGREE);
}

static void why_divides(const struct why *w, const char *rule, const char *what,
                        int64_t have, const char *by, int64_t deg)
{
    snprintf(w->buf, w->n, "%s: %s (%lld) not divisible by %s (%lld)", rule,
             what, (long long)have, by, (long long)deg);
}

static void why_heads(const struct why *w)
{
    why_divides(w, "heads-tp", "heads", w->m->heads, "tp", w->p->tp);
}

static void why_kv_heads(const struct why *w)
{
    why_divides(w, "kv-heads-tp", "kv_heads", w->m->kv_heads, "tp", w->p->tp);
}

static void why_ffn(const struct why *w)
{
    why_divides(w, "ffn-tp", "ffn_hidden", w->m->ffn_hidden, "tp", w->p->tp);
}

static void why_domain(const struct why *w)
{
    snprintf(w->buf, w->n, w->p->tp > w->lim->tp_domain
             ? "tp-domain: tp (%d) larger than the NVLink domain (%lld GPUs)"
             : "tp-domain: tp (%d) does not divide the NVLink domain (%lld "
               "GPUs): a tp group would span two domains",
             (int)w->p->tp, (long long)w->lim->tp_domain);
}

static void why_sp_tp(const struct why *w)
{
    snprintf(w->buf, w->n, "sp-tp: sequence parallelism needs tp > 1");
}

static void why_seq_sp(const struct why *w)
{
    snprintf(w->buf, w->n, "seq-sp: seq / cp (%lld) not divisible by tp (%d) "
             "with sequence parallelism", (long long)(w->j->seq / w->p->cp),
             (int)w->p->tp);
}

static void why_cp_seq(const struct why *w)
{
    why_divides(w, "cp-seq", "seq", w->j->seq, "2*cp", 2 * (int64_t)w->p->cp);
}

static void why_cp_heads(const struct why *w)
{
    snprintf(w->buf, w->n, "cp-a2a-heads: all-to-all context parallelism splits "
             "heads (%lld) and kv_heads (%lld) per tp rank over cp (%d)",
             (long long)(w->m->heads / w->p->tp),
             (long long)(w->m->kv_heads / w->p->tp), (int)w->p->cp);
}

static void why_tpo_sp(const struct why *w)
{
    snprintf(w->buf, w->n, "tpo-sp: TP communication overlap needs sequence "
             "parallelism (sp)");
}

/* What each split rule can do, for the message. */
static const char *const split_can[STAGE_SPLIT_COUNT] = {
    [STAGE_SPLIT_MEGATRON] = "equal stages, the embedding/loss as layer "
        "slots, or first/last stage counts with equal middle stages, each "
        "divisible by vpp",
    [STAGE_SPLIT_EVEN] = "equal stages only",
    [STAGE_SPLIT_TORCHTITAN] = "layers + 2 slots over pp*vpp stages, at "
        "least one each, and only its own split",
    [STAGE_SPLIT_DEEPSPEED] = "a balanced split, at least one layer per "
        "stage",
    [STAGE_SPLIT_DEEPSPEED_ENDS] = "layers + 2 embedding slots balanced, at "
        "least one layer per stage",
};

static void why_layers(const struct why *w)
{
    char asked[64] = "";
    if (w->p->pp_first || w->p->pp_last)
        snprintf(asked, sizeof asked, " with first %d and last %d",
                 (int)w->p->pp_first, (int)w->p->pp_last);
    snprintf(w->buf, w->n, "layers-pp: %lld layers cannot be split over pp "
             "%d x vpp %d%s by the '%s' rule (%s)", (long long)w->m->layers,
             (int)w->p->pp, (int)w->p->vpp, asked,
             stage_split_name(w->lim->split), split_can[w->lim->split]);
}

static void why_gbs(const struct why *w)
{
    why_divides(w, "gbs-dp", "gbs", w->j->gbs, "dp*mbs",
                (int64_t)w->p->dp * w->p->mbs);
}

static void why_vpp_pp(const struct why *w)
{
    snprintf(w->buf, w->n, "vpp-pp: vpp > 1 needs pp > 1");
}

static void why_vpp_micro(const struct why *w)
{
    snprintf(w->buf, w->n, "vpp-microbatches: micro-batches (%lld) not divisible "
             "by pp (%d) with vpp > 1",
             (long long)(w->j->gbs / ((int64_t)w->p->dp * w->p->mbs)), (int)w->p->pp);
}

static void why_stack_schedule(const struct why *w)
{
    if (w->p->vpp > 1)
        snprintf(w->buf, w->n, "stack-schedule: vpp (%d) > 1 needs the "
                 "interleaved schedule, which the stack does not have",
                 (int)w->p->vpp);
    else
        snprintf(w->buf, w->n, "stack-schedule: pp (%d) > 1 needs the 1F1B "
                 "schedule, which the stack does not have", (int)w->p->pp);
}

static void why_stack_zero(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-zero: the stack cannot run zero %d%s",
             (int)w->p->zero, w->p->zero == 1 ? " (no ZeRO-1 / distributed "
             "optimizer)" : "");
}

static void why_stack_tpo(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-tp-overlap: the stack cannot overlap TP "
             "communication (tp_comm_overlap none)");
}

static void why_stack_cp(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-cp: the stack has no context parallelism "
             "(cp_comm none), cp %d", (int)w->p->cp);
}

static void why_zero_pp(const struct why *w)
{
    snprintf(w->buf, w->n, "zero-pp: the stack runs zero %d only without "
             "pipeline parallelism (pp %d; at most zero %d with pp > 1)",
             (int)w->p->zero, (int)w->p->pp, (int)w->lim->stack_zero_pp);
}

static void why_stack_overlap(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-overlap: the stack overlaps no data-parallel "
             "communication (overlap n)");
}

static void why_overlap_dp(const struct why *w)
{
    snprintf(w->buf, w->n, "overlap-dp: no data-parallel communication to "
             "overlap with dp 1 (overlap n)");
}

static void why_replicas(const struct why *w)
{
    if (w->p->zero == 0)
        snprintf(w->buf, w->n, "replicas-dp: replicas (%d) > 1 shard nothing "
                 "with zero 0", (int)w->p->replicas);
    else
        why_divides(w, "replicas-dp", "dp", w->p->dp, "replicas",
                    w->p->replicas);
}

static void why_rc_layers(const struct why *w)
{
    snprintf(w->buf, w->n, "recompute-layers: recompute_layers (%d) > 0 "
             "recomputes whole layers and needs recompute full, not %s",
             (int)w->p->rc_layers,
             plan_recompute_name((enum plan_recompute)w->p->recompute));
}

static void why_stack_rc_block(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-rc-block: the stack cannot recompute only "
             "some layers of a stage (recompute_block false), "
             "recompute_layers %d", (int)w->p->rc_layers);
}

static void why_ep_dense(const struct why *w)
{
    snprintf(w->buf, w->n, "ep-dense: model '%s' has no experts to split "
             "over ep (%d) and etp (%d)", w->m->name, (int)w->p->ep,
             (int)w->p->etp);
}

static void why_ep_experts(const struct why *w)
{
    why_divides(w, "ep-experts", "experts", w->m->moe.experts, "ep", w->p->ep);
}

static void why_etp_ffn(const struct why *w)
{
    why_divides(w, "etp-ffn", "moe_ffn_hidden", w->m->moe.ffn_hidden, "etp",
                w->p->etp);
}

static void why_ep_fold(const struct why *w)
{
    snprintf(w->buf, w->n, "ep-fold: ep*etp (%lld) does not divide the "
             "tp*cp*dp GPUs of a stage (%lld) that the MoE layers fold over",
             (long long)w->p->ep * w->p->etp,
             (long long)w->p->tp * w->p->cp * w->p->dp);
}

static void why_ep_mesh_etp(const struct why *w)
{
    snprintf(w->buf, w->n, "ep-mesh-etp: the stack's expert mesh runs etp 1 "
             "or etp = tp (%d), and tp when ep is 1 (ep %d, etp %d)",
             (int)w->p->tp, (int)w->p->ep, (int)w->p->etp);
}

static void why_ep_mesh_fold(const struct why *w)
{
    const struct plan *p = w->p;
    snprintf(w->buf, w->n, "ep-mesh-fold: ep*etp (%lld) does not divide the "
             "FSDP-sharded ranks x cp x tp (%lld x %d x %d) the stack's "
             "expert mesh is cut from", (long long)p->ep * p->etp,
             (long long)fsdp_shard(p), (int)p->cp, (int)p->tp);
}

static void why_ep_sp(const struct why *w)
{
    snprintf(w->buf, w->n, "ep-sp: expert parallelism with tp (%d) > 1 needs "
             "sequence parallelism (sp)", (int)w->p->tp);
}

static void why_stack_ep(const struct why *w)
{
    snprintf(w->buf, w->n, "stack-ep: the stack has no expert parallelism "
             "(moe_dispatcher none), ep %d", (int)w->p->ep);
}

static void why_epo(const struct why *w)
{
    const struct plan *p = w->p;
    snprintf(w->buf, w->n, "%s", p->ep == 1
             ? "epo-ep: all-to-all overlap (epo) needs expert parallelism (ep > 1)"
             : p->recompute == PLAN_RECOMPUTE_FULL
             ? "epo-recompute: all-to-all overlap (epo) cannot run with full "
               "recompute"
             : p->pp > 1 && p->vpp == 1
             ? "epo-schedule: all-to-all overlap (epo) with pp > 1 needs the "
               "interleaved schedule (vpp > 1)"
             : "stack-epo: the stack cannot overlap MoE all-to-alls "
               "(moe_a2a_overlap false)");
}

static void why_offload(const struct why *w)
{
    if (!w->lim->stack_offload || !w->lim->host_link)
        snprintf(w->buf, w->n, "%s", !w->lim->stack_offload
                 ? "stack-offload: the stack cannot offload optimizer states "
                   "(optimizer_offload false, or a full-iteration CUDA graph)"
                 : "offload-host: the system file gives no host link "
                   "(node.host_gbs) to time the offload over");
    else
        snprintf(w->buf, w->n, "offload-zero: optimizer offload needs the "
                 "distributed optimizer (zero 1), zero %d", (int)w->p->zero);
}

static void (*const explain[PLAN_RULE_COUNT])(const struct why *) = {
    [PLAN_OK] = why_ok, [PLAN_RULE_DEGREE] = why_degree,
    [PLAN_RULE_HEADS_TP] = why_heads, [PLAN_RULE_KV_HEADS_TP] = why_kv_heads,
    [PLAN_RULE_FFN_TP] = why_ffn, [PLAN_RULE_TP_DOMAIN] = why_domain,
    [PLAN_RULE_SP_TP] = why_sp_tp, [PLAN_RULE_SEQ_SP] = why_seq_sp,
    [PLAN_RULE_CP_SEQ] = why_cp_seq, [PLAN_RULE_CP_HEADS] = why_cp_heads,
    [PLAN_RULE_TPO_SP] = why_tpo_sp,
    [PLAN_RULE_LAYERS_PP] = why_layers, [PLAN_RULE_GBS_DP] = why_gbs,
    [PLAN_RULE_VPP_PP] = why_vpp_pp, [PLAN_RULE_VPP_MICRO] = why_vpp_micro,
    [PLAN_RULE_STACK_SCHEDULE] = why_stack_schedule,
    [PLAN_RULE_STACK_ZERO] = why_stack_zero,
    [PLAN_RULE_STACK_TPO] = why_stack_tpo,
    [PLAN_RULE_STACK_CP] = why_stack_cp, [PLAN_RULE_ZERO_PP] = why_zero_pp,
    [PLAN_RULE_STACK_OVERLAP] = why_stack_overlap,
    [PLAN_RULE_OVERLAP_DP] = why_overlap_dp, [PLAN_RULE_REPLICAS] = why_replicas,
    [PLAN_RULE_RC_LAYERS] = why_rc_layers,
    [PLAN_RULE_STACK_RC_BLOCK] = why_stack_rc_block,
    [PLAN_RULE_EP_DENSE] = why_ep_dense, [PLAN_RULE_EP_EXPERTS] = why_ep_experts,
    [PLAN_RULE_ETP_FFN] = why_etp_ffn, [PLAN_RULE_EP_FOLD] = why_ep_fold,
    [PLAN_RULE_EP_MESH_ETP] = why_ep_mesh_etp,
    [PLAN_RULE_EP_MESH_FOLD] = why_ep_mesh_fold,
    [PLAN_RULE_EP_SP] = why_ep_sp, [PLAN_RULE_STACK_EP] = why_stack_ep,
    [PLAN_RULE_EPO_EP] = why_epo, [PLAN_RULE_EPO_RECOMPUTE] = why_epo,
    [PLAN_RULE_EPO_SCHEDULE] = why_epo, [PLAN_RULE_STACK_EPO] = why_epo,
    [PLAN_RULE_OFFLOAD_ZERO] = why_offload,
    [PLAN_RULE_STACK_OFFLOAD] = why_offload,
    [PLAN_RULE_OFFLOAD_HOST] = why_offload,
};

void plan_rule_explain(enum plan_rule r, const struct plan *p,
                       const struct model *m, const struct job *j,
                       const struct plan_limits *lim, char *buf, size_t n)
{
    struct why w = { p, m, j, lim, buf, n };
    if ((unsigned)r >= PLAN_RULE_COUNT || !explain[r])
        TPL_BUG("plan_rule_explain: bad rule %d", (int)r);
    explain[r](&w);
}
