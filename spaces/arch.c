/* spaces/arch.c: what a model file may add to a dense decoder (model.h):
 * a head width other than hidden / heads, mixture-of-experts MLPs,
 * multi-head latent attention, sliding-window layers and multi-token
 * prediction, and the parameter counts they imply. Every field is optional;
 * a file without them is the dense model of model.c, counted as before.
 *
 * Field names follow Megatron-LM's arguments (megatron/training/
 * arguments.py: --num-experts, --moe-router-topk, --moe-ffn-hidden-size,
 * --moe-shared-expert-intermediate-size, --moe-layer-freq, --kv-channels,
 * --q-lora-rank, --kv-lora-rank, --qk-head-dim, --qk-pos-emb-head-dim,
 * --v-head-dim, --mtp-num-layers) with a moe_ prefix where theirs has one.
 * Their parameter counts are in spaces/params.c. */
#include "spaces/model.h"

#include <assert.h>
#include <string.h>

static const char *const router_names[MODEL_ROUTER_COUNT] = {
    [MODEL_ROUTER_SOFTMAX] = "softmax", [MODEL_ROUTER_SIGMOID] = "sigmoid",
};
static const char *const balance_names[MODEL_BALANCE_COUNT] = {
    [MODEL_BALANCE_AUX] = "aux_loss", [MODEL_BALANCE_SEQ_AUX] = "seq_aux_loss",
    [MODEL_BALANCE_AUX_FREE] = "aux_free", [MODEL_BALANCE_NONE] = "none",
};
static_assert(MODEL_ROUTER_COUNT == 2 && MODEL_BALANCE_COUNT == 4,
              "update router_names and balance_names");

const char *model_router_name(enum model_router r) { return router_names[r]; }
const char *model_balance_name(enum model_balance b) { return balance_names[b]; }

/* ---- reading ---- */

/* An optional integer: 'dflt' when absent. */
static int mbr_int(const struct conf_group *g, const char *key, int64_t lo,
                   int64_t hi, int64_t dflt, int64_t *out, struct tpl_err *err)
{
    *out = dflt;
    return conf_has(g, key) ? conf_int(g, key, lo, hi, out, err) : 0;
}

static int read_moe(struct model_moe *e, const struct conf_group *g,
                    struct tpl_err *err)
{
    int router = 0, balance = 0;
    e->capacity_factor = 0;
    if (mbr_int(g, "experts", 0, 1 << 14, 0, &e->experts, err) ||
        mbr_int(g, "moe_topk", 1, 1 << 14, 1, &e->topk, err) ||
        mbr_int(g, "moe_ffn_hidden", 1, MODEL_MAX_FFN, 1, &e->ffn_hidden, err) ||
        mbr_int(g, "moe_shared_ffn_hidden", 0, MODEL_MAX_FFN, 0,
                &e->shared_ffn_hidden, err) ||
        mbr_int(g, "moe_dense_first", 0, MODEL_MAX_LAYERS, 0, &e->dense_first,
                err) ||
        mbr_int(g, "moe_layer_freq", 1, MODEL_MAX_LAYERS, 1, &e->layer_freq,
                err) ||
        mbr_int(g, "moe_groups", 1, 1 << 14, 1, &e->groups, err) ||
        mbr_int(g, "moe_group_topk", 1, 1 << 14, e->groups, &e->group_topk,
                err) ||
        (conf_has(g, "moe_router") && conf_enum(g, "moe_router", router_names,
                                                 MODEL_ROUTER_COUNT, &router, err)) ||
        (conf_has(g, "moe_balance") && conf_enum(g, "moe_balance", balance_names,
                                                  MODEL_BALANCE_COUNT, &balance, err)) ||
        (conf_has(g, "moe_capacity_factor") &&
         conf_num(g, "moe_capacity_factor", 0, false, 64, &e->capacity_factor, err)))
        return TPL_ECONFIG;
    e->router = (enum model_router)router;
    e->balance = (enum model_balance)balance;
    return 0;
}

static int read_mla(struct model_mla *a, const struct conf_group *g,
                    struct tpl_err *err)
{
    return mbr_int(g, "q_lora_rank", 0, MODEL_MAX_HIDDEN, 0, &a->q_lora_rank, err) ||
           mbr_int(g, "kv_lora_rank", 0, MODEL_MAX_HIDDEN, 0, &a->kv_lora_rank, err) ||
           mbr_int(g, "qk_nope_head_dim", 0, 1 << 12, 0, &a->qk_nope_dim, err) ||
           mbr_int(g, "qk_rope_head_dim", 0, 1 << 12, 0, &a->qk_rope_dim, err) ||
           mbr_int(g, "v_head_dim", 0, 1 << 12, 0, &a->v_dim, err)
         ? TPL_ECONFIG : 0;
}

