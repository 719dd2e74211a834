/* results/export.c: launch settings for a plan (see export.h). Each writer
 * states what the framework cannot express exactly; a plan the framework
 * cannot run at all is refused with the reason (torchtitan has no
 * optimizer-only or gradient-only sharding: ZeRO-1 and ZeRO-2). */
#include "results/export.h"

#include <assert.h>
#include <string.h>

#include "results/export_moe.h"
#include "results/res.h"
#include "spaces/stack.h"

static const char *const fw_names[RES_FW_COUNT] = {
    [RES_FW_MEGATRON] = "megatron", [RES_FW_NEMO] = "nemo",
    [RES_FW_TORCHTITAN] = "torchtitan",
};
static_assert(RES_FW_COUNT == 3, "update fw_names and fw_writers");
static_assert(PLAN_DIM_COUNT == 19, "a new plan dimension needs its spelling "
              "in every exporter: megatron, nemo and torchtitan below");

int res_framework_parse(const char *s, enum res_framework *out)
{
    for (int i = 0; i < RES_FW_COUNT; i++)
        if (!strcmp(s, fw_names[i])) {
            *out = (enum res_framework)i;
            return 0;
        }
    return -1;
}

const char *res_framework_name(enum res_framework f) { return fw_names[f]; }

const char *res_framework_list(const char *sep, const char *last, char *buf,
                               size_t size)
{
    return res_names_join(fw_names, RES_FW_COUNT, sep, last, buf, size);
}

/* "# llama3-70b on dgx-h100 (stack megatron-core), 256 GPUs:
 *  tp8.pp4.dp8.mb1.sp.rc-sel.z1, predicted 16.33 s per iteration, ..." */
static void banner(FILE *fp, const struct pred_ctx *c, const struct plan *p,
                   const struct pred_result *r)
{
    char key[96];
    plan_key(p, key, sizeof key);
    fprintf(fp, "# trainplan: %s on %s (stack %s), %lld GPUs: %s\n# predicted "
            "%.3f s per iteration, %.0f tokens/s, MFU %.1f %%, %.1f GiB per "
            "GPU%s\n", c->model.name, c->hw.name, c->stack,
            (long long)plan_gpus(p), key,
            r->iteration_s, r->tokens_per_s, 100 * r->mfu,
            r->mem.total_bytes / RES_GIB, r->rule == PLAN_OK && r->mem.fits ? ""
            : " (does not fit or breaks a rule)");
    if (!c->hw.calibrated)              /* a comment in every format */
        fputs("# ", fp);
    res_uncalibrated_note(fp, &c->hw);
}

/* The plan's layout under the context's split rule (the stack the export
 * predicted with); the plan rule layers-pp already refused what it cannot
 * lay out, so a failure here falls back to equal stages. */
static struct stage_layout layout(const struct pred_ctx *c, const struct plan *p)
{
    struct stage_layout s;
    if (plan_stage_layout(p, &c->model, &c->limits, &s))
        stage_layout(STAGE_SPLIT_EVEN, c->model.layers, p->pp, p->vpp, 0, 0, &s);
    return s;
}

/* ---- Megatron-LM ---- */

/* Megatron-LM arguments.py: --pipeline-model-parallel-layout when vpp does
 * not divide the ranks' counts (alone: it sets vpp and excludes the other
 * split flags, transformer_config.py "pipeline_model_parallel_layout
 * cannot be set with other pipeline layout arguments"),
 * --account-for-embedding/loss-in-pipeline-split
 * (a layer slot each), --decoder-first/last-pipeline-num-layers, and with
 * uneven stages the chunks per rank (--num-virtual-stages-per-pipeline-
 * rank) instead of layers per chunk. */
static void megatron_stages(FILE *fp, const struct pred_ctx *c,
                            const struct plan *p)
{
    struct stage_layout s = layout(c, p);
    char lay[2048];
    if (s.layout) {             /* any counts: the layout, nothing else */
        stage_layout_string(&s, c->model.mtp_layers, lay, sizeof lay);
        fprintf(fp, "--pipeline-model-parallel-layout '%s' \\\n", lay);
        return;
    }
    if (s.embed_slot)
        fputs("--account-for-embedding-in-pipeline-split \\\n", fp);
    if (s.loss_slot)
        fputs("--account-for-loss-in-pipeline-split \\\n", fp);
    if (!s.even && !s.embed_slot && !s.loss_slot && p->pp > 1)
        fprintf(fp, "--decoder-first-pipeline-num-layers %d \\\n"
                "--decoder-last-pipeline-num-layers %d \\\n", (int)s.first,
                (int)s.last);
    if (p->vpp > 1 && s.even)
        fprintf(fp, "--num-layers-per-virtual-pipeline-stage %lld \\\n",
                (long long)(c->model.layers / ((int64_t)p->pp * p->vpp)));
    else if (p->vpp > 1)
        fprintf(fp, "--num-virtual-stages-per-pipeline-rank %d \\\n",
                (int)p->vpp);
}

