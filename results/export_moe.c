/* results/export_moe.c: mixture of experts, latent attention, sliding
 * windows, head widths and multi-token prediction in a launch (see
 * export_moe.h). Names: Megatron-LM megatron/training/arguments.py (its own
 * flags, and those ArgumentGroupFactory makes from megatron/core/
 * transformer/transformer_config.py TransformerConfig, field
 * "moe_router_topk" -> "--moe-router-topk", megatron/training/
 * argument_utils.py); Megatron-Bridge takes the TransformerConfig fields
 * themselves as model keys (its DeepSeek-V3 and Qwen3-MoE bridges,
 * src/megatron/bridge/models/deepseek/deepseek_v3_bridge.py, qwen/
 * qwen3_moe_bridge.py, set these fields); torchtitan names a model and a
 * flavor of its registry ([model] name, flavor: torchtitan/config/
 * job_config.py Model, the TOML release before the dataclass registry of
 * February 2026). */
#include "results/export_moe.h"

#include <assert.h>
#include <string.h>

#include "spaces/stack.h"

/* Whether layer i (from 0) is an MoE layer, or a sliding-window one: the
 * patterns Megatron takes as lists, 1 marking the layer. */
typedef bool layer_pred(const struct model *m, int64_t layer);

static bool slides(const struct model *m, int64_t layer)
{
    return layer % m->sliding_every == 0;
}

/* The pattern as runs, "[0]*3+[1]*58": Megatron-LM's moe_freq_type
 * evaluates such a Python list expression (arguments.py _eval_pattern:
 * digits, commas, brackets, parentheses, + and * only), which must have one
 * entry per layer; the DeepSeek-V3 recipes write "([0]*3+[1]*58)". */
static void runs(FILE *fp, const struct model *m, layer_pred *on)
{
    int64_t start = 0;
    for (int64_t i = 1; i <= m->layers; i++)
        if (i == m->layers || on(m, i) != on(m, start)) {
            fprintf(fp, "%s[%d]*%lld", start ? "+" : "", (int)on(m, start),
                    (long long)(i - start));
            start = i;
        }
}

/* The same pattern as a YAML list, one entry per layer (Megatron-Bridge's
 * DeepSeek-V3 bridge sets moe_layer_freq = [0] * first_k_dense_replace +
 * [1] * (layers - first_k_dense_replace)). */
static void yaml_list(FILE *fp, const struct model *m, layer_pred *on)
{
    fputc('[', fp);
    for (int64_t i = 0; i < m->layers; i++)
        fprintf(fp, "%s%d", i ? ", " : "", (int)on(m, i));
    fputs("]\n", fp);
}

/* ---- Megatron-LM ---- */

/* arguments.py --window-size (left, right) and --window-attn-skip-freq.
 * A window of W tokens is (W - 1, 0): the current token and W - 1 before
 * it, as Megatron-LM's gpt-oss recipes write gpt-oss's 128-token window
 * (examples/gptoss/02_train.sh: --window-size 127,0). The skip frequency N
 * slides layer l (from 1) when l % N != 0 (megatron/core/transformer/
 * utils.py is_layer_window_attention): N = 2 is our sliding_every 2
 * (layers 0, 2, ... from 0); other spacings as a list (1 slides); every
 * layer sliding needs none. */
static void megatron_window(FILE *fp, const struct model *m)
{
    if (m->sliding_window <= 0)
        return;
    fprintf(fp, "--window-size %lld,0 \\\n", (long long)(m->sliding_window - 1));
    if (m->sliding_every == 2)
        fputs("--window-attn-skip-freq 2 \\\n", fp);
    else if (m->sliding_every > 2) {
        fputs("--window-attn-skip-freq '(", fp);
        runs(fp, m, slides);
        fputs(")' \\\n", fp);
    }
}

/* Multi-head latent attention (arguments.py _add_mla_args: --q-lora-rank,
 * None by default, is no query compression; --kv-lora-rank defaults to 32,
 * so it is always written), with the RMSNorms of the compressed query and
 * key-value latents that DeepSeek's MLA has (arXiv:2405.04434; config.json
 * models: q_a_layernorm, kv_a_layernorm), which Megatron builds into the
 * up-projections only with --qk-layernorm (megatron/core/models/gpt/
 * gpt_layer_specs.py; its DeepSeek-V3 recipe and Megatron-Bridge's bridge
 * set it); else a head width other than hidden / heads (--kv-channels,
 * which validate_args otherwise sets to hidden / heads). */
