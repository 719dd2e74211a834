/* fidelity/predict.c: each row of a runs file becomes a model (its shape
 * columns, with the family defaults of RUNS.md: GLU rows are Llama-style,
 * others GPT-style, BLOOM with ALiBi; dropout as Megatron sets it), a plan and a job on
 * its system preset and its stack preset (the row's 'stack' column,
 * RUNS.md "Stacks"), and is predicted. What the software did that a row
 * does not say (flash attention or not, dropout, overlapped gradient
 * reduction, host time per kernel, which schedules and sharding modes
 * exist) is the stack's (spaces/stacks/NAME.cfg). */
#include "fidelity/fidelity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/alloc.h"
#include "predictor/pred.h"
#include "spaces/stack.h"

#define GIB 1073741824.0

#define MAX_SYSTEMS 32
#define MAX_STACKS 8

struct systems {                /* the presets named so far */
    struct { char name[32]; bool ok; struct hw_system hw; } sys[MAX_SYSTEMS];
    int n;
    struct { char name[32]; bool ok; struct stack s; } stk[MAX_STACKS];
    int n_stk;
};

/* The stack preset a row names; "other" (a company's own stack, described
 * only by its paper) and a file without the column get the default. */
static const char *stack_name_of(const struct run_row *r)
{
    return !r->stack[0] || !strcmp(r->stack, "other") ? STACK_DEFAULT
                                                      : r->stack;
}

static const struct stack *stack_of(struct systems *v, const char *name)
{
    struct tpl_err err = { 0 };
    for (int i = 0; i < v->n_stk; i++)
        if (!strcmp(v->stk[i].name, name))
            return v->stk[i].ok ? &v->stk[i].s : NULL;
    if (v->n_stk == MAX_STACKS)
        return NULL;
    snprintf(v->stk[v->n_stk].name, sizeof v->stk[0].name, "%s", name);
    v->stk[v->n_stk].ok = conf_preset_find(stack_presets, stack_presets_count,
                                           name) &&
        stack_load(&v->stk[v->n_stk].s, name, NULL, 0, &err) == 0;
    v->n_stk++;
    return v->stk[v->n_stk - 1].ok ? &v->stk[v->n_stk - 1].s : NULL;
}

static const struct hw_system *system_of(struct systems *v, const char *name)
{
    struct tpl_err err = { 0 };
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->sys[i].name, name))
            return v->sys[i].ok ? &v->sys[i].hw : NULL;
    if (v->n == MAX_SYSTEMS)
        return NULL;
    snprintf(v->sys[v->n].name, sizeof v->sys[0].name, "%s", name);
    /* presets only: a runs file names clusters, not files */
    v->sys[v->n].ok = conf_preset_find(hw_presets, hw_presets_count, name) &&
        hw_system_load(&v->sys[v->n].hw, name, NULL, 0, &err) == 0;
    v->n++;
    return v->sys[v->n - 1].ok ? &v->sys[v->n - 1].hw : NULL;
}

/* The preset for a row: its system's, unless that preset has another GPU
 * than the row's 'gpu' column and a preset has exactly that GPU (RUNS.md
 * maps Meta's 96 GB, 500 W Grand Teton H100 to dgx-h100 and names it in
 * 'gpu': grandteton-h100 is that GPU on the same node and network). */
static const struct hw_system *system_for_row(struct systems *v,
                                              const struct run_row *r)
{
    const struct hw_system *hw = system_of(v, r->system), *alt;
    if (!hw || !r->gpu[0] || !strcmp(hw->gpu_name, r->gpu))
        return hw;
    for (size_t i = 0; i < hw_presets_count; i++) {
        alt = system_of(v, hw_presets[i].name);
        if (alt && !strcmp(alt->gpu_name, r->gpu))
            return alt;
    }
    return hw;
}

/* ---- one row ---- */

