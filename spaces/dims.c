/* spaces/dims.c: the table of plan dimensions (see dims.h). The ranges are
 * Megatron-LM's own argument checks (megatron/training/arguments.py):
 * degrees are positive; --recompute-granularity is selective or full;
 * --use-distributed-optimizer shards the optimizer states (ZeRO-1, 'zero'
 * 1); --context-parallel-size splits the sequence (cp); --tp-comm-overlap
 * overlaps TP communication with the GEMMs (tpo); Megatron-FSDP's
 * --data-parallel-sharding-strategy optim_grads shards the gradients too
 * (ZeRO-2, 'zero' 2) and optim_grads_params the parameters (ZeRO-3 / FSDP,
 * 'zero' 3; Rajbhandari et al. SC20 Table 1); --expert-model-parallel-size
 * and --expert-tensor-parallel-size split the MoE layers (ep, etp). The
 * key tokens follow the plan keys of the README
 * ("tp8.cp2.pp4.dp8.mb1.vpp2.sp.tpo.rc-sel.z1.ep8"). */
#include "spaces/dims.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spaces/plan.h"

static const char *const yn_names[] = { "n", "y", NULL };
static const char *const sp_keys[] = { "", "sp", NULL };
static const char *const tpo_keys[] = { "", "tpo", NULL };
static const char *const recompute_names[] = { "none", "selective", "full", NULL };
static const char *const recompute_keys[] = { "", "rc-sel", "rc-full", NULL };
static const char *const overlap_keys[] = { "no-ov", "", NULL };
static const char *const epo_keys[] = { "", "epo", NULL };
static const char *const offload_keys[] = { "", "offload", NULL };

#define DEGREE(field, tok, text, rl, au, layer)                               \
    { .name = #field, .key = tok, .help = text, .lo = 1, .hi = PLAN_MAX_DEGREE, \
      .dflt = 1, .per_layer = layer, .role = rl, .autorule = au,              \
      .offset = offsetof(struct plan, field) }

