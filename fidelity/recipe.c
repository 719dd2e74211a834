/* fidelity/recipe.c: what a published recipe sets that the runs schema has
 * no column for: which modules Megatron's selective recompute rebuilds, the
 * optimizer states' bytes, whether they are offloaded, whether the data-
 * parallel communication overlaps. ../shared/data/RUNS.md lists them per
 * source ("Assumed", "Other features not encoded"); each entry below is
 * the recipe file (or report section) it was read from, matched on the
 * row's source, model name prefix, system and precision, never tuned to a
 * measurement.
 *
 * Megatron-LM MoE recipes (NVIDIA/Megatron-LM branch dev @ d48bd6be0a,
 * examples/moe_recipes/<model>/<gpu>/<recipe>.yaml, the commit RUNS.md
 * cites): recompute_modules; use_precision_aware_optimizer with
 * exp_avg_dtype and exp_avg_sq_dtype bf16 beside fp32 main_params: 4 + 2 +
 * 2 = 8 bytes per parameter instead of Adam's 12; chunked_optimizer_state_
 * offload (predictor/shard.c); overlap_grad_reduce and overlap_param_gather,
 * which Megatron leaves off unless given (megatron/training/arguments.py:
 * store_true, default False): a recipe that gives neither runs the data-
 * parallel reduce and gather exposed (fid_recipe_dp_overlap).
 *
 * DeepSeek-V3's own training (DeepSeek-AI, arXiv:2412.19437): sec. 3.2.3
 * "we recompute all RMSNorm operations and MLA up-projections during back-
 * propagation" (Megatron's modules layernorm and mla_up_proj); sec. 3.3.2
 * "Low-Precision Storage": the MoE SwiGLU "we cache its input and
 * recompute its output in the backward pass" (moe_act); sec. 3.3.3 "BF16
 * ... to track the first and second moments in the AdamW optimizer", the
 * master weights and gradients kept in FP32: 8 bytes. The row's recompute
 * 'none' is an assumed value (its 'assumed' column): the report's selective
 * recompute replaces it. Its stage layout is not published (the report
 * only puts the embedding and the output head on the same PP rank under
 * DualPipe, sec. 3.2.3); Megatron-LM's own DeepSeek-V3 recipes lay the 61
 * layers over 16 stages as Et*4|(tttt|)*14tmL (examples/moe_recipes/
 * deepseek_v3/b200/mxfp8_256GPU_TP1PP8EP32.yaml @ d48bd6be,
 * pipeline_model_parallel_layout): the embedding and 4 layers, 14 stages
 * of 4, then 1 layer with the MTP module and the loss. The row's PP16 is
 * those 16 stages: 4 layers first, 1 last (the stack's rule would put 3
 * and 2, and with the head in 16 bits the last stage paced the row). */
#include "fidelity/fidelity.h"

#include <string.h>
#include <strings.h>

#define RC(m) JOB_RC_BIT(JOB_RC_##m)
#define ANY_PREC JOB_PREC_COUNT

struct recipe {
    const char *source, *model, *system; /* model: a name prefix; system
                                            NULL: any */
    enum job_precision prec;            /* ANY_PREC: any */
    unsigned rc_modules;                /* 0: the job's (core_attn) */
    bool selective;                     /* the recipe recomputes selectively */
    double optim_bytes;                 /* 0: the stack's */
    bool optim_offload;
    int32_t pp_first, pp_last;          /* stage layout; 0: the stack's rule */
    int dp_overlap;                     /* 0: the stack's; -1: the recipe
                                           sets neither overlap flag */
};

static const struct recipe recipes[] = {
    /* deepseek_v3/b200/mxfp8_256GPU_TP1PP8EP32.yaml */
    { "mlm_moe_recipes", "DeepSeek-V3", "dgx-b200", ANY_PREC,
      RC(MLA_UP_PROJ) | RC(MLP), true, 8, false, 0, 0, 0 },
    /* deepseek_v3/gb200/mxfp8_256GPU_TP1PP4EP64.yaml */
    { "mlm_moe_recipes", "DeepSeek-V3", "gb200-nvl72", ANY_PREC,
      RC(MLA_UP_PROJ), true, 8, true, 0, 0, 0 },
    /* qwen3_235b/h100/bf16_256GPU_TP2PP8EP32.yaml: Adam in fp32, neither
     * overlap flag */
    { "mlm_moe_recipes", "Qwen3-235B", "dgx-h100", ANY_PREC,
      RC(MOE_ACT) | RC(LAYERNORM), true, 0, false, 0, 0, -1 },
    /* qwen3_235b/b200/mxfp8_128GPU_TP2PP4EP16.yaml, qwen3_235b/gb200/
     * mxfp8_128GPU_TP1PP1EP64_{paged_stash_fullcg,partial_cg}_overlap.yaml */
    { "mlm_moe_recipes", "Qwen3-235B", NULL, JOB_PREC_FP8, 0, false, 8, false,
      0, 0, 0 },
    /* qwen3_30b/h100/fp8_32GPU_TP1PP1EP8.yaml (its bf16 and GB200 recipes
     * keep Adam in fp32) */
    { "mlm_moe_recipes", "Qwen3-30B", "dgx-h100", JOB_PREC_FP8, 0, false, 8,
      false, 0, 0, 0 },
    /* qwen3_30b/gb200/bf16_16GPU_TP1PP1EP16.yaml, mxfp8_16GPU_TP1PP1EP16_
     * {partial_cg,paged_stash}.yaml: Adam in fp32, neither overlap flag */
    { "mlm_moe_recipes", "Qwen3-30B", "gb200-nvl72", ANY_PREC, 0, false, 0,
      false, 0, 0, -1 },
    /* arXiv:2412.19437 sec. 3.2.3, 3.3.2, 3.3.3 (header) */
    { "deepseekv3", "DeepSeek-V3", NULL, ANY_PREC,
      RC(LAYERNORM) | RC(MLA_UP_PROJ) | RC(MOE_ACT), true, 8, false, 4, 1, 0 },
};