/* A mixture-of-experts row: the schema keeps only the routed experts'
 * shape (RUNS.md, "Conventions for these rows": MLA, shared experts,
 * dense-first layers, MTP, head widths and sliding windows are not
 * columns), so the model is the preset whose name begins the row's
 * (DeepSeek-V3, Qwen3, Mixtral, Kimi-K2, GPT-OSS), checked against the
 * row's layers, hidden, experts and top-k, with the row's (padded)
 * vocabulary. NULL, or why not. */
static const char *row_moe_model(const struct run_row *r, struct model *m)
{
    struct tpl_err err;
    for (size_t i = 0; i < model_presets_count; i++) {
        const char *n = model_presets[i].name;
        if (strncasecmp(r->model, n, strlen(n)) ||
            model_load(m, n, NULL, 0, &err))
            continue;
        if (m->layers != r->layers || m->hidden != r->hidden ||
            m->moe.experts != r->moe_experts || m->moe.topk != r->moe_topk)
            return "the row's MoE shape is not its preset's";
        m->vocab = r->vocab;
        return NULL;
    }
    return "no preset describes this mixture of experts (the runs file "
           "keeps only its routed experts' shape)";
}

/* Dropout: every dense row's model has Megatron's --hidden-dropout and
 * --attention-dropout of 0.1 (megatron/arguments.py defaults) and its stack
 * says whether they run (spaces/stacks: megatron-core runs none). BLOOM's
 * training too: "The default Megatron-LM dropout settings are inherited:
 * --attention-dropout 0.1 --hidden-dropout default=0.1" (bigscience-
 * workshop/bigscience train/tr11-176B-ml/README.md, "Optimizer"), and its
 * launch script tr11-176B-ml.slurm sets neither flag; the 0.0 of the
 * released config.json is the inference model's. The prequel's topology
 * search ran the same Megatron-DeepSpeed scripts. */
const char *fid_run_model(const struct run_row *r, struct model *m)
{
    bool bloom = !strncasecmp(r->model, "bloom", 5);
    if (r->moe_experts > 0)
        return row_moe_model(r, m);
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%.63s", r->model);
    m->layers = r->layers;
    m->hidden = r->hidden;
    m->heads = r->heads;
    m->kv_heads = r->kv_heads;
    m->ffn_hidden = r->ffn_hidden;
    m->vocab = r->vocab;
    m->glu = r->glu;
    m->dropout = true;          /* the stack decides (above) */
    if (r->glu) {               /* Llama family (RUNS.md "glu by family") */
        m->norm = MODEL_NORM_RMSNORM;
        m->position = MODEL_POS_ROPE;
    } else {                    /* GPT-3 / Megatron GPT, BLOOM */
        m->norm = MODEL_NORM_LAYERNORM;
        m->position = bloom ? MODEL_POS_ALIBI : MODEL_POS_LEARNED;
        m->position_table = bloom ? 0 : r->seq;
        m->bias = m->tied_embeddings = true;
    }
    return NULL;
}

/* BigScience's Megatron-DeepSpeed fork ran BLOOM and its prequel with
 * --pp-partition-method 'type:transformer|embedding' (bigscience train/
 * tr11-176B-ml README: 70 layers + 2 embedding slots = 12 x 6; RUNS.md:
 * "BLOOM counts each embedding as a pipeline-stage slot"); other DeepSpeed
 * runs keep the stack's 'type:transformer'. */
static void row_split(const struct run_row *r, struct plan_limits *lim)
{
    if (lim->split == STAGE_SPLIT_DEEPSPEED && !strncasecmp(r->model, "bloom", 5))
        lim->split = STAGE_SPLIT_DEEPSPEED_ENDS;
}

/* BigScience ran BLOOM and its topology search with CUDA_LAUNCH_BLOCKING=1
 * against hangs on Jean Zay (bigscience train/tr11-176B-ml/
 * tr11-176B-ml.slurm: "export CUDA_LAUNCH_BLOCKING=1  # do not remove or
 * the training will hang"; chronicles-prequel.md "dealing with JZ hanging
 * on the large model", 80 GPUs: 91.0 TFLOP/s blocking against 97.2 async).
 * A runs file has no column for it: the rows of BLOOM models get it, as
 * they get the embedding slots of row_split. */