const struct plan_dim_info plan_dims[PLAN_DIM_COUNT] = {
    [PLAN_DIM_TP] = DEGREE(tp, "tp", "tensor-parallel degree",
                           PLAN_ROLE_BLOCK, PLAN_AUTO_HEADS, true),
    /* Megatron's rank order puts cp right after tp (tp innermost, then cp,
     * dp, pp: megatron/core/parallel_state.py), so a block fixes it too */
    [PLAN_DIM_CP] = { .name = "cp", .key = "cp", .lo = 1,
        .help = "context-parallel degree (sequence split over GPUs)",
        .hi = PLAN_MAX_DEGREE, .dflt = 1, .key_omits_default = true,
        .per_layer = true, .role = PLAN_ROLE_BLOCK, .autorule = PLAN_AUTO_CP,
        .offset = offsetof(struct plan, cp) },
    [PLAN_DIM_PP] = DEGREE(pp, "pp", "pipeline stages",
                           PLAN_ROLE_BLOCK, PLAN_AUTO_LAYERS, false),
    [PLAN_DIM_DP] = DEGREE(dp, "dp", "data-parallel degree (GPUs / (tp cp pp))",
                           PLAN_ROLE_DERIVED, PLAN_AUTO_DERIVED, false),
    [PLAN_DIM_MBS] = DEGREE(mbs, "mb", "micro-batch, sequences",
                            PLAN_ROLE_INNER, PLAN_AUTO_SMALL, true),
    [PLAN_DIM_VPP] = { .name = "vpp", .key = "vpp", .lo = 1,
        .help = "model chunks per pipeline rank (interleaved 1F1B)",
        .hi = PLAN_MAX_DEGREE, .dflt = 1, .key_omits_default = true,
        .role = PLAN_ROLE_INNER, .autorule = PLAN_AUTO_SMALL,
        .offset = offsetof(struct plan, vpp) },
    /* Megatron-Core --decoder-first/last-pipeline-num-layers (megatron/
     * training/arguments.py); derived in a search by the stack's split
     * rule (spaces/stages.c), 0 (left out of the key) for equal stages */
    [PLAN_DIM_PP_FIRST] = { .name = "pp_first", .key = "pf", .lo = 0,
        .help = "layers on the first pipeline stage (0: the stack's split)",
        .hi = PLAN_MAX_DEGREE, .dflt = 0, .key_omits_default = true,
        .role = PLAN_ROLE_DERIVED, .autorule = PLAN_AUTO_DERIVED,
        .offset = offsetof(struct plan, pp_first) },
    [PLAN_DIM_PP_LAST] = { .name = "pp_last", .key = "pl", .lo = 0,
        .help = "layers on the last pipeline stage (0: the stack's split)",
        .hi = PLAN_MAX_DEGREE, .dflt = 0, .key_omits_default = true,
        .role = PLAN_ROLE_DERIVED, .autorule = PLAN_AUTO_DERIVED,
        .offset = offsetof(struct plan, pp_last) },
    [PLAN_DIM_SP] = { .name = "sp", .key = "sp", .names = yn_names,
        .help = "Megatron sequence parallelism", .key_names = sp_keys,
        .lo = 0, .hi = 1, .dflt = 0, .per_layer = true, .is_switch = true,
        .role = PLAN_ROLE_INNER, .autorule = PLAN_AUTO_ALL,
        .offset = offsetof(struct plan, sp) },
    [PLAN_DIM_TPO] = { .name = "tpo", .key = "tpo", .names = yn_names,
        .help = "TP communication overlap (TE userbuffers, torchtitan async TP)",
        .key_names = tpo_keys, .lo = 0, .hi = 1, .dflt = 0, .per_layer = true,
        .is_switch = true, .role = PLAN_ROLE_INNER,
        .autorule = PLAN_AUTO_STACK_TPO, .offset = offsetof(struct plan, tpo) },
    [PLAN_DIM_RECOMPUTE] = { .name = "recompute", .key = "rc",
        .help = "activation recomputation", .names = recompute_names,
        .key_names = recompute_keys, .lo = 0, .hi = PLAN_RECOMPUTE_COUNT - 1,
        .dflt = PLAN_RECOMPUTE_NONE, .per_layer = true, .role = PLAN_ROLE_INNER,
        .autorule = PLAN_AUTO_ALL, .offset = offsetof(struct plan, recompute) },
    /* Megatron-LM --recompute-method block --recompute-num-layers N with
     * --recompute-granularity full (megatron/training/arguments.py; the
     * loop in megatron/core/transformer/transformer_block.py
     * _checkpointed_forward): each model chunk (a pipeline stage, or a
     * virtual stage with interleaving: NeMo's activation_recomputation.rst
     * "recompute_num_layers specifies the number of layers per virtual
     * pipeline stage") checkpoints its first N layers and keeps the
     * others' activations. 0: every layer (the uniform method, the plan
     * 'rc-full'); the key joins it to the recompute token, "rc-full4"
     * ("rc4" after none, a plan rule recompute-layers refuses).
     * A search does not walk it: each plan with full recompute gets the
     * smallest listed value that fits (predictor/mem.c
     * pred_rc_layers_fit). */
    [PLAN_DIM_RC_LAYERS] = { .name = "recompute_layers", .key = "rc",
        .help = "with full recompute, layers per stage/chunk recomputed (block; 0 all)",
        .lo = 0, .hi = PLAN_MAX_DEGREE, .dflt = 0, .key_omits_default = true,
        .key_joins = true, .role = PLAN_ROLE_FIT,
        .autorule = PLAN_AUTO_STACK_RC_BLOCK,
        .offset = offsetof(struct plan, rc_layers) },
    /* a block dimension: a block whose zero the stack refuses (stack-zero,
     * zero-pp: the first rules checked) is skipped whole */
    [PLAN_DIM_ZERO] = { .name = "zero", .key = "z", .lo = 0, .hi = 3,
        .help = "sharding over dp: 1 optimizer (ZeRO-1), 2 + grads, 3 + params (FSDP)",
        .dflt = 0, .key_omits_default = true, .role = PLAN_ROLE_BLOCK,
        .autorule = PLAN_AUTO_ALL, .offset = offsetof(struct plan, zero) },
    /* Megatron's --overlap-grad-reduce and --overlap-param-gather (the
     * latter needs the former and a sharded optimizer, arguments.py): y
     * overlaps what the stack overlaps (its overlap_grad_reduce and
     * overlap_param_gather), n nothing */
    [PLAN_DIM_OVERLAP] = { .name = "overlap", .key = "ov", .names = yn_names,
        .help = "DP communication overlapped (=y, =n; default: the stack's)",
        .key_names = overlap_keys, .lo = 0, .hi = 1, .dflt = 1,
        .is_switch = true, .role = PLAN_ROLE_CHOICE, .autorule = PLAN_AUTO_ALL,
        .offset = offsetof(struct plan, overlap) },
    /* Hybrid sharding (HSDP): ZeRO shards inside groups of dp / replicas
     * contiguous dp ranks and replicates across the groups (torchtitan
     * data_parallel_replicate_degree; Megatron-LM
     * --num-distributed-optimizer-instances with Megatron-FSDP's
     * --outer-dp-sharding-strategy no_shard) */
    [PLAN_DIM_REPLICAS] = { .name = "replicas", .key = "r", .lo = 1,
        .hi = PLAN_MAX_DEGREE, .dflt = 1, .key_omits_default = true,
        .help = "HSDP: ZeRO shards over dp/replicas ranks, replicated across",
        .role = PLAN_ROLE_INNER, .autorule = PLAN_AUTO_DEFAULT,
        .offset = offsetof(struct plan, replicas) },
    /* Megatron-Core --expert-model-parallel-size and
     * --expert-tensor-parallel-size (arguments.py) under MoE parallel
     * folding (plan_edp): the experts of an MoE layer are split over ep
     * ranks, each expert's FFN over etp. Megatron defaults etp to tp when
     * it is not given; a plan says it (1, as the Megatron-LM DeepSeek-V3
     * and Qwen3 recipes set it), and exports write it. Both change the
     * MoE layer's times (memo key). */
    [PLAN_DIM_EP] = { .name = "ep", .key = "ep", .lo = 1,
        .help = "expert-parallel degree (experts split over GPUs)",
        .hi = PLAN_MAX_DEGREE, .dflt = 1, .key_omits_default = true,
        .per_layer = true, .role = PLAN_ROLE_INNER,
        .autorule = PLAN_AUTO_EXPERTS, .offset = offsetof(struct plan, ep) },
    [PLAN_DIM_ETP] = { .name = "etp", .key = "etp", .lo = 1,
        .help = "expert tensor-parallel degree (each expert's FFN split)",
        .hi = PLAN_MAX_DEGREE, .dflt = 1, .key_omits_default = true,
        .per_layer = true, .role = PLAN_ROLE_INNER,
        .autorule = PLAN_AUTO_DEFAULT, .offset = offsetof(struct plan, etp) },
    /* Megatron-Core --overlap-moe-expert-parallel-comm: the combined 1F1B
     * schedule (megatron/core/pipeline_parallel/combined_1f1b.py) pairs
     * one micro-batch's forward with another's backward layer by layer,
     * each one's all-to-alls beside the other's computation
     * (predictor/moe.c) */
    [PLAN_DIM_EPO] = { .name = "epo", .key = "epo", .names = yn_names,
        .help = "MoE all-to-all overlap with another micro-batch (combined 1F1B)",
        .key_names = epo_keys, .lo = 0, .hi = 1, .dflt = 0, .per_layer = true,
        .is_switch = true, .role = PLAN_ROLE_INNER,
        .autorule = PLAN_AUTO_STACK_EPO, .offset = offsetof(struct plan, epo) },
    /* Megatron-Core --chunked-optimizer-state-offload (megatron/core/
     * optimizer/cpu_offloading/README.md): the fp32 master weights and
     * Adam states in pinned host memory between steps, restored over the
     * host link for the step, which still runs on the GPU (predictor/
     * shard.c memory, compose.c time). A fit dimension: offloading by
     * itself never makes a plan faster, so a search gives it to a plan
     * that fits in no other way, or whose full recompute it lets rebuild
     * fewer layers where that is faster (search.c plan_memory,
     * offload_twin) */
    [PLAN_DIM_OFFLOAD] = { .name = "offload", .key = "offload",
        .names = yn_names, .key_names = offload_keys,
        .help = "optimizer states in host memory between steps (chunked offload)",
        .lo = 0, .hi = 1, .dflt = 0, .is_switch = true, .role = PLAN_ROLE_FIT,
        .autorule = PLAN_AUTO_STACK_OFFLOAD,
        .offset = offsetof(struct plan, offload) },
};
static_assert(PLAN_DIM_COUNT == 19, "a new dimension needs a row in plan_dims");
static_assert(PLAN_RECOMPUTE_COUNT == 3, "update recompute_names and recompute_keys");