static void megatron_attn(FILE *fp, const struct model *m)
{
    const struct model_mla *a = &m->mla;
    if (a->kv_lora_rank > 0) {
        fputs("--multi-latent-attention \\\n--qk-layernorm \\\n", fp);
        if (a->q_lora_rank > 0)
            fprintf(fp, "--q-lora-rank %lld \\\n", (long long)a->q_lora_rank);
        fprintf(fp, "--kv-lora-rank %lld \\\n--qk-head-dim %lld \\\n"
                "--qk-pos-emb-head-dim %lld \\\n--v-head-dim %lld \\\n",
                (long long)a->kv_lora_rank, (long long)a->qk_nope_dim,
                (long long)a->qk_rope_dim, (long long)a->v_dim);
    } else if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden)
        fprintf(fp, "--kv-channels %lld \\\n", (long long)m->head_dim);
    megatron_window(fp, m);
}

/* --moe-layer-freq: an integer N makes layer i (from 0) MoE when
 * i % N == 0 (megatron/core/models/gpt/gpt_layer_specs.py), ours without
 * leading dense layers; with them, the list form. */
static void megatron_layer_freq(FILE *fp, const struct model *m)
{
    if (m->moe.dense_first == 0) {
        fprintf(fp, "--moe-layer-freq %lld \\\n", (long long)m->moe.layer_freq);
        return;
    }
    fputs("--moe-layer-freq '(", fp);
    runs(fp, m, model_layer_is_moe);
    fputs(")' \\\n", fp);
}

/* TransformerConfig.moe_router_load_balancing_type: "aux_loss" (GShard,
 * Switch), "seq_aux_loss" (DeepSeek-V2/V3, per sequence), "none".
 * Aux-loss-free balancing (DeepSeek-V3 sec. 2.1.2) is the expert bias,
 * moe_router_enable_expert_bias, and no loss. */
static const char *const balance_names[MODEL_BALANCE_COUNT] = {
    [MODEL_BALANCE_AUX] = "aux_loss", [MODEL_BALANCE_SEQ_AUX] = "seq_aux_loss",
    [MODEL_BALANCE_AUX_FREE] = "none", [MODEL_BALANCE_NONE] = "none",
};
static_assert(MODEL_BALANCE_COUNT == 4 && MODEL_ROUTER_COUNT == 2,
              "update balance_names; router names are Megatron's choices");

/* The routed and shared experts and the router. Grouped GEMM and the
 * stack's moe_dispatcher are what the predictor times (flex: DeepEP, the
 * MoE recipes' backend, examples/moe_recipes/ yaml files; Megatron-Core
 * transformer_config.py moe_flex_dispatcher_backend); the router's groups
 * are --moe-router-num-groups / --moe-router-group-topk; routing in fp32 is what Megatron's recipes do
 * (examples/gptoss/02_train.sh, the DeepSeek-V3 bridge) and what
 * TransformerConfig warns about without (>= 32 experts). A capacity factor
 * drops the tokens beyond it, unpadded (Megatron's default
 * moe_pad_expert_input_to_capacity false): experts compute what they get. */
static void megatron_moe(FILE *fp, const struct pred_ctx *c)
{
    const struct model_moe *e = &c->model.moe;
    fprintf(fp, "--num-experts %lld \\\n", (long long)e->experts);
    megatron_layer_freq(fp, &c->model);
    fprintf(fp, "--moe-ffn-hidden-size %lld \\\n", (long long)e->ffn_hidden);
    if (e->shared_ffn_hidden > 0)
        fprintf(fp, "--moe-shared-expert-intermediate-size %lld \\\n",
                (long long)e->shared_ffn_hidden);
    fprintf(fp, "--moe-router-topk %lld \\\n--moe-router-score-function %s \\\n"
            "--moe-router-load-balancing-type %s \\\n", (long long)e->topk,
            model_router_name(e->router), balance_names[e->balance]);
    if (e->balance == MODEL_BALANCE_AUX_FREE)
        fputs("--moe-router-enable-expert-bias \\\n", fp);
    if (e->groups > 1)
        fprintf(fp, "--moe-router-num-groups %lld \\\n"
                "--moe-router-group-topk %lld \\\n", (long long)e->groups,
                (long long)e->group_topk);
    fprintf(fp, "--moe-router-dtype fp32 \\\n--moe-grouped-gemm \\\n"
            "--moe-token-dispatcher-type %s \\\n",
            stack_moe_dispatch_name(c->job.moe_dispatch));
    if (c->job.moe_dispatch == JOB_MOE_FLEX)
        fputs("--moe-flex-dispatcher-backend deepep \\\n", fp);
    if (e->capacity_factor > 0)
        fprintf(fp, "--moe-expert-capacity-factor %g \\\n", e->capacity_factor);
}