/* Context parallelism and TP communication overlap (megatron/training/
 * arguments.py: --context-parallel-size, --cp-comm-type p2p | allgather |
 * a2a, the stack's exchange the predictor models (predictor/cp.c);
 * --tp-comm-overlap, Transformer Engine userbuffers (predictor/tpo.c)). */
static void megatron_cp_tpo(FILE *fp, const struct pred_ctx *c,
                            const struct plan *p)
{
    if (p->cp > 1)
        fprintf(fp, "--context-parallel-size %d \\\n--cp-comm-type %s \\\n",
                (int)p->cp, stack_cp_comm_name(c->job.cp_comm));
    if (p->tpo)
        fputs("--tp-comm-overlap \\\n", fp);
    if (model_is_moe(&c->model))    /* arguments.py; etp said, not tp's */
        fprintf(fp, "--expert-model-parallel-size %d \\\n"
                "--expert-tensor-parallel-size %d \\\n%s", (int)p->ep,
                (int)p->etp, p->epo ? "--overlap-moe-expert-parallel-comm \\\n"
                : "");
}

/* Megatron-FSDP's --data-parallel-sharding-strategy for ZeRO-2 / ZeRO-3
 * (megatron/core/distributed/distributed_data_parallel_config.py: no_shard,
 * optim, optim_grads, optim_grads_params). */
static const char *mfsdp_strategy(const struct plan *p)
{
    return p->zero >= 3 ? "optim_grads_params" : "optim_grads";
}

/* Full recompute (megatron/training/arguments.py, megatron/core/
 * transformer/transformer_block.py _checkpointed_forward): of every layer,
 * uniform with one layer a group, so each layer's input is checkpointed and
 * one layer rebuilt at a time (what the memory model keeps: mem.c); with
 * recompute_layers N, the block method: the first N layers of each model
 * chunk checkpointed, the rest keep their activations. */
static void megatron_full(FILE *fp, const struct plan *p)
{
    fprintf(fp, "--recompute-granularity full \\\n--recompute-method %s \\\n"
            "--recompute-num-layers %d \\\n", p->rc_layers > 0 ? "block"
            : "uniform", p->rc_layers > 0 ? (int)p->rc_layers : 1);
}

/* The plan's flags: parallelism, batch, recompute, sharding, overlap. */
static void megatron_plan(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    char mods[128];
    fprintf(fp, "--tensor-model-parallel-size %d \\\n--pipeline-model-parallel-size %d \\\n",
            (int)p->tp, (int)p->pp);
    megatron_stages(fp, c, p);
    if (p->sp)
        fputs("--sequence-parallel \\\n", fp);
    megatron_cp_tpo(fp, c, p);
    fprintf(fp, "--micro-batch-size %d \\\n--global-batch-size %lld \\\n"
            "--seq-length %lld \\\n", (int)p->mbs, (long long)c->job.gbs,
            (long long)c->job.seq);
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE) {
        job_rc_modules_format(c->job.recompute_modules, mods, sizeof mods);
        fprintf(fp, "--recompute-granularity selective \\\n"
                "--recompute-modules %s \\\n", mods);
    } else if (p->recompute == PLAN_RECOMPUTE_FULL)
        megatron_full(fp, p);
    if (p->zero)
        fputs("--use-distributed-optimizer \\\n", fp);
    if (p->offload)     /* megatron/core/optimizer/cpu_offloading/README.md */
        fprintf(fp, "--chunked-optimizer-state-offload \\\n"
                "--optimizer-state-offload-fraction 1.0 \\\n"
                "--optimizer-state-offload-chunk-size-mb %d \\\n"
                "--ckpt-format torch_dist \\\n", PRED_OFFLOAD_CHUNK_MB);
    if (p->zero >= 2)           /* Megatron-FSDP: its user guide's flags */
        fprintf(fp, "--use-megatron-fsdp \\\n--data-parallel-sharding-strategy "
                "%s \\\n--no-gradient-accumulation-fusion \\\n--ckpt-format "
                "fsdp_dtensor \\\n", mfsdp_strategy(p));
    if (p->replicas > 1)        /* HSDP: distributed-optimizer instances */
        fprintf(fp, "--num-distributed-optimizer-instances %d \\\n%s",
                (int)p->replicas, p->zero >= 2 ? "--outer-dp-sharding-strategy "
                "no_shard \\\n" : "");
    /* 16-bit gradients (predictor/shard.c grad_bytes): --grad-reduce-in-bf16
     * (megatron/training/arguments.py; an fp16 job's are 16-bit already) */
    if (c->job.grad_reduce_16bit && c->job.precision != JOB_PREC_FP16)
        fputs("--grad-reduce-in-bf16 \\\n", fp);
    if (pred_overlap_grad(c, p))
        fputs("--overlap-grad-reduce \\\n", fp);
    if (pred_overlap_grad(c, p) && c->job.ddp_bucket_params > 0)
        fprintf(fp, "--ddp-bucket-size %.0f \\\n", c->job.ddp_bucket_params);
    if (p->zero && pred_overlap_param(c, p))
        fputs("--overlap-param-gather \\\n", fp);
}