static void row_launch(const struct run_row *r, struct job *j)
{
    if (!strncasecmp(r->model, "bloom", 5))
        j->launch_blocking = true;
}

/* NVIDIA's MLPerf Training GPT-3 submissions run FP8 with Transformer
 * Engine's delayed scaling (mlcommons/training_results_v4.1, NVIDIA
 * benchmarks/gpt3/implementations/<impl>/config_*.sh: FP8=True, FP8_AMAX_ALGO=max,
 * FP8_AMAX_HISTORY=4, i.e. DelayedScaling with an amax history); the NeMo
 * 25.x tables and Megatron's MoE recipes on Blackwell run current scaling
 * or MXFP8 (Megatron-Bridge perf_recipes *_b200_fp8cs / _fp8mx, the MXFP8
 * in mlm_moe_recipes' row names). A runs file has no column for it: the
 * mlperf_gpt3 rows get delayed scaling, as BLOOM's get row_launch. */
static void row_fp8(const struct run_row *r, struct job *j)
{
    if (!strcmp(r->source, "mlperf_gpt3"))
        j->fp8_delayed = true;
}

/* TP communication overlap as the sources ran it (a runs file has no
 * column for it; as row_fp8): the Megatron-LM README's H100 benchmark
 * tables (source megatron_readme_h100 in RUNS.md; NVIDIA/Megatron-LM
 * README.md "Benchmark Configuration": "Fine-grained overlapping with DP
 * (--overlap-grad-reduce, --overlap-param-gather), TP (--tp-comm-overlap),
 * and PP") ran it; the NeMo 25.02 / 25.04 performance tables
 * come from NeMo's performance scripts, whose dense recipes hand a
 * userbuffers configuration to MegatronCommOverlapCallback (NVIDIA/NeMo
 * scripts/performance/llm/pretrain_gpt3_175b.py, pretrain_llama3_70b.py,
 * pretrain_llama31_405b.py, pretrain_nemotron4_340b.py:
 * tp_comm_overlap_cfg = userbuffers_{bf16,fp8}_b200_h*_tp*_...,
 * "MegatronCommOverlapCallback missing. Required for performance."):
 * Transformer Engine's TP overlap wherever such a row has sequence
 * parallelism (the Mixtral rows, MoE, are left as they are). The plan
 * rules still apply (tpo-sp). torchtitan's 3D and 4D tables also ran
 * async TP (benchmarks/llama3_h100_202412_torchtitan.md, Tables 5 and 6)
 * but are left without it: its gain there is not what tpo.c models
 * (Table 4: 829 -> 876 tokens/s, +5.7 %, where tpo.c gives the same plan
 * +15.6 % with async TP's own pairing and exposed kernels, +22.6 %
 * before; the 2025-06 async-TP benchmark measured +16 % for that plan on
 * a later PyTorch, which tpo.c now meets: tests/unit/test_tpo.c); with
 * it those rows go from -6..-22 % to -15..-24 %. NVIDIA's MLPerf GPT-3
 * configurations set TP_COMM_OVERLAP=True in every round
 * (training_results_v3.1 / v4.0 / v4.1 NVIDIA benchmarks/gpt3/.../
 * config_DGXH100_*.sh) and are left without it for the same reason: with
 * tpo.c's userbuffers gain the 16 rows come out 13.5 % too fast (MAPE
 * 13.5 %), without it 3.8 %; tpo.c's exposed-time model overstates what
 * Transformer Engine's overlap hides on these rows, a known gap of the
 * model, not of these rows. */
static void row_tpo(const struct run_row *r, struct plan *p)
{
    bool nemo = !strcmp(r->source, "nemo2502") || !strcmp(r->source, "nemo2504") ||
                !strcmp(r->source, "megatron_readme_h100");
    p->tpo = r->sp && nemo && r->moe_experts == 0;
}

