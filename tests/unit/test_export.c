/* tests/unit/test_export.c: results/export.c and export_moe.c, the launch
 * settings of mixture-of-experts and attention-variant models. Expected
 * lines are written by hand from the presets (spaces/models/) and the
 * frameworks' spellings cited in export_moe.c: Megatron-LM's DeepSeek-V3
 * recipe's "--moe-layer-freq ([0]*3+[1]*58)", gpt-oss's "--window-size
 * 127,0" and "--window-attn-skip-freq 2", torchtitan's flavor "671B". The
 * prediction quoted in the banner is a zeroed result: these tests read
 * the settings, not the predictor. */
#include "helpers.h"

#include <stdio.h>

#include "exporttext.h"

static struct pred_ctx ctx_of(const char *model)
{
    struct pred_ctx c;
    struct model m = load_model(model);
    struct hw_system h = load_system("dgx-h100");
    struct job j = make_job(4096, 1024);
    pred_ctx_init(&c, &m, &h, &j, false);
    return c;
}

static struct plan moe_plan(int tp, int pp, int dp, int ep, int etp)
{
    struct plan p = make_plan(tp, pp, dp, 1);
    p.ep = ep;
    p.etp = etp;
    p.sp = tp > 1;
    p.zero = 1;
    return p;
}

/* Every MoE, MLA and MTP flag of DeepSeek-V3 (config.json: 256 routed
 * experts, top-8, 1 shared of 2048, first 3 layers dense, sigmoid router
 * with bias-based balancing, q/kv LoRA 1536/512, head dims 128/64/128,
 * 1 MTP layer) under Megatron-LM's names. */