static bool matches(const struct recipe *e, const struct run_row *r)
{
    return !strcmp(e->source, r->source) &&
           !strncasecmp(e->model, r->model, strlen(e->model)) &&
           (!e->system || !strcmp(e->system, r->system)) &&
           (e->prec == ANY_PREC || e->prec == r->precision);
}

/* ---- CUDA graphs and the dispatcher's sync (predictor/host.c) ----
 * Each recipe's --cuda-graph-impl / --external-cuda-graph with
 * --cuda-graph-scope, and whether its dispatcher has a static budget
 * (--moe-expert-rank-capacity-factor, which the recipes' paged stash and
 * full-iteration graphs set): then the host never waits for the token
 * counts. Matched on the row's id where one model, system and precision
 * has recipes that differ only in these (RUNS.md "mlm_moe_recipes": "Same-
 * configuration pairs differ only in CUDA-graph scope or paged stash").
 * Recipes not listed capture nothing and sync (the stack's defaults). */
#define GR(g) JOB_GRAPH_BIT(JOB_GRAPH_##g)

struct graph_recipe {
    const char *source, *id_suffix;     /* a row id ending */
    unsigned graphs;
    bool sync;
};

static const struct graph_recipe graph_recipes[] = {
    /* deepseek_v3/gb200/mxfp8_256GPU_TP1PP4EP64.yaml: cuda_graph_impl
     * transformer_engine, scope moe_router, moe_preprocess */
    { "mlm_moe_recipes", "DSV3-GB200-MXFP8",
      GR(MOE_ROUTER) | GR(MOE_PREPROCESS), true },
    /* qwen3_235b/h100/bf16_256GPU_TP2PP8EP32.yaml: the same scopes */
    { "mlm_moe_recipes", "Q235-H100-BF16",
      GR(MOE_ROUTER) | GR(MOE_PREPROCESS), true },
    /* qwen3_235b/gb200/mxfp8_128GPU_TP1PP1EP64_paged_stash_fullcg_
     * overlap.yaml: cuda_graph_impl local, scope full_iteration,
     * moe_expert_rank_capacity_factor 1.2 */
    { "mlm_moe_recipes", "-FULLCG", GR(FULL), false },
    /* qwen3_235b/gb200/..._partial_cg_overlap.yaml and qwen3_30b/gb200/
     * mxfp8_16GPU_TP1PP1EP16_partial_cg.yaml (external_cuda_graph): attn,
     * moe_router, moe_preprocess */
    { "mlm_moe_recipes", "-PARTCG",
      GR(ATTN) | GR(MOE_ROUTER) | GR(MOE_PREPROCESS), true },
    /* qwen3_30b/gb200/mxfp8_16GPU_TP1PP1EP16_paged_stash.yaml: local,
     * full_iteration, moe_expert_rank_capacity_factor 1.5 */
    { "mlm_moe_recipes", "-PAGED", GR(FULL), false },
    /* qwen3_30b/h100/fp8_32GPU_TP1PP1EP8.yaml: transformer_engine, attn,
     * moe_router, moe_preprocess (its bf16 recipe captures nothing) */
    { "mlm_moe_recipes", "Q30-H100-FP8",
      GR(ATTN) | GR(MOE_ROUTER) | GR(MOE_PREPROCESS), true },
};

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

static void graphs_apply(const struct run_row *r, struct job *j)
{
    for (size_t i = 0; i < sizeof graph_recipes / sizeof graph_recipes[0]; i++) {
        const struct graph_recipe *e = &graph_recipes[i];
        if (strcmp(e->source, r->source) || !ends_with(r->id, e->id_suffix))
            continue;
        j->cuda_graphs = e->graphs;
        j->moe_host_sync = j->moe_host_sync && e->sync;
        return;
    }
}

bool fid_recipe_apply(const struct run_row *r, struct job *j,
                      struct plan *p)
{
    graphs_apply(r, j);
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
        const struct recipe *e = &recipes[i];
        if (!matches(e, r))
            continue;
        if (e->selective) {
            p->recompute = PLAN_RECOMPUTE_SELECTIVE;
            j->recompute_modules = e->rc_modules;
        }
        if (e->optim_bytes > 0)
            j->optim_bytes = e->optim_bytes;
        p->offload = e->optim_offload;  /* the plan's offload (dims.c) */
        if (e->pp_first > 0) {
            p->pp_first = e->pp_first;
            p->pp_last = e->pp_last;
        }
        return true;
    }
    return false;
}

int fid_recipe_dp_overlap(const struct run_row *r)
{
    for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++)
        if (matches(&recipes[i], r))
            return recipes[i].dp_overlap;
    return 0;
}