/* The model's flags and the precision. */
static void megatron_model(FILE *fp, const struct pred_ctx *c)
{
    const struct model *m = &c->model;
    fprintf(fp, "--num-layers %lld \\\n--hidden-size %lld \\\n"
            "--num-attention-heads %lld \\\n--ffn-hidden-size %lld \\\n",
            (long long)m->layers, (long long)m->hidden, (long long)m->heads,
            (long long)m->ffn_hidden);
    if (m->kv_heads != m->heads)
        fprintf(fp, "--group-query-attention \\\n--num-query-groups %lld \\\n",
                (long long)m->kv_heads);
    if (m->glu)
        fputs("--swiglu \\\n", fp);
    if (m->norm == MODEL_NORM_RMSNORM)
        fputs("--normalization RMSNorm \\\n", fp);
    if (m->position == MODEL_POS_ROPE)
        fputs("--position-embedding-type rope \\\n", fp);
    if (!m->tied_embeddings)
        fputs("--untie-embeddings-and-output-weights \\\n", fp);
    if (!m->bias)
        fputs("--disable-bias-linear \\\n", fp);
    if (!m->bias && m->qkv_bias)    /* arguments.py: "Enable bias only in the
                                       QKV linear layers" (add_qkv_bias) */
        fputs("--add-qkv-bias \\\n", fp);
    if (m->qk_norm)     /* TransformerConfig.qk_layernorm (--qk-layernorm);
                           the norm type follows --normalization */
        fputs("--qk-layernorm \\\n", fp);
    if (!m->dropout)            /* the stack runs none; Megatron's default: 0.1 */
        fputs("--attention-dropout 0.0 \\\n--hidden-dropout 0.0 \\\n", fp);
    res_moe_megatron(fp, c);    /* experts, MLA, windows, MTP: results/export_moe.c */
    /* FP8: the primary weights in FP8, as predictor/mem.c counts them, and
     * the scaling recipe the prediction timed (predictor/kernel.c: current
     * scaling unless the job says delayed): TransformerConfig.fp8_recipe
     * (megatron/core/transformer/transformer_config.py; --fp8-recipe,
     * default "delayed"; "tensorwise" is per-tensor current scaling) */
    if (c->job.precision == JOB_PREC_FP8)
        fprintf(fp, "--bf16 \\\n--fp8-format hybrid \\\n--fp8-recipe %s "
                "\\\n--fp8-param-gather\n",
                c->job.fp8_delayed ? "delayed" : "tensorwise");
    else
        fputs(c->job.precision == JOB_PREC_FP16 ? "--fp16\n" : "--bf16\n", fp);
}

/* The CUDA graphs the prediction assumed (the stack's cuda_graph_scope,
 * predictor/host.c), as Megatron-Core captures them (megatron/training/
 * arguments.py --cuda-graph-impl, --cuda-graph-scope; TransformerConfig
 * cuda_graph_impl, cuda_graph_scope): the whole iteration with the
 * "local" implementation ("--cuda-graph-scope=full_iteration enables
 * whole iteration CUDA graph"), partial scopes through Transformer
 * Engine's make_graphed_callables (the MoE recipes' partial-graph YAMLs:
 * transformer_engine with attn, moe_router, moe_preprocess). A dense
 * model has no MoE layer for the MoE scopes to capture: they are left out.
 * *impl gets the implementation, NULL when nothing is captured; returns
 * the scopes as a bit set (full_iteration alone when it is captured). */
static unsigned graph_scopes(const struct pred_ctx *c, const char **impl)
{
    unsigned g = c->job.cuda_graphs, full = JOB_GRAPH_BIT(JOB_GRAPH_FULL);
    if (!model_is_moe(&c->model))
        g &= ~(JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER) |
               JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS));
    *impl = !g ? NULL : g & full ? "local" : "transformer_engine";
    return g & full ? full : g;
}

/* The scopes' names after 'pre', 'sep' between them, then 'post'. */
static void graph_list(FILE *fp, unsigned g, const char *pre,
                       const char *sep, const char *post)
{
    int n = 0;
    fputs(pre, fp);
    for (int i = 0; i < JOB_GRAPH_COUNT; i++)
        if (g & JOB_GRAPH_BIT(i))
            fprintf(fp, "%s%s", n++ ? sep : "", stack_graph_name((enum job_graph)i));
    fputs(post, fp);
}