int32_t plan_dim_get(const struct plan *p, enum plan_dim d)
{
    int32_t v;
    memcpy(&v, (const char *)p + plan_dims[d].offset, sizeof v);
    return v;
}

void plan_dim_set(struct plan *p, enum plan_dim d, int32_t v)
{
    memcpy((char *)p + plan_dims[d].offset, &v, sizeof v);
}

int plan_dim_find(const char *name)
{
    for (int d = 0; d < PLAN_DIM_COUNT; d++)
        if (!strcmp(plan_dims[d].name, name))
            return d;
    return -1;
}

static int name_index(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

int plan_dim_parse(enum plan_dim d, const char *s, int32_t *out)
{
    const struct plan_dim_info *di = &plan_dims[d];
    char *end;
    long long v;
    if (di->names) {
        int i = name_index(di->names, s);
        if (i < 0 && d == PLAN_DIM_RECOMPUTE && !strcmp(s, "sel"))
            i = PLAN_RECOMPUTE_SELECTIVE;
        *out = i;
        return i < 0 ? -1 : 0;
    }
    errno = 0;
    v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < di->lo || v > di->hi)
        return -1;
    *out = (int32_t)v;
    return 0;
}

const char *plan_dim_value_name(enum plan_dim d, int32_t v)
{
    const struct plan_dim_info *di = &plan_dims[d];
    return di->names && v >= di->lo && v <= di->hi ? di->names[v] : NULL;
}

void plan_dim_expect(enum plan_dim d, char *buf, size_t n)
{
    const struct plan_dim_info *di = &plan_dims[d];
    size_t len = 0;
    buf[0] = '\0';
    if (!di->names) {
        snprintf(buf, n, "an integer in [%d, %d]", (int)di->lo, (int)di->hi);
        return;
    }
    for (int i = 0; di->names[i] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s'%s'", i ? ", " : "",
                                di->names[i]);
}