void res_moe_megatron(FILE *fp, const struct pred_ctx *c)
{
    megatron_attn(fp, &c->model);
    if (model_is_moe(&c->model))
        megatron_moe(fp, c);
    if (c->model.mtp_layers > 0)        /* arguments.py, TransformerConfig */
        fprintf(fp, "--mtp-num-layers %lld \\\n", (long long)c->model.mtp_layers);
}

/* ---- Megatron-Bridge: the same TransformerConfig fields ---- */

/* The window and skip frequency of megatron_window as YAML. */
static void nemo_window(FILE *fp, const struct model *m)
{
    if (m->sliding_window <= 0)
        return;
    fprintf(fp, "  window_size: [%lld, 0]\n", (long long)(m->sliding_window - 1));
    if (m->sliding_every == 2)
        fputs("  window_attn_skip_freq: 2\n", fp);
    else if (m->sliding_every > 2) {
        fputs("  window_attn_skip_freq: ", fp);
        yaml_list(fp, m, slides);
    }
}

static void nemo_attn(FILE *fp, const struct model *m)
{
    const struct model_mla *a = &m->mla;
    if (a->kv_lora_rank > 0) {  /* MLATransformerConfig: q_lora_rank
                                   512 by default, null is none */
        fputs("  multi_latent_attention: true\n  qk_layernorm: true\n"
              "  q_lora_rank: ", fp);
        if (a->q_lora_rank > 0)
            fprintf(fp, "%lld\n", (long long)a->q_lora_rank);
        else
            fputs("null\n", fp);
        fprintf(fp, "  kv_lora_rank: %lld\n  qk_head_dim: %lld\n"
                "  qk_pos_emb_head_dim: %lld\n  v_head_dim: %lld\n",
                (long long)a->kv_lora_rank, (long long)a->qk_nope_dim,
                (long long)a->qk_rope_dim, (long long)a->v_dim);
    } else if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden)
        fprintf(fp, "  kv_channels: %lld\n", (long long)m->head_dim);
    nemo_window(fp, m);
}

static void nemo_moe(FILE *fp, const struct pred_ctx *c)
{
    const struct model_moe *e = &c->model.moe;
    fprintf(fp, "  num_moe_experts: %lld\n  moe_layer_freq: ", (long long)e->experts);
    if (e->dense_first == 0)
        fprintf(fp, "%lld\n", (long long)e->layer_freq);
    else
        yaml_list(fp, &c->model, model_layer_is_moe);
    fprintf(fp, "  moe_ffn_hidden_size: %lld\n", (long long)e->ffn_hidden);
    if (e->shared_ffn_hidden > 0)
        fprintf(fp, "  moe_shared_expert_intermediate_size: %lld\n",
                (long long)e->shared_ffn_hidden);
    fprintf(fp, "  moe_router_topk: %lld\n  moe_router_score_function: %s\n"
            "  moe_router_load_balancing_type: %s\n"
            "  moe_router_enable_expert_bias: %s\n  moe_router_dtype: fp32\n"
            "  moe_grouped_gemm: true\n  moe_token_dispatcher_type: %s\n",
            (long long)e->topk, model_router_name(e->router),
            balance_names[e->balance],
            e->balance == MODEL_BALANCE_AUX_FREE ? "true" : "false",
            stack_moe_dispatch_name(c->job.moe_dispatch));
    if (c->job.moe_dispatch == JOB_MOE_FLEX)
        fputs("  moe_flex_dispatcher_backend: deepep\n", fp);
    if (e->groups > 1)
        fprintf(fp, "  moe_router_num_groups: %lld\n  moe_router_group_topk: "
                "%lld\n", (long long)e->groups, (long long)e->group_topk);
    if (e->capacity_factor > 0)
        fprintf(fp, "  moe_expert_capacity_factor: %g\n", e->capacity_factor);
}

void res_moe_nemo(FILE *fp, const struct pred_ctx *c)
{
    nemo_attn(fp, &c->model);
    if (model_is_moe(&c->model))
        nemo_moe(fp, c);
    if (c->model.mtp_layers > 0)
        fprintf(fp, "  mtp_num_layers: %lld\n", (long long)c->model.mtp_layers);
}

/* ---- torchtitan ---- */