/* What validate_args requires or the plan assumed beyond the shapes
 * (Megatron-LM megatron/training/arguments.py): --max-position-embeddings
 * is a required argument and must be >= --seq-length (the learned table's
 * rows, else the sequence); --rotary-base defaults to 10000 there; the
 * attention backend is TransformerConfig.attention_backend
 * (megatron/core/transformer/enums.py AttnBackend), "auto" by default. */
static void megatron_run(FILE *fp, const struct pred_ctx *c)
{
    const struct model *m = &c->model;
    const char *impl;
    unsigned g;
    fprintf(fp, "--max-position-embeddings %lld \\\n", (long long)
            (m->position == MODEL_POS_LEARNED ? m->position_table : c->job.seq));
    if (m->position == MODEL_POS_ROPE)
        fprintf(fp, "--rotary-base %.0f \\\n", m->rope_base);
    fprintf(fp, "--attention-backend %s \\\n",
            c->job.attention == JOB_ATTN_FLASH ? "flash" : "unfused");
    g = graph_scopes(c, &impl);
    if (impl) {
        fprintf(fp, "--cuda-graph-impl %s \\\n", impl);
        graph_list(fp, g, "--cuda-graph-scope ", " ", " \\\n");
    }
}

static void megatron(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    megatron_plan(fp, c, p);
    megatron_run(fp, c);
    megatron_model(fp, c);
}

/* ---- NeMo 2 / Megatron-Bridge ConfigContainer overrides ---- */

/* The same layout as TransformerConfig fields (megatron/core/transformer/
 * transformer_config.py: account_for_embedding_in_pipeline_split,
 * account_for_loss_in_pipeline_split, num_layers_in_first_pipeline_stage,
 * num_layers_in_last_pipeline_stage), which NeMo's llama31_405b recipe
 * sets on recipe.model.config. */
static void nemo_stages(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    struct stage_layout s = layout(c, p);
    char lay[2048];
    if (s.layout) {
        stage_layout_string(&s, c->model.mtp_layers, lay, sizeof lay);
        fprintf(fp, "  pipeline_model_parallel_layout: \"%s\"\n", lay);
        return;
    }
    if (s.embed_slot)
        fputs("  account_for_embedding_in_pipeline_split: true\n", fp);
    if (s.loss_slot)
        fputs("  account_for_loss_in_pipeline_split: true\n", fp);
    if (!s.even && !s.embed_slot && !s.loss_slot && p->pp > 1)
        fprintf(fp, "  num_layers_in_first_pipeline_stage: %d\n"
                "  num_layers_in_last_pipeline_stage: %d\n", (int)s.first,
                (int)s.last);
}

/* The model keys Megatron-LM's flags of megatron_run map to (Megatron-Bridge
 * docs/megatron-lm-to-megatron-bridge.md: --rotary-base is model.rotary_base,
 * --seq-length model.seq_length and dataset.seq_length). */
static void nemo_run(FILE *fp, const struct pred_ctx *c)
{
    const char *impl;
    unsigned g;
    if (c->model.position == MODEL_POS_ROPE)
        fprintf(fp, "  rotary_base: %.0f\n", c->model.rope_base);
    if (c->model.qk_norm)       /* TransformerConfig.qk_layernorm */
        fputs("  qk_layernorm: true\n", fp);
    fprintf(fp, "  attention_backend: %s\n",
            c->job.attention == JOB_ATTN_FLASH ? "flash" : "unfused");
    g = graph_scopes(c, &impl);
    if (impl) {
        fprintf(fp, "  cuda_graph_impl: %s\n", impl);
        graph_list(fp, g, "  cuda_graph_scope: [", ", ", "]\n");
    }
    res_moe_nemo(fp, c);        /* experts, MLA, windows, MTP: export_moe.c */
}

/* The distributed optimizer is set in both ddp and optimizer (Megatron-Bridge
 * src/megatron/bridge/training/config.py keeps them in sync); the precision
 * is a registered recipe of training/mixed_precision.py: FP8 as
 * bf16_with_fp8_current_scaling_mixed, or bf16_with_fp8_delayed_scaling_mixed
 * where the prediction timed delayed scaling (hybrid format, FP8 parameters
 * gathered), as predictor/mem.c counts FP8 weights. */