/* NeMo's performance scripts reduce gradients in 16 bits (a runs file has
 * no column for it; as row_fp8): scripts/performance/llm/pretrain_*.py
 * set recipe.trainer.plugins.grad_reduce_in_fp32 = False with FP8 compute,
 * and the recipes' pretrain_performance_optimizations likewise (NVIDIA/
 * NeMo nemo/collections/llm/recipes/); the nemo2502 / nemo2504 tables
 * come from those scripts (RUNS.md). NVIDIA's MLPerf GPT-3 submissions
 * too, every round: their distributed optimizer reduces in bf16
 * (mlcommons/training_results_v3.1, _v4.0, _v4.1 <submitter>/benchmarks/
 * gpt3/implementations/<impl>/conf/optim/distributed_fused_adam.yaml:
 * grad_sync_dtype: bf16). */
static void row_grad_reduce(const struct run_row *r, struct job *j)
{
    if (!strcmp(r->source, "nemo2502") || !strcmp(r->source, "nemo2504") ||
        !strcmp(r->source, "mlperf_gpt3"))
        j->grad_reduce_16bit = true;
}

/* Megatron-LM fused the weight-gradient accumulation into the GEMM on
 * 2022-02-13 (NVIDIA/Megatron-LM 83b1e42f "gradient accumulation fusion":
 * fused_weight_gradient_dense, on unless --no-gradient-accumulation-fusion,
 * and only with fp32 accumulation, which bf16 forces: megatron/
 * arguments.py), before sequence parallelism (2022-03-02, 02bb1f5c
 * "column parallel linear with sequence parallelism") and selective
 * recompute: a megatron-lm-2021 row that uses either ran that code, and in
 * bf16 accumulates inside the GEMM (the stack's grad_accum_bytes, the 2021
 * hook's pass, is not run; fp16 got the fusion only on 2022-09-27,
 * 07916bf2). */
static void row_grad_accum(const struct run_row *r, struct job *j)
{
    if (!strcmp(stack_name_of(r), "megatron-lm-2021") &&
        r->precision == JOB_PREC_BF16 &&
        (r->sp || r->recompute == PLAN_RECOMPUTE_SELECTIVE))
        j->grad_accum_bytes = j->grad_accum_bf16_bytes = 0;
}

/* What the row's software did with the gradients beyond its stack's. */
static void row_grads(const struct run_row *r, struct job *j)
{
    row_grad_reduce(r, j);
    row_grad_accum(r, j);
}

/* FP8 primary weights (the stack's fp8_param_gather) came to NVIDIA's
 * MLPerf GPT-3 with round v4.0 (training_results_v4.0 and _v4.1 NVIDIA/
 * benchmarks/gpt3/implementations/<impl>/config_common.sh: FP8_PARAMS=True,
 * conf/custom.yaml fp8_params default False); round v3.1's configurations
 * (training_results_v3.1 NVIDIA and Azure+NVIDIA benchmarks/gpt3/
 * implementations/pytorch/) have no such setting: its rows gather 16-bit
 * weights. A runs file has no column for it; the round is in the row id
 * (RUNS.md: MLPERF-v3.1-NN). */
static void row_fp8_params(const struct run_row *r, struct job *j)
{
    if (!strcmp(r->source, "mlperf_gpt3") && !strncmp(r->id, "MLPERF-v3.1-", 12))
        j->fp8_param_gather = false;
}

static void row_job(const struct run_row *r, struct job *j)
{
    job_default(j);
    j->seq = r->seq;
    j->gbs = r->gbs;
    j->precision = r->precision;
}