Test(export, megatron_deepseek_v3)
{
    struct pred_ctx c = ctx_of("deepseek-v3");
    struct plan p = moe_plan(2, 16, 64, 64, 1);
    const char *t = export_text(RES_FW_MEGATRON, &c, &p);
    static const char *const lines[] = {
        "--expert-model-parallel-size 64 \\\n",
        "--expert-tensor-parallel-size 1 \\\n",
        "--multi-latent-attention \\\n--qk-layernorm \\\n",
        "--q-lora-rank 1536 \\\n",
        "--kv-lora-rank 512 \\\n", "--qk-head-dim 128 \\\n",
        "--qk-pos-emb-head-dim 64 \\\n", "--v-head-dim 128 \\\n",
        "--num-experts 256 \\\n", "--moe-layer-freq '([0]*3+[1]*58)' \\\n",
        "--moe-ffn-hidden-size 2048 \\\n",
        "--moe-shared-expert-intermediate-size 2048 \\\n",
        "--moe-router-topk 8 \\\n", "--moe-router-score-function sigmoid \\\n",
        "--moe-router-load-balancing-type none \\\n",
        "--moe-router-enable-expert-bias \\\n", "--moe-router-dtype fp32 \\\n",
        "--moe-grouped-gemm \\\n", "--moe-token-dispatcher-type alltoall \\\n",
        "--mtp-num-layers 1 \\\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        assert_has(t, lines[i]);
    assert_lacks(t, "--kv-channels");       /* MLA sets its own widths */
    assert_lacks(t, "--moe-aux-loss-coeff");  /* no loss: nothing to weigh */
    assert_has(t, "\n# not in the model file, so off: the routed scaling "
               "factor (--moe-router-topk-scaling-factor)");
    assert_lacks(t, "--window-size");
    assert_lacks(t, "--group-query-attention");
}

/* The same model as Megatron-Bridge fields: the layer list has 61
 * entries, 3 dense then 58 MoE, as its DeepSeek-V3 bridge builds it. */
Test(export, nemo_deepseek_v3)
{
    struct pred_ctx c = ctx_of("deepseek-v3");
    struct plan p = moe_plan(2, 16, 64, 64, 1);
    const char *t = export_text(RES_FW_NEMO, &c, &p);
    char want[512] = "  moe_layer_freq: [0, 0, 0";
    for (int i = 3; i < 61; i++)
        strcat(want, ", 1");
    strcat(want, "]\n");
    assert_has(t, want);
    assert_has(t, "  num_moe_experts: 256\n");
    assert_has(t, "  moe_router_enable_expert_bias: true\n");
    assert_has(t, "  moe_shared_expert_intermediate_size: 2048\n");
    assert_has(t, "  multi_latent_attention: true\n  qk_layernorm: true\n"
               "  q_lora_rank: 1536\n");
    assert_has(t, "  expert_model_parallel_size: 64\n");
    assert_has(t, "  mtp_num_layers: 1\n");
    assert_has(t, "  moe_token_dispatcher_type: alltoall\n");
}

/* torchtitan: the 671B flavor of deepseek_v3, its missing MTP said. */
Test(export, torchtitan_deepseek_v3)
{
    struct pred_ctx c = ctx_of("deepseek-v3");
    struct plan p = moe_plan(1, 16, 128, 64, 1);
    p.zero = 3;
    const char *t = export_text(RES_FW_TORCHTITAN, &c, &p);
    assert_has(t, "\n[model]\nname = \"deepseek_v3\"\nflavor = \"671B\"\n");
    assert_has(t, "expert_parallel_degree = 64\n");
    assert_has(t, "# torchtitan's deepseek_v3 has no multi-token prediction");
    assert_runnable(RES_FW_TORCHTITAN, &c, &p);
}

/* Mixtral: no leading dense layers (--moe-layer-freq 1), GQA, softmax
 * top-2 with the aux loss, whose weight the note asks for. */
Test(export, megatron_mixtral)
{
    struct pred_ctx c = ctx_of("mixtral-8x7b");
    struct plan p = moe_plan(2, 1, 8, 8, 1);
    const char *t = export_text(RES_FW_MEGATRON, &c, &p);
    assert_has(t, "\n# set --moe-aux-loss-coeff: ");
    assert_has(t, "--num-experts 8 \\\n--moe-layer-freq 1 \\\n"
               "--moe-ffn-hidden-size 14336 \\\n--moe-router-topk 2 \\\n"
               "--moe-router-score-function softmax \\\n"
               "--moe-router-load-balancing-type aux_loss \\\n"
               "--moe-router-dtype fp32 \\\n");
    assert_has(t, "--num-query-groups 8 \\\n");
    assert_lacks(t, "--moe-router-enable-expert-bias");
    assert_lacks(t, "routed scaling");         /* softmax router */
    assert_lacks(t, "--moe-shared-expert");
    assert_lacks(t, "--multi-latent-attention");
}

/* Qwen3-30B-A3B: 32 heads of 128 on a 2048 hidden size (--kv-channels). */
Test(export, qwen3_head_width)
{
    struct pred_ctx c = ctx_of("qwen3-30b-a3b");
    struct plan p = moe_plan(1, 1, 64, 64, 1);
    assert_has(export_text(RES_FW_MEGATRON, &c, &p), "--kv-channels 128 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p), "  kv_channels: 128\n");
    p.zero = 3;                         /* torchtitan: FSDP2 */
    assert_has(export_text(RES_FW_TORCHTITAN, &c, &p),
               "name = \"qwen3\"\nflavor = \"30B-A3B\"\n");
}

/* gpt-oss: 128-token windows on every other layer (Megatron-LM's gpt-oss
 * recipe: --window-size 127,0, --window-attn-skip-freq 2); a spacing of 3
 * on 6 layers slides layers 0 and 3: [1,0,0,1,0,0]. */
Test(export, sliding_windows)
{
    struct pred_ctx c = ctx_of("gpt-oss-120b");
    struct plan p = moe_plan(1, 1, 64, 64, 1);
    const char *t = export_text(RES_FW_MEGATRON, &c, &p);
    assert_has(t, "--window-size 127,0 \\\n--window-attn-skip-freq 2 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  window_size: [127, 0]\n  window_attn_skip_freq: 2\n");
    c.model.layers = 6;
    c.model.sliding_every = 3;
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--window-attn-skip-freq '([1]*1+[0]*2+[1]*1+[0]*2)' \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  window_attn_skip_freq: [1, 0, 0, 1, 0, 0]\n");
}

/* Dense first, then every second layer: layer 0 dense, 1 MoE, 2 dense ..
 * on 8 layers with moe_dense_first 1, moe_layer_freq 2 (spaces/arch.c). */
Test(export, layer_freq_pattern)
{
    struct pred_ctx c = ctx_of("deepseek-v3");
    struct plan p = moe_plan(1, 1, 8, 8, 1);
    c.model.layers = 8;
    c.model.moe.dense_first = 1;
    c.model.moe.layer_freq = 2;
    assert_has(export_text(RES_FW_MEGATRON, &c, &p), "--moe-layer-freq "
               "'([0]*1+[1]*1+[0]*1+[1]*1+[0]*1+[1]*1+[0]*1+[1]*1)' \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  moe_layer_freq: [0, 1, 0, 1, 0, 1, 0, 1]\n");
    c.model.moe.dense_first = 0;        /* Megatron's integer: i % 2 == 0 */
    assert_has(export_text(RES_FW_MEGATRON, &c, &p), "--moe-layer-freq 2 \\\n");
}

/* A capacity factor is written; torchtitan, dropless, refuses it. */
Test(export, capacity_factor)
{
    struct pred_ctx c = ctx_of("qwen3-30b-a3b");
    struct plan p = moe_plan(1, 1, 64, 64, 1);
    char why[256];
    c.model.moe.capacity_factor = 1.25;
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--moe-expert-capacity-factor 1.25 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  moe_expert_capacity_factor: 1.25\n");
    cr_assert_eq(res_export_model_runnable(RES_FW_TORCHTITAN, &c, why, sizeof why), -1);
    assert_has(why, "dropless");
}

/* A dense model writes none of it: the dense goldens stay as they were. */
Test(export, dense_unchanged)
{
    struct pred_ctx c = ctx_of("llama3-70b");
    struct plan p = make_plan(8, 4, 8, 1);
    for (int fw = 0; fw < RES_FW_COUNT; fw++) {
        const char *t = export_text((enum res_framework)fw, &c, &p);
        assert_lacks(t, "expert");
        assert_lacks(t, "moe");
        assert_lacks(t, "[model]");
        assert_lacks(t, "kv-channels");
        assert_lacks(t, "kv_channels");
    }
}

/* 16-bit gradients (the job's grad_reduce_16bit): Megatron-LM's
 * --grad-reduce-in-bf16, the Bridge's ddp.grad_reduce_in_fp32 = false
 * with a note on the precision recipe's field; torchtitan refuses
 * (mixed_precision_reduce: Literal["float32"]); fp32 by default; an fp16
 * job's gradients are 16-bit already and get no flag. */
Test(export, grad_reduce_16bit)
{
    struct pred_ctx c = ctx_of("llama3-70b");
    struct plan p = make_plan(8, 4, 8, 1);
    p.zero = 1;
    assert_lacks(export_text(RES_FW_MEGATRON, &c, &p), "--grad-reduce-in-bf16");
    assert_lacks(export_text(RES_FW_NEMO, &c, &p), "grad_reduce_in_fp32");
    c.job.grad_reduce_16bit = true;
    assert_has(export_text(RES_FW_MEGATRON, &c, &p), "\n--grad-reduce-in-bf16 \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p), "\n  grad_reduce_in_fp32: false\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "mixed_precision.grad_reduce_in_fp32=false");
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "torchtitan reduces "
               "gradients in fp32 only");
    c.job.precision = JOB_PREC_FP16;
    assert_lacks(export_text(RES_FW_MEGATRON, &c, &p), "--grad-reduce-in-bf16");
    assert_lacks(export_text(RES_FW_NEMO, &c, &p), "grad_reduce_in_fp32");
}

/* What each framework cannot run, with the reason. */
Test(export, refusals)
{
    struct pred_ctx mix = ctx_of("mixtral-8x7b");
    struct pred_ctx ds = ctx_of("deepseek-v3");
    struct pred_ctx oss = ctx_of("gpt-oss-120b");
    struct plan p = moe_plan(2, 1, 8, 8, 1);
    assert_has(refused(RES_FW_TORCHTITAN, &mix, &p), "torchtitan has no model "
               "with the shapes of mixtral-8x7b");
    ds.model.moe.router = MODEL_ROUTER_SOFTMAX;  /* bias needs sigmoid */
    assert_has(refused(RES_FW_MEGATRON, &ds, &p), "needs the sigmoid router");
    mix.job.moe_dispatch = JOB_MOE_NONE;        /* megatron-lm-2021 */
    assert_has(refused(RES_FW_MEGATRON, &mix, &p), "runs no mixture of experts");
    p.etp = 2;                                  /* expert biases, etp 2 */
    assert_has(refused(RES_FW_NEMO, &oss, &p), "no expert biases with etp > 1");
}

/* torchtitan's expert mesh: etp 1 or tp; with ep 1, etp is tp; ep out of
 * the FSDP ranks (dp_shard x cp x tp / etp). */
Test(export, torchtitan_mesh)
{
    struct pred_ctx c = ctx_of("qwen3-30b-a3b");
    struct plan p = moe_plan(4, 1, 8, 1, 1);
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "ep-mesh-etp: the stack's "
               "expert mesh runs etp 1 or etp = tp (4), and tp when ep is 1 "
               "(ep 1, etp 1)");
    p.ep = 8;
    p.etp = 2;
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "etp 1 or etp = tp (4), "
               "and tp when ep is 1 (ep 8, etp 2)");
    p.etp = 1;                  /* DDP: dp_shard 1, tp 4: ep 8 has no room */
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "ep-mesh-fold: ep*etp (8) "
               "does not divide the FSDP-sharded ranks x cp x tp (1 x 1 x 4)");
    p.zero = 3;                 /* FSDP over 8: 8 x 4 ranks */
    assert_runnable(RES_FW_TORCHTITAN, &c, &p);
    p.ep = 1;                   /* ep 1 with etp = tp: runs */
    p.etp = 4;
    assert_runnable(RES_FW_TORCHTITAN, &c, &p);
}