static void nemo_tail(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    static const char *const mp[JOB_PREC_COUNT] = {
        [JOB_PREC_BF16] = "bf16_mixed", [JOB_PREC_FP16] = "fp16_mixed",
        [JOB_PREC_FP8] = "bf16_with_fp8_current_scaling_mixed",
    };
    fprintf(fp, "optimizer:\n  use_distributed_optimizer: %s\n",
            p->zero ? "true" : "false");
    if (p->offload)     /* Megatron-Core OptimizerConfig's fields (README.md
                         * of megatron/core/optimizer/cpu_offloading) */
        fprintf(fp, "  chunked_optimizer_state_offload: true\n"
                "  optimizer_state_offload_fraction: 1.0\n"
                "  optimizer_state_offload_chunk_size_mb: %d\ncheckpoint:\n"
                "  ckpt_format: torch_dist\n", PRED_OFFLOAD_CHUNK_MB);
    fprintf(fp, "dataset:\n  seq_length: %lld\nmixed_precision: %s\n",
            (long long)c->job.seq,
            c->job.precision == JOB_PREC_FP8 && c->job.fp8_delayed
            ? "bf16_with_fp8_delayed_scaling_mixed" : mp[c->job.precision]);
    /* 16-bit gradients: ddp's grad_reduce_in_fp32 is false above, but the
     * precision recipe's own field overwrites ddp's at setup (Megatron-
     * Bridge training/mixed_precision.py update_config_with_precision_
     * overrides; bf16_mixed sets it true) */
    if (c->job.grad_reduce_16bit && c->job.precision != JOB_PREC_FP16)
        fputs("# 16-bit gradients: also override the recipe's "
              "mixed_precision.grad_reduce_in_fp32=false (it overwrites "
              "ddp.grad_reduce_in_fp32 at setup)\n", fp);
}

/* TransformerConfig recompute_granularity / _modules / _method /
 * _num_layers, as Megatron-LM's flags of megatron_plan. */
static void nemo_recompute(FILE *fp, const struct pred_ctx *c,
                           const struct plan *p)
{
    const char *sep = "";
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE) {
        fputs("  recompute_granularity: selective\n  recompute_modules: [", fp);
        for (int i = 0; i < JOB_RC_COUNT; i++)
            if (c->job.recompute_modules & JOB_RC_BIT(i)) {
                fprintf(fp, "%s%s", sep, job_rc_module_name((enum job_rc_module)i));
                sep = ", ";
            }
        fputs("]\n", fp);
    } else if (p->recompute == PLAN_RECOMPUTE_FULL)
        fprintf(fp, "  recompute_granularity: full\n  recompute_method: %s\n"
                "  recompute_num_layers: %d\n", p->rc_layers > 0 ? "block"
                : "uniform", p->rc_layers > 0 ? (int)p->rc_layers : 1);
    else
        fputs("  recompute_granularity: null\n", fp);
}

static void nemo(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    fprintf(fp, "model:\n  tensor_model_parallel_size: %d\n"
            "  pipeline_model_parallel_size: %d\n"
            "  virtual_pipeline_model_parallel_size: ", (int)p->tp, (int)p->pp);
    if (p->vpp > 1)
        fprintf(fp, "%d\n", (int)p->vpp);
    else
        fputs("null\n", fp);
    nemo_stages(fp, c, p);
    /* Megatron-Core TransformerConfig / ModelParallelConfig fields */
    fprintf(fp, "  context_parallel_size: %d\n", (int)p->cp);
    if (p->cp > 1)
        fprintf(fp, "  cp_comm_type: %s\n", stack_cp_comm_name(c->job.cp_comm));
    if (model_is_moe(&c->model))    /* ModelParallelConfig */
        fprintf(fp, "  expert_model_parallel_size: %d\n"
                "  expert_tensor_parallel_size: %d\n", (int)p->ep, (int)p->etp);
    fprintf(fp, "  sequence_parallel: %s\n  tp_comm_overlap: %s\n"
            "  seq_length: %lld\n", p->sp ? "true" : "false",
            p->tpo ? "true" : "false", (long long)c->job.seq);
    if (!c->model.dropout)      /* the stack runs none */
        fputs("  attention_dropout: 0.0\n  hidden_dropout: 0.0\n", fp);
    nemo_run(fp, c);
    nemo_recompute(fp, c, p);
    fprintf(fp, "train:\n  global_batch_size: %lld\n  micro_batch_size: %d\n"
            "ddp:\n  use_distributed_optimizer: %s\n  overlap_grad_reduce: %s\n"
            "  overlap_param_gather: %s\n", (long long)c->job.gbs, (int)p->mbs,
            p->zero ? "true" : "false",
            pred_overlap_grad(c, p) ? "true" : "false",
            p->zero && pred_overlap_param(c, p) ? "true" : "false");
    if (pred_overlap_grad(c, p) && c->job.ddp_bucket_params > 0)
        fprintf(fp, "  bucket_size: %.0f\n", c->job.ddp_bucket_params);
    if (c->job.grad_reduce_16bit &&     /* DistributedDataParallelConfig */
        c->job.precision != JOB_PREC_FP16)
        fputs("  grad_reduce_in_fp32: false\n", fp);
    if (p->replicas > 1)
        fprintf(fp, "  num_distributed_optimizer_instances: %d\n%s",
                (int)p->replicas, p->zero >= 2
                ? "  outer_dp_sharding_strategy: no_shard\n" : "");
    if (p->zero >= 2)           /* Megatron-Bridge docs/training/megatron-fsdp */
        fprintf(fp, "  use_megatron_fsdp: true\n  data_parallel_sharding_strategy:"
                " %s\ndist:\n  use_megatron_fsdp: true\ncheckpoint:\n"
                "  ckpt_format: fsdp_dtensor\n", mfsdp_strategy(p));
    if (p->epo)     /* Megatron-Bridge CommOverlapConfig; after ddp's keys */
        fputs("comm_overlap:\n  overlap_moe_expert_parallel_comm: true\n", fp);
    nemo_tail(fp, c, p);
}