void fid_run_plan(const struct run_row *r, struct plan *p)
{
    *p = (struct plan){ .tp = (int32_t)r->tp, .cp = (int32_t)r->cp,
                        .pp = (int32_t)r->pp,
                        .dp = (int32_t)r->dp, .mbs = (int32_t)r->mbs,
                        .vpp = (int32_t)r->vpp, .sp = r->sp,
                        .recompute = r->recompute, .zero = (int32_t)r->zero,
                        .overlap = r->dp > 1,       /* the stack's: below */
                        .replicas = 1,     /* FSDP over all dp (RUNS.md) */
                        .ep = r->ep > 0 ? (int32_t)r->ep : 1, .etp = 1 };
    row_tpo(r, p);
}

static const char *unsupported(const struct run_row *r)
{
    if (r->moe_experts == 0 && r->ep > 1)
        return "ep > 1 on a model without experts";
    if (r->hidden % r->heads)
        return "hidden not divisible by heads";
    return NULL;
}

/* Why a row cannot be predicted on this machine's presets, or NULL with
 * its system and stack found. */
static const char *inputs_of(struct systems *sys, const struct run_row *r,
                             struct model *m, const struct hw_system **hw,
                             const struct stack **st, char *buf, size_t n)
{
    const char *why = unsupported(r);
    if (why || (why = fid_run_model(r, m)))
        return why;
    if (!(*hw = system_for_row(sys, r)))
        return snprintf(buf, n, "unknown system '%s' (no preset)", r->system),
               buf;
    if (!(*st = stack_of(sys, stack_name_of(r))))
        return snprintf(buf, n, "unknown stack '%s' (no preset)",
                        stack_name_of(r)), buf;
    return NULL;
}

/* The tune fit's values into hw where they apply (fidelity/tune.c): the
 * FP8 factor of an uncalibrated system; the fabric's share, for every
 * inter-node collective and send (hw.c read_net_from_runs), of a
 * network_from_runs system; the clock of a clock_from_runs system. */
static void tune_apply(const struct fid_tune *t, struct hw_system *hw)
{
    if (!hw->calibrated && t->gemm_fp8_cs >= 0)
        hw->eff_gemm_fp8_cs = t->gemm_fp8_cs;
    if (hw->net_from_runs && t->network >= 0)
        hw_set_network_share(hw, t->network);
    if (hw->clock_from_runs && t->clock >= 0)
        hw_set_clock(hw, t->clock);
}

/* Whether the tune fit moves any of a system's values. */
static bool tuned_system(const struct hw_system *hw)
{
    return !hw->calibrated || hw->net_from_runs || hw->clock_from_runs;
}

/* A row of a stack that is not eager but whose MoE layers issue kernels
 * from an eager host outside CUDA graphs (predictor/host.c): the same host
 * time per kernel as the eager stacks', so the run fit reads these rows
 * too (fidelity/cv.c), unless the row's stack is 'other' (a company's own
 * software, predicted as the default stack: nothing to fit it on). */
static bool moe_host_row(const struct stack *st, const struct model *m,
                         const struct job *j)
{
    return st->host_s <= 0 && j->moe_host_s > 0 && model_is_moe(m) &&
           !(j->cuda_graphs & JOB_GRAPH_BIT(JOB_GRAPH_FULL));
}

/* Whether the row is host-bound, and the run fit's host time per kernel
 * (host_us >= 0) where it is: the eager stack's, or its MoE layers'. */
static void row_host(const struct run_row *r, const struct stack *st,
                     const struct model *m, double host_us, struct job *j,
                     struct fid_row *o)
{
    o->host_bound = st->host_s > 0 ||
                    (moe_host_row(st, m, j) && strcmp(r->stack, "other"));
    if (!o->host_bound || host_us < 0)
        return;
    if (st->host_s > 0)
        j->host_s = host_us * 1e-6;
    else
        j->moe_host_s = host_us * 1e-6;
}