/* torchtitan's MoE flavors and the shapes that name one (torchtitan
 * e347b1e5e, the last TOML release: torchtitan/models/deepseek_v3/
 * __init__.py deepseekv3_args, qwen3/__init__.py qwen3_args, gpt_oss/
 * __init__.py gptoss_configs with model/args.py's defaults). Its llama4
 * flavors derive their expert width from multipliers and match no preset;
 * it has no Mixtral or Kimi K2 model. */
struct titan_flavor {
    const char *name, *flavor;
    int64_t layers, hidden, heads, vocab, experts, topk, ffn, dense_first;
};
static const struct titan_flavor titan_flavors[] = {
    { "deepseek_v3", "16B", 27, 2048, 16, 102400, 64, 6, 1408, 1 },
    { "deepseek_v3", "236B", 60, 5120, 128, 102400, 160, 6, 1536, 1 },
    { "deepseek_v3", "671B", 61, 7168, 128, 129280, 256, 8, 2048, 3 },
    { "qwen3", "30B-A3B", 48, 2048, 32, 151936, 128, 8, 768, 0 },
    { "qwen3", "235B-A22B", 94, 4096, 64, 151936, 128, 8, 1536, 0 },
    { "gpt_oss", "20b", 24, 2880, 64, 201088, 32, 4, 2880, 0 },
    { "gpt_oss", "120b", 36, 2880, 64, 201088, 128, 4, 2880, 0 },
};

static const struct titan_flavor *titan_flavor(const struct model *m)
{
    for (size_t i = 0; i < sizeof titan_flavors / sizeof *titan_flavors; i++) {
        const struct titan_flavor *f = &titan_flavors[i];
        if (f->layers == m->layers && f->hidden == m->hidden &&
            f->heads == m->heads && f->vocab == m->vocab &&
            f->experts == m->moe.experts && f->topk == m->moe.topk &&
            f->ffn == m->moe.ffn_hidden && f->dense_first == m->moe.dense_first)
            return f;
    }
    return NULL;
}

/* torchtitan's deepseek_v3 of that release trains no multi-token
 * prediction module (it came later, torchtitan/models/deepseek_v3/mtp.py):
 * the closest flavor, said in a comment. */
void res_moe_torchtitan_flavor(FILE *fp, const struct pred_ctx *c)
{
    const struct titan_flavor *f = titan_flavor(&c->model);
    if (!model_is_moe(&c->model) || !f)
        return;
    fprintf(fp, "name = \"%s\"\nflavor = \"%s\"\n", f->name, f->flavor);
    if (c->model.mtp_layers > 0)
        fprintf(fp, "# torchtitan's %s has no multi-token prediction: the "
                "%lld MTP layer(s) of %s are not trained\n", f->name,
                (long long)c->model.mtp_layers, c->model.name);
}

/* ---- notes and refusals ---- */

/* The balance loss's weight is a training choice the model file does not
 * carry; Megatron's moe_aux_loss_coeff defaults to 0.0, which switches the
 * loss off (TransformerConfig; "a starting value of 1e-2 is recommended").
 * Nor does it carry what a sigmoid router of DeepSeek's kind adds: the
 * routed scaling factor and node-limited routing (DeepSeek-V3 sec. 2.1.2
 * and config.json routed_scaling_factor 2.5, n_group 8, topk_group 4;
 * TransformerConfig moe_router_topk_scaling_factor, moe_router_num_groups,
 * moe_router_group_topk, off by default). Neither changes the time. A
 * full-iteration CUDA graph (the stack's cuda_graph_scope) needs the MoE
 * layers' token counts fixed, which the model file does not say either:
 * the Megatron-LM MoE recipes that capture full_iteration set
 * moe_expert_rank_capacity_factor (predictor/host.c: what the prediction
 * then assumed, no host sync). */
void res_moe_note(FILE *fp, enum res_framework fw, const struct pred_ctx *c)
{
    const struct model_moe *e = &c->model.moe;
    bool mlm = fw == RES_FW_MEGATRON;
    if (fw == RES_FW_TORCHTITAN || !model_is_moe(&c->model))
        return;
    if (e->balance == MODEL_BALANCE_AUX || e->balance == MODEL_BALANCE_SEQ_AUX)
        fprintf(fp, "# set %s: the model file gives no weight for its %s "
                "balance loss, and Megatron's default 0.0 turns it off\n",
                mlm ? "--moe-aux-loss-coeff" : "model.moe_aux_loss_coeff",
                balance_names[e->balance]);
    if (e->router == MODEL_ROUTER_SIGMOID)
        fprintf(fp, "# not in the model file, so off: the routed scaling "
                "factor (%s)\n", mlm ? "--moe-router-topk-scaling-factor"
                : "model.moe_router_topk_scaling_factor");
    if (c->job.cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_FULL))
        fprintf(fp, "# set %s: a full-iteration CUDA graph needs the MoE "
                "layers' token counts fixed\n", mlm
                ? "--moe-expert-rank-capacity-factor"
                : "model.moe_expert_rank_capacity_factor");
}