/* ---- torchtitan JobConfig (TOML) ---- */

/* [model]: a mixture of experts names torchtitan's model and flavor
 * (results/export_moe.c). FP8 is torchao's Float8Linear, a model converter
 * (torchtitan torchtitan/components/quantization/float8.py registers
 * "quantize.linear.float8"; torchtitan/config/job_config.py Float8Linear):
 * tensorwise scaling, and with FSDP the weights all-gathered in FP8; the
 * experts' grouped GEMMs are converted apart ("quantize.grouped_mm.float8",
 * job_config.py Float8GroupedMM fqns = ["experts"], as torchtitan's
 * models/deepseek_v3/train_configs/deepseek_v3_671b.toml writes it). */
static void torchtitan_model(FILE *fp, const struct pred_ctx *c,
                             const struct plan *p)
{
    bool moe = model_is_moe(&c->model);
    if (c->job.precision != JOB_PREC_FP8 && !moe)
        return;
    fputs("\n[model]\n", fp);
    res_moe_torchtitan_flavor(fp, c);
    if (c->job.precision != JOB_PREC_FP8)
        return;
    fprintf(fp, "converters = [\"quantize.linear.float8\"%s]\n\n"
            "[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n",
            moe ? ", \"quantize.grouped_mm.float8\"" : "");
    if (p->zero)
        fputs("enable_fsdp_float8_all_gather = true\n"
              "precompute_float8_dynamic_scale_for_fsdp = true\n", fp);
    if (moe)
        fputs("\n[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n", fp);
}

/* Data parallelism: FSDP2 over dp / replicas ranks (times cp, the
 * dp_shard_cp mesh), replicated across replicas (HSDP); else DDP. ZeRO-1
 * and 2 are refused (torchtitan_refuses). */
static void torchtitan_dp(FILE *fp, const struct pred_ctx *c,
                          const struct plan *p)
{
    int r = p->replicas > 1 ? (int)p->replicas : 1;
    if (p->zero == 3)
        fprintf(fp, "data_parallel_shard_degree = %d\n"
                "data_parallel_replicate_degree = %d\n"
                "fsdp_reshard_after_forward = \"%s\"\n", (int)p->dp / r, r,
                stack_reshard_name(c->job.fsdp_reshard));
    else
        fprintf(fp, "data_parallel_shard_degree = 1\n"
                "data_parallel_replicate_degree = %d\n", (int)p->dp);
}

/* [activation_checkpoint] (every layer or op-level selective; a block
 * recompute of some layers is refused: torchtitan_refuses) and [compile]. */
static void torchtitan_ac_compile(FILE *fp, const struct plan *p)
{
    static const char *const ac[PLAN_RECOMPUTE_COUNT] = { "none", "selective",
                                                          "full" };
    fprintf(fp, "\n[activation_checkpoint]\nmode = \"%s\"\n", ac[p->recompute]);
    if (p->recompute == PLAN_RECOMPUTE_SELECTIVE)
        fputs("selective_ac_option = \"op\"\n", fp);
    /* torchtitan refuses async TP without the model compiled
     * (models/llama3/infra/parallelize.py: RuntimeError("Async TP requires
     * torch.compile") unless compile.enable and "model" in
     * compile.components, config/job_config.py Compile) */
    if (p->tpo)
        fputs("\n[compile]\nenable = true\ncomponents = [\"model\", "
              "\"loss\"]\n", fp);
}