/* What the row's report says of its system, job and model. */
static void row_flags(const struct hw_system *hw, const struct job *j,
                      const struct model *m, struct fid_row *o)
{
    o->uncalibrated = !hw->calibrated;
    snprintf(o->arch, sizeof o->arch, "%s", hw->gpu_arch);
    o->net_tuned = hw->net_from_runs;
    o->clock_tuned = hw->clock_from_runs;
    o->launch_blocking = j->launch_blocking;
    o->params_b = (double)model_params(m) / 1e9;
}

/* The prediction of a row whose inputs are known. */
static void predict_known(const struct run_row *r, struct model m,
                          const struct hw_system *hw, const struct stack *st,
                          double host_us, const struct fid_tune *t,
                          struct fid_row *o)
{
    struct hw_system tuned;
    struct job j;
    struct plan_limits lim;
    struct pred_ctx c;
    struct pred_result res;
    row_job(r, &j);
    stack_apply(st, &m, &j);
    row_grads(r, &j);
    row_launch(r, &j);
    row_fp8(r, &j);
    row_fp8_params(r, &j);
    fid_recipe_apply(r, &j, &o->plan);
    row_host(r, st, &m, host_us, &j, o);
    row_flags(hw, &j, &m, o);
    if (t && tuned_system(hw)) {           /* the tune fit's values */
        tuned = *hw;
        tune_apply(t, &tuned);
        hw = &tuned;
    }
    stack_limits(st, &lim);
    row_split(r, &lim);
    o->plan.overlap = plan_overlap_default(&o->plan, &lim) &&  /* the stack's */
                      fid_recipe_dp_overlap(r) >= 0;           /* or the recipe's */
    pred_ctx_init(&c, &m, hw, &j, true);
    pred_ctx_set_stack(&c, st->name, &lim,
                       (struct pred_band){ st->band_lo, st->band_hi, st->region });
    plan_stages_resolve(&o->plan, &m, &c.limits);
    pred_plan(&c, &o->plan, &res);
    o->rule = res.rule;
    if (res.rule != PLAN_OK)
        plan_rule_explain(res.rule, &o->plan, &m, &j, &c.limits, o->reason,
                          sizeof o->reason);
    else if (!strcmp(r->stack, "other"))
        snprintf(o->reason, sizeof o->reason, "stack 'other' predicted as %s",
                 STACK_DEFAULT);
    else if (strcmp(hw->name, r->system))
        snprintf(o->reason, sizeof o->reason, "gpu %s: %s", r->gpu, hw->name);
    o->predicted = true;
    o->pred_s = res.iteration_s;
    o->pred_mem_gib = (res.mem.total_bytes + res.mem.reserve_bytes) / GIB;
    o->pred_total_gib = res.mem.total_bytes / GIB;
    o->hbm_gib = c.hw.hbm_bytes / GIB;
    o->pred_fits = res.mem.fits;
    if (o->timed)
        o->err_pct = 100.0 * (o->pred_s - r->measured_iter_s) / r->measured_iter_s;
}

/* The rules a plan breaks because of the software, not the model or the
 * cluster. */
static bool stack_rule(enum plan_rule r)
{
    switch (r) {
    case PLAN_RULE_STACK_SCHEDULE: case PLAN_RULE_STACK_ZERO:
    case PLAN_RULE_STACK_TPO: case PLAN_RULE_STACK_CP: case PLAN_RULE_ZERO_PP:
    case PLAN_RULE_STACK_RC_BLOCK: case PLAN_RULE_STACK_OVERLAP:
    case PLAN_RULE_STACK_EP: case PLAN_RULE_STACK_EPO:
    case PLAN_RULE_STACK_OFFLOAD: case PLAN_RULE_EP_MESH_ETP:
    case PLAN_RULE_EP_MESH_FOLD:
        return true;
    default:
        return false;
    }
}

/* A row of stack 'other' whose plan the default stack cannot run (a stack
 * rule: Meta's FSDP under a pipeline, arXiv:2407.21783 sec. 3.3.2, breaks
 * Megatron-Core's zero-pp) is predicted with the first of these presets
 * that runs it; kept as it is when none does. torchtitan first: the
 * PyTorch-native FSDP2 + TP + PP + CP that the Llama 3 paper's 4D
 * parallelism describes (sec. 3.3.2), then the other FSDP2 stack, then
 * DeepSpeed's engine and 2021's Megatron. */