/* Megatron-Core (and Megatron-Bridge, which runs it): a stack without
 * expert dispatch (megatron-lm-2021: no --num-experts); the expert bias
 * needs the sigmoid score function (TransformerConfig.__post_init__:
 * "Expert bias for aux-loss-free routing only supports 'sigmoid'"). */
static const char *megatron_model_refusal(const struct pred_ctx *c, char *buf,
                                          size_t n)
{
    const struct model_moe *e = &c->model.moe;
    if (c->job.moe_dispatch == JOB_MOE_NONE)
        snprintf(buf, n, "stack %s runs no mixture of experts (moe_dispatcher "
                 "none) and %s has %lld experts", c->stack, c->model.name,
                 (long long)e->experts);
    else if (e->balance == MODEL_BALANCE_AUX_FREE &&
             e->router != MODEL_ROUTER_SIGMOID)
        snprintf(buf, n, "Megatron-Core's expert bias (aux-loss-free balancing "
                 "of %s) needs the sigmoid router, not %s", c->model.name,
                 model_router_name(e->router));
    else
        return NULL;
    return buf;
}

/* torchtitan: a flavor of its registry, and dropless routing (torchtitan/
 * models/moe/moe.py MoEArgs has no capacity factor). */
static const char *titan_model_refusal(const struct pred_ctx *c, char *buf,
                                       size_t n)
{
    if (!titan_flavor(&c->model))
        snprintf(buf, n, "torchtitan has no model with the shapes of %s (its "
                 "MoE flavors: deepseek_v3 16B, 236B, 671B; qwen3 30B-A3B, "
                 "235B-A22B; gpt_oss 20b, 120b)", c->model.name);
    else if (c->model.moe.capacity_factor > 0)
        snprintf(buf, n, "torchtitan's MoE is dropless: no capacity factor "
                 "(%s has %g)", c->model.name, c->model.moe.capacity_factor);
    else
        return NULL;
    return buf;
}

const char *res_moe_model_refusal(enum res_framework fw,
                                  const struct pred_ctx *c, char *buf,
                                  size_t n)
{
    if (!model_is_moe(&c->model))
        return NULL;
    return fw == RES_FW_TORCHTITAN ? titan_model_refusal(c, buf, n)
                                   : megatron_model_refusal(c, buf, n);
}

/* torchtitan's expert mesh: the plan rules of an FSDP expert mesh
 * (spaces/plan.c, ep-mesh-etp and ep-mesh-fold), which the torchtitan
 * stack's plans already passed; checked again for a stack file that
 * launches torchtitan with another mesh. Its deepseek_v3 raises
 * NotImplementedError for float8 tensorwise TP (deepseek_v3/infra/
 * parallelize.py). */
static const char *titan_plan_refusal(const struct pred_ctx *c,
                                      const struct plan *p, char *buf, size_t n)
{
    enum plan_rule r = plan_check_ep_mesh(p);
    if (r != PLAN_OK)
        plan_rule_explain(r, p, &c->model, &c->job, &c->limits, buf, n);
    else if (c->job.precision == JOB_PREC_FP8 && p->tp > 1 &&
             !strcmp(titan_flavor(&c->model)->name, "deepseek_v3"))
        snprintf(buf, n, "torchtitan's deepseek_v3 has no float8 tensorwise "
                 "tensor parallelism (tp %d)", (int)p->tp);
    else
        return NULL;
    return buf;
}

/* Megatron-Core: "Bias in Moe is only supported when ETP==1"
 * (TransformerConfig.__post_init__, add_bias_linear with experts). */
const char *res_moe_plan_refusal(enum res_framework fw,
                                 const struct pred_ctx *c,
                                 const struct plan *p, char *buf, size_t n)
{
    if (!model_is_moe(&c->model) || res_moe_model_refusal(fw, c, buf, n))
        return NULL;
    if (fw == RES_FW_TORCHTITAN)
        return titan_plan_refusal(c, p, buf, n);
    if (!c->model.bias || p->etp == 1)
        return NULL;
    snprintf(buf, n, "Megatron-Core has no expert biases with etp > 1 (%s "
             "has biases, etp %d)", c->model.name, (int)p->etp);
    return buf;
}