static void torchtitan(FILE *fp, const struct pred_ctx *c, const struct plan *p)
{
    /* local_batch_size is one rank's batch per forward: without a pipeline
     * the micro-batch (gradient accumulation over global / (local dp) steps,
     * torchtitan train.py), with one the pipeline's whole batch, split into
     * micro-batches of pipeline_parallel_microbatch_size */
    int64_t local = p->pp > 1 ? c->job.gbs / p->dp : p->mbs;
    fprintf(fp, "[training]\nglobal_batch_size = %lld\nlocal_batch_size = %lld\n"
            "seq_len = %lld\n\n[parallelism]\ntensor_parallel_degree = %d\n"
            "pipeline_parallel_degree = %d\n", (long long)c->job.gbs,
            (long long)local, (long long)c->job.seq, (int)p->tp, (int)p->pp);
    if (p->pp > 1)
        fprintf(fp, "pipeline_parallel_schedule = \"%s\"\n"
                "pipeline_parallel_microbatch_size = %d\n",
                p->vpp > 1 ? "Interleaved1F1B" : "1F1B", (int)p->mbs);
    /* pipeline_parallel_layers_per_stage: a rigid fit of layers + 2 slots
     * (pipeline_parallel.py); without it a multi-stage schedule takes 2
     * stages per rank (titan_refusal refuses what fits neither) */
    if (p->pp > 1 && p->vpp > 2)
        fprintf(fp, "pipeline_parallel_layers_per_stage = %lld\n",
                (long long)((c->model.layers + 2) / ((int64_t)p->pp * p->vpp)));
    torchtitan_dp(fp, c, p);
    /* torchtitan/config/job_config.py, [parallelism]; FSDP shards over
     * dp_shard * cp (parallelize_llama.py, the dp_shard_cp mesh) */
    if (p->cp > 1)              /* PyTorch's rotaters: the ring is "alltoall" */
        fprintf(fp, "context_parallel_degree = %d\n%s"
                "context_parallel_rotate_method = \"%s\"\n", (int)p->cp,
                c->job.cp_comm == JOB_CP_A2A ? "# no head all-to-all (Ulysses) "
                "in torchtitan: its ring instead\n" : "",
                c->job.cp_comm == JOB_CP_ALLGATHER ? "allgather" : "alltoall");
    if (model_is_moe(&c->model))    /* job_config.py [parallelism] */
        fprintf(fp, "expert_parallel_degree = %d\n"
                "expert_tensor_parallel_degree = %d\n", (int)p->ep, (int)p->etp);
    if (p->tpo)     /* [compile] below: async TP needs it */
        fputs("enable_async_tensor_parallel = true\n", fp);
    if (p->tp > 1 && !p->sp)
        fputs("# torchtitan's tensor parallelism always shards norms and "
              "dropout by sequence\n", fp);
    torchtitan_ac_compile(fp, p);
    torchtitan_model(fp, c, p);
}

/* Why torchtitan cannot run the plan, or NULL: its data parallelism is
 * DDP (data_parallel_replicate_degree) or FSDP2 (data_parallel_shard_degree,
 * parameters, gradients and optimizer states sharded), nothing between
 * (torchtitan/config/job_config.py, Parallelism), and always overlapped. */
static const char *torchtitan_refuses(const struct plan *p)
{
    if (p->offload)
        return "torchtitan has no chunked optimizer-state offload (its "
               "CPU offload, FSDP2's CPUOffloadPolicy, moves parameters, "
               "gradients and the optimizer step to the host, which trainplan "
               "does not model); use --offload=n";
    if (p->epo)
        return "torchtitan has no combined 1F1B overlap of the MoE "
               "all-to-alls; use --epo=n";
    if (p->rc_layers > 0)
        return "torchtitan cannot recompute only the first layers of each "
               "stage (its selective_ac_option k checkpoints every k-th "
               "block); use --recompute_layers 0";
    if (!p->overlap && p->dp > 1)
        return "torchtitan always overlaps data-parallel communication "
               "(FSDP2 prefetch, DDP's bucketed all-reduce hooks); use "
               "--overlap=y";
    return p->zero == 1 || p->zero == 2
         ? "torchtitan shards either nothing (DDP) or parameters, gradients "
           "and optimizer states (FSDP2): it has no ZeRO-1 or ZeRO-2; use "
           "--zero 0 or 3" : NULL;
}

/* A layout the framework cannot be told to build, or NULL. torchtitan
 * splits by its own rule only: 2 virtual stages per rank by default, more
 * only with pipeline_parallel_layers_per_stage, which asserts that layers
 * + 2 divide by pp and the result by the layers per stage. Megatron takes
 * what its split rule (the layers-pp plan rule) lets through. */
static const char *refusal(enum res_framework fw, const struct pred_ctx *c,
                           const struct plan *p, char *buf, size_t n)
{
    int64_t eff = c->model.layers + 2;
    if (res_moe_plan_refusal(fw, c, p, buf, n))   /* experts: export_moe.c */
        return buf;
    if (fw != RES_FW_TORCHTITAN || p->vpp <= 2 || p->pp == 1 ||
        (eff % p->pp == 0 && (eff / p->pp) % p->vpp == 0))
        return NULL;
    snprintf(buf, n, "torchtitan cannot run vpp %d on pp %d: layers + 2 "
             "(%lld) must divide by pp and then by vpp for "
             "pipeline_parallel_layers_per_stage", (int)p->vpp, (int)p->pp,
             (long long)eff);
    return buf;
}

