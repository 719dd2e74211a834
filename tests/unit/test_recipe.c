/* tests/unit/test_recipe.c: fidelity/recipe.c, the published recipes'
 * memory settings a runs row cannot carry, matched on source, model name
 * prefix, system and precision (values read from the recipe files and the
 * DeepSeek-V3 report, as the file's header cites them). */
#include "helpers.h"

#include <string.h>

#include "fidelity/fidelity.h"

static struct run_row row(const char *source, const char *model,
                          const char *system, enum job_precision prec)
{
    struct run_row r = { .precision = prec, .recompute = PLAN_RECOMPUTE_NONE };
    snprintf(r.source, sizeof r.source, "%s", source);
    snprintf(r.model, sizeof r.model, "%s", model);
    snprintf(r.system, sizeof r.system, "%s", system);
    return r;
}

static bool apply(const struct run_row *r, struct job *j, struct plan *p)
{
    job_default(j);
    *p = make_plan(1, 1, 1, 1);
    return fid_recipe_apply(r, j, p);
}

/* DeepSeek-V3 on B200 (mxfp8_256GPU_TP1PP8EP32.yaml): recompute_modules
 * mla_up_proj and mlp, bf16 exp_avg / exp_avg_sq beside fp32 master
 * weights, 4 + 2 + 2 = 8 bytes; on GB200 mla_up_proj only and the chunked
 * optimizer-state offload. */
Test(recipe, megatron_moe_recipes)
{
    struct job j;
    struct plan p;
    struct run_row r = row("mlm_moe_recipes", "DeepSeek-V3", "dgx-b200",
                           JOB_PREC_FP8);
    cr_assert(apply(&r, &j, &p));
    cr_assert_eq(p.recompute, PLAN_RECOMPUTE_SELECTIVE);
    cr_assert_eq(j.recompute_modules, JOB_RC_BIT(JOB_RC_MLA_UP_PROJ) |
                                      JOB_RC_BIT(JOB_RC_MLP));
    cr_assert_eq(j.optim_bytes, 8.0);
    cr_assert(!p.offload);
    r = row("mlm_moe_recipes", "DeepSeek-V3", "gb200-nvl72", JOB_PREC_FP8);
    cr_assert(apply(&r, &j, &p));
    cr_assert_eq(j.recompute_modules, JOB_RC_BIT(JOB_RC_MLA_UP_PROJ));
    cr_assert(p.offload);
    /* Qwen3-235B on H100: moe_act and layernorm, Adam in fp32 (12) */
    r = row("mlm_moe_recipes", "Qwen3-235B-A22B", "dgx-h100", JOB_PREC_BF16);
    cr_assert(apply(&r, &j, &p));
    cr_assert_eq(j.recompute_modules, JOB_RC_BIT(JOB_RC_MOE_ACT) |
                                      JOB_RC_BIT(JOB_RC_LAYERNORM));
    cr_assert_eq(j.optim_bytes, 12.0);
    /* Qwen3-30B: the FP8 H100 recipe has bf16 moments, the bf16 one not */
    r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "dgx-h100", JOB_PREC_FP8);
    cr_assert(apply(&r, &j, &p));
    cr_assert_eq(j.optim_bytes, 8.0);
    cr_assert_eq(p.recompute, PLAN_RECOMPUTE_NONE);     /* left as the row's */
    r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "dgx-h100", JOB_PREC_BF16);
    cr_assert(!apply(&r, &j, &p));
    cr_assert_eq(j.optim_bytes, 12.0);
}

/* DeepSeek-V3's report: RMSNorm, MLA up-projection and SwiGLU recomputed,
 * AdamW moments in BF16 (8 bytes); its stages, which the report does not
 * give, as Megatron's DeepSeek-V3 recipe lays them (4 layers with the
 * embedding, 1 with MTP and the loss); another source's row is left
 * alone, its layout the stack's. */