/* FP8 on a torchtitan MoE: one [model] table, the experts' grouped GEMMs
 * converted too. */
Test(export, torchtitan_fp8_moe)
{
    struct pred_ctx c = ctx_of("qwen3-30b-a3b");
    struct plan p = moe_plan(1, 1, 64, 64, 1);
    c.job.precision = JOB_PREC_FP8;
    p.zero = 3;
    const char *t = export_text(RES_FW_TORCHTITAN, &c, &p);
    assert_has(t, "[model]\nname = \"qwen3\"\nflavor = \"30B-A3B\"\nconverters = "
               "[\"quantize.linear.float8\", \"quantize.grouped_mm.float8\"]\n");
    assert_has(t, "\n[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n");
    cr_assert_null(strstr(strstr(t, "[model]") + 1, "[model]"), "two [model] tables");
}

/* The CUDA graphs the prediction assumed (the stack's cuda_graph_scope):
 * partial scopes through Transformer Engine, the whole iteration through
 * Megatron's local implementation (arguments.py), in Megatron-LM's flags
 * and TransformerConfig's fields; a MoE model's full-iteration graph asks
 * for the static token budget; none captured, nothing written; torchtitan
 * has no such capture. */
Test(export, cuda_graphs)
{
    struct pred_ctx c = ctx_of("qwen3-30b-a3b");
    struct plan p = moe_plan(1, 1, 8, 8, 1);
    c.job.cuda_graphs = JOB_GRAPH_BIT(JOB_GRAPH_ATTN) |
                        JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER) |
                        JOB_GRAPH_BIT(JOB_GRAPH_MOE_PREPROCESS);
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--cuda-graph-impl transformer_engine \\\n"
               "--cuda-graph-scope attn moe_router moe_preprocess \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  cuda_graph_impl: transformer_engine\n"
               "  cuda_graph_scope: [attn, moe_router, moe_preprocess]\n");
    assert_lacks(export_text(RES_FW_MEGATRON, &c, &p), "capacity");
    c.job.cuda_graphs |= JOB_GRAPH_BIT(JOB_GRAPH_FULL);   /* the whole step */
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--cuda-graph-impl local \\\n--cuda-graph-scope full_iteration \\\n");
    assert_has(export_text(RES_FW_NEMO, &c, &p),
               "  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n");
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "# set --moe-expert-rank-capacity-factor: a full-iteration "
               "CUDA graph needs the MoE layers' token counts fixed\n");
    p.zero = 3;
    assert_has(refused(RES_FW_TORCHTITAN, &c, &p), "torchtitan has no "
               "CUDA-graph capture of the training step");
    c.job.cuda_graphs = 0;
    p.zero = 1;
    assert_lacks(export_text(RES_FW_MEGATRON, &c, &p), "cuda-graph");
    assert_lacks(export_text(RES_FW_NEMO, &c, &p), "cuda_graph");
    c = ctx_of("llama3-70b");           /* no MoE layer for them to capture */
    p = make_plan(8, 4, 8, 1);
    c.job.cuda_graphs = JOB_GRAPH_BIT(JOB_GRAPH_MOE_ROUTER);
    assert_lacks(export_text(RES_FW_MEGATRON, &c, &p), "cuda-graph");
    c.job.cuda_graphs |= JOB_GRAPH_BIT(JOB_GRAPH_ATTN);
    assert_has(export_text(RES_FW_MEGATRON, &c, &p),
               "--cuda-graph-impl transformer_engine \\\n--cuda-graph-scope attn \\\n");
}