/* Which field is inconsistent with the others, and what it must be. */
static const char *arch_fault(const struct model *m, const char **must)
{
    const struct model_moe *e = &m->moe;
    const struct model_mla *a = &m->mla;
    *must = NULL;
    if (e->experts > 0 && e->topk > e->experts)
        return *must = "at most 'experts'", "moe_topk";
    if (e->experts > 0 && e->experts % e->groups)
        return *must = "a divisor of 'experts' (equal expert groups)",
               "moe_groups";
    if (e->experts > 0 && e->group_topk > e->groups)
        return *must = "at most 'moe_groups'", "moe_group_topk";
    if (e->experts > 0 && e->topk > e->group_topk * (e->experts / e->groups))
        return *must = "at most the experts of 'moe_group_topk' groups",
               "moe_topk";
    if (e->experts > 0 && e->dense_first >= m->layers)
        return *must = "below 'layers' (an MoE model has an MoE layer)",
               "moe_dense_first";
    if (a->kv_lora_rank > 0 && (a->qk_nope_dim == 0 || a->qk_rope_dim == 0 ||
                                a->v_dim == 0))
        return *must = "> 0 with multi-head latent attention (kv_lora_rank > 0)",
               a->qk_nope_dim == 0 ? "qk_nope_head_dim"
               : a->qk_rope_dim == 0 ? "qk_rope_head_dim" : "v_head_dim";
    if (a->kv_lora_rank == 0 && a->q_lora_rank > 0)
        return *must = "0 without multi-head latent attention (kv_lora_rank 0)",
               "q_lora_rank";
    if (m->sliding_window > 0 && m->sliding_every == 0)
        return *must = "given with 'sliding_every' (which layers slide)",
               "sliding_window";
    if (m->sliding_every > 0 && m->sliding_window == 0)
        return *must = "given with 'sliding_window' (how far they see)",
               "sliding_every";
    return NULL;
}

/* MoE fields without experts describe nothing: refuse them by name. */
static const char *stray_moe_field(const struct model *m,
                                   const struct conf_group *g)
{
    static const char *const keys[] = { "moe_topk", "moe_ffn_hidden",
        "moe_shared_ffn_hidden", "moe_dense_first", "moe_layer_freq",
        "moe_router", "moe_balance", "moe_capacity_factor", "moe_groups",
        "moe_group_topk", NULL };
    for (int i = 0; m->moe.experts == 0 && keys[i]; i++)
        if (conf_has(g, keys[i]))
            return keys[i];
    return NULL;
}

int model_read_arch(struct model *m, const struct conf_group *g,
                    struct tpl_err *err)
{
    const char *key, *must = "absent without 'experts' (a dense model)";
    char where[200];
    if (mbr_int(g, "head_dim", 0, 1 << 12, 0, &m->head_dim, err) ||
        mbr_int(g, "sliding_window", 0, 1 << 24, 0, &m->sliding_window, err) ||
        mbr_int(g, "sliding_every", 0, MODEL_MAX_LAYERS, 0, &m->sliding_every,
                err) ||
        mbr_int(g, "mtp_layers", 0, 64, 0, &m->mtp_layers, err) ||
        (conf_has(g, "qkv_bias") && conf_bool(g, "qkv_bias", &m->qkv_bias, err)) ||
        (conf_has(g, "qk_norm") && conf_bool(g, "qk_norm", &m->qk_norm, err)) ||
        read_moe(&m->moe, g, err) || read_mla(&m->mla, g, err))
        return TPL_ECONFIG;
    if (!(key = stray_moe_field(m, g)) && !(key = arch_fault(m, &must)))
        return 0;
    conf_where(g->c, config_setting_get_member(g->s, key), where, sizeof where);
    return tpl_errorf(err, TPL_ECONFIG, "%s: '%s' must be %s", where, key, must);
}

/* ---- shapes ---- */

bool model_is_moe(const struct model *m)
{
    return m->moe.experts > 0;
}

bool model_layer_is_moe(const struct model *m, int64_t layer)
{
    return model_is_moe(m) && layer >= m->moe.dense_first &&
           (layer - m->moe.dense_first) % m->moe.layer_freq == 0;
}

int64_t model_moe_layers(const struct model *m)
{
    int64_t rest = m->layers - m->moe.dense_first;
    return model_is_moe(m) ? (rest + m->moe.layer_freq - 1) / m->moe.layer_freq
                           : 0;
}