static const char *const other_stacks[] = {
    "torchtitan", "nemo-automodel", "megatron-deepspeed", "megatron-lm-2021",
};

static void predict_other(struct systems *sys, const struct model *m,
                          const struct hw_system *hw, double host_us,
                          const struct fid_tune *t, struct fid_row *o)
{
    enum plan_rule first = o->rule;
    struct fid_row keep = *o;
    for (size_t i = 0; i < sizeof other_stacks / sizeof other_stacks[0]; i++) {
        const char *name = other_stacks[i];
        const struct stack *st = stack_of(sys, name);
        if (!st)
            continue;
        *o = keep;
        o->reason[0] = 0;
        fid_run_plan(o->run, &o->plan);
        predict_known(o->run, *m, hw, st, host_us, t, o);
        if (o->rule == PLAN_OK) {
            o->stack = name;
            snprintf(o->reason, sizeof o->reason, "stack 'other' predicted "
                     "as %s (%s: %s)", name, STACK_DEFAULT,
                     plan_rule_name(first));
            return;
        }
    }
    *o = keep;
}

static void predict_row(struct systems *sys, double host_us,
                        const struct fid_tune *t, bool uncal_only,
                        struct fid_row *o)
{
    const struct hw_system *hw = NULL;
    const struct stack *st = NULL;
    struct model m;
    char buf[160];
    const char *why;
    o->timed = o->run->kind != RUN_NONE;
    fid_run_plan(o->run, &o->plan);
    why = inputs_of(sys, o->run, &m, &hw, &st, buf, sizeof buf);
    if (why)
        snprintf(o->reason, sizeof o->reason, "%s", why);
    else if (uncal_only && !tuned_system(hw))   /* the tune fit reads none of it */
        snprintf(o->reason, sizeof o->reason, "calibrated system: not tuned");
    else
        predict_known(o->run, m, hw, st, host_us, t, o);
    o->stack = stack_name_of(o->run);
    if (!why && o->predicted && !strcmp(o->run->stack, "other") &&
        stack_rule(o->rule))
        predict_other(sys, &m, hw, host_us, t, o);
}

/* ---- the report ---- */

struct fid_report *fid_report_new(const struct runs *runs, const char *source)
{
    return fid_report_new_host(runs, source, -1);
}

struct fid_report *fid_report_new_host(const struct runs *runs, const char *source,
                                       double host_us)
{
    return fid_report_new_tuned(runs, source, host_us, NULL);
}

static struct fid_report *report_new(const struct runs *runs, const char *source,
                                     double host_us, const struct fid_tune *t,
                                     bool uncal_only)
{
    struct fid_report *v = xcalloc(1, sizeof *v);
    struct systems *sys = xcalloc(1, sizeof *sys);
    v->runs = runs;
    v->rows = xcalloc(runs->n ? runs->n : 1, sizeof *v->rows);
    for (size_t i = 0; i < runs->n; i++) {
        if (source && strcmp(runs->rows[i].source, source))
            continue;
        v->rows[v->n].run = &runs->rows[i];
        predict_row(sys, host_us, t, uncal_only, &v->rows[v->n++]);
    }
    free(sys);
    fid_groups_build(v);
    return v;
}

struct fid_report *fid_report_new_tuned(const struct runs *runs, const char *source,
                                        double host_us, const struct fid_tune *t)
{
    return report_new(runs, source, host_us, t, false);
}

struct fid_report *fid_report_new_uncal(const struct runs *runs, const char *source,
                                        const struct fid_tune *t)
{
    return report_new(runs, source, -1, t, true);
}

void fid_report_free(struct fid_report *v)
{
    if (!v)
        return;
    free(v->rows);
    free(v->groups);
    free(v);
}