/* ---- what a framework cannot run ---- */

/* The model's needs: ALiBi is in none of the three (Megatron-LM
 * --position-embedding-type choices in megatron/training/arguments.py;
 * torchtitan's models use RoPE); Megatron's validate_args asserts
 * --max-position-embeddings >= --seq-length, so a learned table shorter
 * than the sequence cannot run under Megatron-LM or Megatron-Bridge. */
int res_export_model_runnable(enum res_framework fw, const struct pred_ctx *c,
                              char *buf, size_t n)
{
    const struct model *m = &c->model;
    if (m->position == MODEL_POS_ALIBI)
        snprintf(buf, n, "%s has no ALiBi position embedding (model %s)",
                 fw_names[fw], m->name);
    else if (fw != RES_FW_TORCHTITAN && m->position == MODEL_POS_LEARNED &&
             c->job.seq > m->position_table)
        snprintf(buf, n, "seq %lld exceeds the %lld rows of %s's learned "
                 "position table (Megatron-LM validate_args: "
                 "max_position_embeddings >= seq_length)", (long long)c->job.seq,
                 (long long)m->position_table, m->name);
    else if (fw == RES_FW_TORCHTITAN && graph_scopes(c, &(const char *){ 0 }))
        /* torchtitan/config/job_config.py: no CUDA-graph option */
        snprintf(buf, n, "torchtitan has no CUDA-graph capture of the "
                 "training step, which the prediction assumed (the stack's "
                 "cuda_graph_scope)");
    else if (fw == RES_FW_TORCHTITAN && c->job.grad_reduce_16bit)
        /* torchtitan/config/configs.py @ b5bcd76: mixed_precision_reduce:
         * Literal["float32"] */
        snprintf(buf, n, "torchtitan reduces gradients in fp32 only "
                 "(training.mixed_precision_reduce), not in 16 bits as the "
                 "prediction assumed (the stack's grad_reduce_16bit)");
    else if (fw == RES_FW_TORCHTITAN && c->job.precision == JOB_PREC_FP16)
        /* torchtitan/config/job_config.py Training: mixed_precision_param
         * is Literal["bfloat16", "float32"]; no fp16 loss scaling */
        snprintf(buf, n, "torchtitan trains in bf16 or fp32 "
                 "(training.mixed_precision_param), not fp16; use --precision "
                 "bf16");
    else if (!res_moe_model_refusal(fw, c, buf, n))  /* export_moe.c */
        return 0;
    return -1;
}

int res_export_runnable(enum res_framework fw, const struct pred_ctx *c,
                        const struct plan *p, const struct pred_result *r,
                        char *buf, size_t n)
{
    if (fw >= RES_FW_COUNT)
        TPL_BUG("bad framework %d", (int)fw);
    if (res_export_model_runnable(fw, c, buf, n) || refusal(fw, c, p, buf, n))
        return -1;
    if (r->rule == PLAN_OK && fw == RES_FW_TORCHTITAN && torchtitan_refuses(p)) {
        snprintf(buf, n, "%s", torchtitan_refuses(p));
        return -1;
    }
    if (r->rule == PLAN_OK)
        return 0;
    plan_rule_explain(r->rule, p, &c->model, &c->job, &c->limits, buf, n);
    return -1;
}

typedef void fw_writer(FILE *fp, const struct pred_ctx *c, const struct plan *p);
static fw_writer *const fw_writers[RES_FW_COUNT] = {
    [RES_FW_MEGATRON] = megatron, [RES_FW_NEMO] = nemo,
    [RES_FW_TORCHTITAN] = torchtitan,
};

int res_export_write(FILE *fp, enum res_framework fw, const struct pred_ctx *c,
                     const struct plan *p, const struct pred_result *r,
                     struct tpl_err *err)
{
    char why[200];
    if (fw >= RES_FW_COUNT)
        TPL_BUG("bad framework %d", (int)fw);
    if (refusal(fw, c, p, why, sizeof why))
        return tpl_errorf(err, TPL_EUSAGE, "%s", why);
    banner(fp, c, p, r);
    res_moe_note(fp, fw, c);
    if (p->offload)     /* the commit that added it: "[dev] Add chunked
                           optimizer-state and master-weight offload (#6244)" */
        fputs("# the chunked optimizer-state offload is Megatron-LM's dev "
              "branch's (#6244); a release without it offers "
              "--optimizer-cpu-offload (Adam on the CPU), which this "
              "prediction does not time\n", fp);
    fw_writers[fw](fp, c, p);
    return res_stream_done(fp, err);
}