Test(recipe, deepseek_report_and_unlisted_rows)
{
    struct job j;
    struct plan p;
    struct run_row r = row("deepseekv3", "DeepSeek-V3-671B-total-37B-active",
                           "h800", JOB_PREC_FP8);
    cr_assert(apply(&r, &j, &p));
    cr_assert_eq(p.recompute, PLAN_RECOMPUTE_SELECTIVE);
    cr_assert_eq(j.recompute_modules, JOB_RC_BIT(JOB_RC_LAYERNORM) |
                 JOB_RC_BIT(JOB_RC_MLA_UP_PROJ) | JOB_RC_BIT(JOB_RC_MOE_ACT));
    cr_assert_eq(j.optim_bytes, 8.0);
    cr_assert(p.pp_first == 4 && p.pp_last == 1, "%d %d", p.pp_first, p.pp_last);
    r = row("automodel", "DeepSeek-V3", "dgx-h100", JOB_PREC_BF16);
    cr_assert(!apply(&r, &j, &p));
    cr_assert(p.pp_first == 0 && p.pp_last == 0);
    cr_assert_eq(j.recompute_modules, JOB_RC_BIT(JOB_RC_CORE_ATTN));
    cr_assert_eq(p.recompute, PLAN_RECOMPUTE_NONE);
}

/* CUDA-graph scopes and the dispatcher's sync, by the row's id (RUNS.md:
 * pairs that differ only in them): qwen3_30b/gb200's partial_cg recipe
 * captures attn, moe_router, moe_preprocess and syncs; its paged_stash
 * recipe captures the full iteration with a static budget (no sync); the
 * bf16 recipe captures nothing; another source is untouched. */
Test(recipe, megatron_moe_graph_scopes)
{
    struct job j;
    struct plan p;
    struct run_row r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "gb200-nvl72",
                           JOB_PREC_FP8);
    unsigned part = JOB_GRAPH_BIT(JOB_GRAPH_ATTN) |
                    JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER) |
                    JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS);
    snprintf(r.id, sizeof r.id, "MLMMOE-Q30-GB200-MXFP8-PARTCG");
    apply(&r, &j, &p);
    j.moe_host_sync = true;
    fid_recipe_apply(&r, &j, &p);
    cr_assert_eq(j.cuda_graphs, part);
    cr_assert(j.moe_host_sync);
    snprintf(r.id, sizeof r.id, "MLMMOE-Q30-GB200-MXFP8-PAGED");
    fid_recipe_apply(&r, &j, &p);
    cr_assert_eq(j.cuda_graphs, JOB_GRAPH_BIT(JOB_GRAPH_FULL));
    cr_assert(!j.moe_host_sync);
    snprintf(r.id, sizeof r.id, "MLMMOE-Q30-GB200-BF16");
    apply(&r, &j, &p);
    cr_assert_eq(j.cuda_graphs, 0);
    snprintf(r.source, sizeof r.source, "automodel");
    snprintf(r.id, sizeof r.id, "X-PARTCG");
    apply(&r, &j, &p);
    cr_assert_eq(j.cuda_graphs, 0);
}

/* The data-parallel overlap of Megatron's recipes: overlap_grad_reduce and
 * overlap_param_gather are off unless set (megatron/training/arguments.py:
 * store_true, default False); qwen3_235b/h100 and the three qwen3_30b/gb200
 * recipes set neither (-1), the DeepSeek-V3 and Qwen3-30B H100 recipes set
 * both (0: the stack's, overlapped); a row of no listed recipe keeps the
 * stack's. */
Test(recipe, megatron_moe_dp_overlap)
{
    struct run_row r = row("mlm_moe_recipes", "Qwen3-235B-A22B", "dgx-h100",
                           JOB_PREC_BF16);
    cr_assert_eq(fid_recipe_dp_overlap(&r), -1);
    r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "gb200-nvl72", JOB_PREC_BF16);
    cr_assert_eq(fid_recipe_dp_overlap(&r), -1);
    r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "gb200-nvl72", JOB_PREC_FP8);
    cr_assert_eq(fid_recipe_dp_overlap(&r), -1);
    r = row("mlm_moe_recipes", "Qwen3-30B-A3B", "dgx-h100", JOB_PREC_FP8);
    cr_assert_eq(fid_recipe_dp_overlap(&r), 0);
    r = row("mlm_moe_recipes", "DeepSeek-V3", "dgx-b200", JOB_PREC_FP8);
    cr_assert_eq(fid_recipe_dp_overlap(&r), 0);
    r = row("mlm_moe_recipes", "Qwen3-235B-A22B", "gb200-nvl72", JOB_PREC_FP8);
    cr_assert_eq(fid_recipe_dp_overlap(&r), 0);
    r = row("automodel", "Qwen3-30B-A3B", "gb200-nvl72", JOB_PREC_BF16);
    cr_assert_eq(fid_recipe_dp_overlap(&r), 0);
}
