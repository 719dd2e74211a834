/* predictor/compose.c: one iteration from one layer's times.
 *
 * Pipeline (Narayanan et al. SC21, sec. 2.2): with m micro-batches per
 * iteration and per-micro-batch stage times t_f, t_b, 1F1B over equal
 * stages takes (m + pp - 1)(t_f + t_b), a bubble fraction (pp - 1)/(m +
 * pp - 1); the interleaved schedule with vpp chunks per rank shrinks the
 * bubble to (pp - 1)/vpp (t_f + t_b) (sec. 2.2.2) at vpp times the point-
 * to-point sends. Stages are rarely equal (the embedding and the LM head
 * and loss on the end ranks, splits that leave a layer over, an MoE
 * model's dense-first layers, MTP), and the slowest one does not pace the
 * fill and drain: pred_pipeline_span takes, over the ranks k with stage
 * times t_k = t_f + t_b, the longest of m t_k + (B_k + D_k) / vpp, B_k the
 * stages before k (the first micro-batch's forward reaches k through
 * them, the last one's backward leaves through them) and D_k =
 * max(0, min(A_k, 2 A_k - min(m - 1, pp - k - 1) t_k)) the round trip
 * through the A_k of the stages after it that k's warm-up forwards and
 * cool-down backwards do not hide (none when the later stages are light,
 * all of it for one micro-batch). Equal stages give Narayanan's form, a
 * heavy last stage m t_last + the others, a heavy first m t_0. Against the
 * schedule itself (the stage order of sec. 2.2.1, every operation waiting
 * for its input; DeepSpeed's TrainSchedule, deepspeed/runtime/pipe/
 * schedule.py, keeps the same dependencies with its blocking sends) it is
 * within 0.75 % on average on random pipelines, where the slowest stage's
 * (m + pp - 1) t_max overstates them by 23 % (tests/unit/test_compose.c).
 * The bubble is that span beyond the slowest stage's m micro-batches. Each send moves one micro-batch's activations, mbs * seq * h in
 * 16-bit (divided by tp with sequence parallelism).
 * Data parallel: gradients (fp32 main_grad) all-reduced, or reduce-scattered
 * then parameters (16-bit) all-gathered with the distributed optimizer;
 * Megatron-LM overlaps the reduce with the backward pass bucket by bucket
 * (--overlap-grad-reduce; buckets of max(40M, 1M * dp) parameters,
 * megatron/core/distributed/distributed_data_parallel.py, or the stack's
 * ddp_bucket_params, --ddp-bucket-size) and the gather with the next forward
 * (--overlap-param-gather), so the exposed time is what outlasts the last
 * micro-batch's backward (forward), and never less than one bucket.
 * With context parallelism (cp.c) every stage works on seq / cp tokens and
 * the gradient group is dp * cp.
 * ZeRO-2 and ZeRO-3 / FSDP gather and reduce per layer: predictor/shard.c.
 * Optimizer: Adam over the GPU's parameter shard is memory-bound: read fp32
 * master, m, v and grad, write master, m, v and the 16-bit weight (30 bytes
 * per parameter) plus 4 for the gradient-norm pass. */
#include "predictor/pred.h"

#include <math.h>
#include <string.h>

static double tp_coll(const struct pred_ctx *c, const struct plan *p,
                      enum pred_coll kind, double bytes)
{
    int64_t k = p->tp < c->k.domain ? p->tp : c->k.domain;
    return pred_coll_s(&c->k, kind, bytes, p->tp, k);
}

/* Embedding lookup on the first stage: gather rows, vocab-parallel
 * all-reduce (reduce-scatter with sp); backward scatter-adds into the fp32
 * gradient of the table. */
static void add_embedding(const struct pred_ctx *c, const struct plan *p,
                          struct pred_stage *s)
{
    double tok = pred_tokens(c, p), h = (double)c->model.hidden;
    double vrows = (double)c->model.vocab / p->tp, table = vrows * h, act = 2.0 * tok * h;
    double comm = p->tp == 1 ? 0 : p->sp
                ? tp_coll(c, p, PRED_COLL_REDUCESCATTER, act)
                : tp_coll(c, p, PRED_COLL_ALLREDUCE, act);
    double back = p->sp ? tp_coll(c, p, PRED_COLL_ALLGATHER, act) : 0;
    /* the system's embedding fit where it has one (kernel.h pred_embed_s:
     * the gather; the backward's feature kernel or sort by the micro-batch's
     * indices into the vocab / tp rows; calibrate fits it on the embedding
     * samples) */
    s->fwd_s += pred_embed_s(&c->k, 0, 2.0 * act, 0, tok, vrows, h) + comm;
    s->bwd_s += pred_embed_s(&c->k, 1, 2.0 * act, 4.0 * table, tok, vrows, h) + back;
    s->comm_s += comm + back;
}

/* Final norm, LM head GEMM and vocab-parallel cross-entropy (Megatron
 * VocabParallelCrossEntropy: fp32 logits, three small all-reduces over tp
 * for max, sum and target logit) on the last stage. The head's GEMMs run
 * in 16 bits whatever the job's precision: Megatron-Core's output layer is
 * its own ColumnParallelLinear (megatron/core/models/gpt/gpt_model.py,
 * LinearCrossEntropyModule; a Transformer Engine layer only with
 * fp8_output_proj under MXFP8, which no recipe here sets), outside
 * fp8_autocast's modules; torchtitan converts every Linear but "output"
 * to float8 (torchtitan/float8.py @ 9dec370, module_filter_fn); DeepSeek-V3
 * keeps "the output head" in BF16 (arXiv:2412.19437 sec. 3.3.1). */
static void add_head(const struct pred_ctx *c, const struct plan *p,
                     struct pred_stage *s)
{
    const struct pred_kernels *k = &c->k;
    double tok = pred_tokens(c, p), h = (double)c->model.hidden;
    double vt = (double)c->model.vocab / p->tp, rows = p->sp ? tok / p->tp : tok;
    double act = 2.0 * tok * h, in = 2.0;
    double small = p->tp > 1 ? 3.0 * tp_coll(c, p, PRED_COLL_ALLREDUCE, 4.0 * tok)
                             : 0;
    double gather = p->tp > 1 && p->sp ? tp_coll(c, p, PRED_COLL_ALLGATHER, act) : 0;
    double back = p->tp == 1 ? 0 : p->sp
                ? tp_coll(c, p, PRED_COLL_REDUCESCATTER, act)
                : tp_coll(c, p, PRED_COLL_ALLREDUCE, act);
    s->fwd_s += pred_norm_s(k, 4.0 * rows * h, 1) + gather +
              pred_gemm_s(k, &k->gemm16, tok, vt, h, in) +
              pred_memop_size_s(k, HW_MEMOP_XENT, 0, 10.0 * tok * vt, 1, 3) + small;
    s->bwd_s += pred_memop_size_s(k, HW_MEMOP_XENT, 1, 6.0 * tok * vt, 1, 1) +
              pred_gemm_s(k, &k->gemm16_bwd, tok, h, vt, in) +
              pred_gemm_s(k, &k->gemm16_bwd, h, vt, tok, in) +
              pred_norm_s(k, 10.0 * rows * h, 2) + back;
    s->comm_s += small + gather + back;
}

/* s += n e */
static void add_stage_n(struct pred_stage *s, const struct pred_stage *e,
                        double n)
{
    s->fwd_s += n * e->fwd_s;
    s->bwd_s += n * e->bwd_s;
    s->comm_s += n * e->comm_s;
    s->cp_comm_s += n * e->cp_comm_s;
    s->ep_comm_s += n * e->ep_comm_s;
    s->recompute_s += n * e->recompute_s;
}

/* n layers of one kind: their times, and the recompute of rc of them in
 * the backward (rc = n but under Megatron's block method). */
static void add_layers(struct pred_stage *s, const struct pred_layer *l,
                       double n, double rc)
{
    if (n <= 0)
        return;
    s->fwd_s += n * l->fwd_total_s;
    if (rc == n) {              /* every layer: the sums as they always were */
        s->bwd_s += n * (l->bwd_total_s + l->recompute_s);
        s->comm_s += n * (pred_layer_part_s(l, PRED_PART_TP_COMM) +
                          l->recompute_comm_s);
    } else {
        s->bwd_s += n * l->bwd_total_s + rc * l->recompute_s;
        s->comm_s += n * pred_layer_part_s(l, PRED_PART_TP_COMM) +
                     rc * l->recompute_comm_s;
    }
    s->cp_comm_s += n * pred_layer_part_s(l, PRED_PART_CP_COMM);
    s->ep_comm_s += n * pred_layer_part_s(l, PRED_PART_EP_COMM);
    s->recompute_s += rc * (l->recompute_s - l->recompute_comm_s);
}

/* Layers of rank 'rank' whose forward runs again: with full recompute and
 * rc_layers N, Megatron's block method rebuilds only the first N of each
 * model chunk (transformer_block.py _checkpointed_forward; memory:
 * mem.c stage_act), one forward each, in the backward; all n otherwise. */
static double rc_rank_layers(const struct plan *p,
                             const struct stage_layout *lay, int64_t rank)
{
    if (p->recompute != PLAN_RECOMPUTE_FULL || p->rc_layers <= 0)
        return stage_rank_layers(lay, rank);
    return stage_rank_first_layers(lay, rank, p->rc_layers);
}

/* The typical layer (MoE in an MoE model) and an MoE model's dense ones. */
static void stage_time(const struct pred_ctx *c, const struct plan *p,
                       const struct pred_memo *memo,
                       const struct stage_layout *lay, int64_t rank,
                       struct pred_stage *s)
{
    double n = stage_rank_layers(lay, rank), rc = rc_rank_layers(p, lay, rank);
    double typical = model_is_moe(&c->model)
                   ? pred_stage_moe_layers(&c->model, lay, rank) : n;
    double rc_typical = n > 0 ? rc * typical / n : 0;  /* kinds pro rata */
    memset(s, 0, sizeof *s);
    add_layers(s, &memo->layer, typical, rc_typical);
    add_layers(s, &memo->dense, n - typical, rc - rc_typical);
    if (rank == 0)
        add_stage_n(s, &memo->embed, 1.0);
    if (rank == p->pp - 1)
        add_stage_n(s, &memo->head, 1.0);
}

/* DeepSeek-V3's multi-token prediction on the last stage (Megatron-Core
 * places the MTP block after the decoder, multi_token_prediction.py;
 * arXiv 2412.19437 sec. 2.2): per MTP layer a projection of [norm(h);
 * norm(emb)] 2h -> h, one more transformer layer and its own output head
 * and loss. */
static void add_mtp(const struct pred_ctx *c, const struct plan *p,
                    struct pred_memo *o)
{
    const struct pred_kernels *k = &c->k;
    struct pred_stage one = { 0 };
    double n = (double)c->model.mtp_layers, h = (double)c->model.hidden;
    double tok = pred_tokens(c, p), in = c->job.precision == JOB_PREC_FP8
                                       ? 1.0 : 2.0, proj;
    if (n <= 0)
        return;
    add_layers(&one, &o->layer, 1.0, 1.0);
    add_head(c, p, &one);
    proj = pred_gemm_s(k, &k->gemm, tok, h / p->tp, 2.0 * h, in);
    one.fwd_s += proj;
    one.bwd_s += 2.0 * proj;
    add_stage_n(&o->head, &one, n);
}

void pred_memo_build(const struct pred_ctx *c, const struct plan *p,
                     struct pred_memo *out)
{
    const struct model *m = &c->model;
    memset(out, 0, sizeof *out);
    pred_layer_time(c, p, &out->layer);
    if (model_is_moe(m) && (m->moe.dense_first > 0 || m->moe.layer_freq > 1))
        pred_layer_time_kind(c, p, false, &out->dense);
    add_embedding(c, p, &out->embed);
    add_head(c, p, &out->head);
    add_mtp(c, p, out);
}

/* The fullest stage's layer time under the block method, at most what
 * stage_time gives it: its n layers at the cheaper kind's forward and
 * backward, and at least vpp min(N, floor(n / vpp)) of them recomputed
 * (each of its chunks holds floor(n / vpp) layers or one more). */
static double block_bound(const struct plan *p, const struct pred_layer *l,
                          const struct pred_layer *d, double n)
{
    double fb = l->fwd_total_s + l->bwd_total_s, rc = l->recompute_s;
    double chunk = floor(n / p->vpp);
    if (d->fwd_total_s > 0) {
        fb = fmin(fb, d->fwd_total_s + d->bwd_total_s);
        rc = fmin(rc, d->recompute_s);
    }
    return n * fb + p->vpp * fmin(p->rc_layers, chunk) * rc;
}

/* The span is at least m t_k + B_k / vpp for any rank k (pred_pipeline_
 * span: the first micro-batch's forward and the last one's backward cross
 * one chunk of every earlier rank, a chunk of at least floor(n / vpp)
 * layers): here the last rank of the most layers, its layers at the cheaper
 * kind's time and the ranks before it at a whole chunk each. */
double pred_time_bound(const struct pred_ctx *c, const struct plan *p,
                       const struct pred_memo *memo)
{
    const struct pred_layer *l = &memo->layer, *d = &memo->dense;
    double m = (double)(c->job.gbs / ((int64_t)p->dp * p->mbs));
    double per = l->fwd_total_s + l->bwd_total_s + l->recompute_s;
    double fb = l->fwd_total_s + l->bwd_total_s, fill = 0, steady;
    struct stage_layout s;
    int32_t n;
    int64_t last = 0;
    pred_layout(c, p, &s);
    n = stage_max_layers(&s);
    if (d->fwd_total_s > 0) {   /* an MoE model's dense layers */
        per = fmin(per, d->fwd_total_s + d->bwd_total_s + d->recompute_s);
        fb = fmin(fb, d->fwd_total_s + d->bwd_total_s);
    }
    for (int64_t r = 0; r < p->pp; r++)
        last = stage_rank_layers(&s, r) == n ? r : last;
    for (int64_t k = 0; k < last; k++)
        fill += (double)(stage_rank_layers(&s, k) / p->vpp);
    steady = p->recompute == PLAN_RECOMPUTE_FULL && p->rc_layers > 0
           ? block_bound(p, l, d, n) : n * per;
    return fmax(m, 1.0) * steady + fill * fb;
}

/* ---- data parallel and optimizer ---- */


/* The stage's parameters as data parallelism sees them: the dense ones
 * over the dp group, an MoE model's routed experts over the expert-data-
 * parallel group (pred_expert_plan). */
struct dp_params { double dense, experts; };

/* Gradient reduce and parameter gather of both groups. */
/* The plan whose dp reduction the dense gradients take: a stack that
 * all-reduces the fp32 gradients of a bf16 ZeRO-1 job (the job's
 * bf16_grad_allreduce: DeepSpeed's engine hands the BF16_Optimizer's
 * gradients to buffered_allreduce_fallback, deepspeed/runtime/engine.py
 * allreduce_gradients, "currently for BF16 optimizer"; each rank then steps
 * its shard and all-gathers the bf16 parameters, bf16_optimizer.py
 * update_lp_params) reduces as ZeRO-0 does, the gather kept. */
static const struct plan *reduce_plan(const struct pred_ctx *c,
                                      const struct plan *p, struct plan *q)
{
    if (p->zero != 1 || !c->job.bf16_grad_allreduce ||
        c->job.precision != JOB_PREC_BF16)
        return p;
    *q = *p;
    q->zero = 0;
    return q;
}

/* Whether the job's distributed optimizer gathers FP8 weights. */
static bool fp8_gather(const struct pred_ctx *c)
{
    return c->job.fp8_param_gather && c->job.precision == JOB_PREC_FP8;
}

/* Bytes the distributed optimizer all-gathers for the stage's w dense
 * parameters: 2 a parameter, but 1 for the layers' GEMM weights of an FP8
 * job with FP8 primary weights (the job's fp8_param_gather: Megatron-Core
 * --fp8-param-gather, megatron/core/distributed/param_and_grad_buffer.py
 * gathers the Float8Tensor's 1-byte data; NeMo and Megatron-Bridge FP8
 * recipes set it, nemo/collections/llm/recipes/precision/
 * mixed_precision.py bf16_with_fp8_mixed: fp8_param_gather = True; NVIDIA's
 * MLPerf GPT-3 from v4.0, config_common.sh FP8_PARAMS=True). The word
 * embedding and the output layer (Megatron's own tensor-parallel layers,
 * not Transformer Engine's) and the norms stay 16-bit, as predictor/mem.c
 * counts them; GEMM biases go with their weights (under 0.1 %). The
 * fullest stage's layers, as ZeRO-3 counts its units (shard_layer). */
static double gather_bytes(const struct pred_ctx *c, const struct plan *p,
                           double dense)
{
    const struct model *m = &c->model;
    struct stage_layout lay;
    double h = (double)m->hidden, norms, fp8;
    if (!fp8_gather(c))
        return 2.0 * dense;
    pred_layout(c, p, &lay);
    norms = (m->norm == MODEL_NORM_LAYERNORM ? 4.0 : 2.0) * h;
    fp8 = (double)stage_max_layers(&lay) *
          (pred_layer_params_kind(m, p, model_is_moe(m)) - norms);
    return 2.0 * dense - fmin(dense, fmax(0.0, fp8));
}

double pred_dp_bucket_params(const struct pred_ctx *c, const struct plan *p)
{
    if (c->job.ddp_bucket_params > 0)
        return c->job.ddp_bucket_params;
    return fmax(4e7, 1e6 * (double)pred_grad_ranks(p));
}

static void dp_colls(const struct pred_ctx *c, const struct plan *p,
                     struct dp_params w, double *grad, double *gather)
{
    struct plan q;
    double gb = pred_grad_reduce_bytes(c);
    *grad = pred_grad_ranks(p) > 1
          ? pred_dp_reduce_s(c, reduce_plan(c, p, &q), gb * w.dense) : 0;
    *gather = p->zero && pred_grad_ranks(p) > 1
            ? pred_dp_gather_s(c, p, gather_bytes(c, p, w.dense)) : 0;
    if (w.experts <= 0)
        return;
    pred_expert_plan(p, &q);
    if (q.dp <= 1)
        return;
    *grad += pred_dp_reduce_s(c, &q, gb * w.experts);
    if (p->zero)    /* the experts' weights are all GEMM weights */
        *gather += pred_dp_gather_s(c, &q, (fp8_gather(c) ? 1.0 : 2.0) *
                                           w.experts);
}

/* Gradient reduce (and, with the distributed optimizer, parameter gather)
 * over the dp group, less what overlaps the backward (forward); the last
 * bucket's share stays exposed. Each bucket is priced as its share of one
 * collective over all the bytes: Megatron-Core launches a collective per
 * bucket (param_and_grad_buffer.py start_grad_sync), whose own latency
 * this leaves out; charged per bucket it moved mlperf_gpt3 3.75 -> 3.01 %
 * but nemo2502 (uncalibrated B200) 12.08 -> 12.78 % and the pooled
 * held-out figure 10.66 -> 10.79 %, so it is not in (README, "Use", on
 * the data-parallel overlap). */
static double dp_sync_exposed(const struct pred_ctx *c, const struct plan *p,
                              const struct pred_stage *s, struct dp_params w)
{
    double bucket = pred_dp_bucket_params(c, p);
    double frac = fmin(1.0, bucket / (w.dense + w.experts));
    double grad, gather, exposed;
    if (p->zero >= 2)           /* ZeRO-2/3: shard.c */
        return 0;
    dp_colls(c, p, w, &grad, &gather);
    if (grad <= 0 && gather <= 0)
        return 0;
    exposed = pred_overlap_grad(c, p)
            ? fmax(grad - s->bwd_s, grad * frac) : grad;
    exposed += pred_overlap_param(c, p)
             ? fmax(gather - s->fwd_s, gather * frac) : gather;
    return exposed;
}

/* Tied embeddings: first and last stage all-reduce the table's gradient. */
static double tied_embed_sync(const struct pred_ctx *c, const struct plan *p)
{
    int inside = plan_gpus(p) <= c->k.domain;
    if (!c->model.tied_embeddings || p->pp <= 1)
        return 0;
    return pred_coll_s(&c->k, PRED_COLL_ALLREDUCE,
                       4.0 * (double)c->model.vocab * c->model.hidden / p->tp,
                       2, inside ? 2 : 1);
}

/* The slowest stage's layers as ZeRO-2/3 sees them (predictor/shard.c). */
static void shard_layer(const struct pred_ctx *c, const struct plan *p,
                        const struct pred_memo *memo, double params,
                        struct pred_shard_layer *o)
{
    const struct pred_layer *l = &memo->layer;
    struct stage_layout lay;
    pred_layout(c, p, &lay);
    o->n = stage_max_layers(&lay);      /* the fullest stage's units */
    o->fwd_s = l->fwd_total_s;
    o->bwd_s = l->bwd_total_s + pred_rc_share(c, p) * l->recompute_s;
    o->unit_params = pred_layer_params_kind(&c->model, p,
                                            model_is_moe(&c->model));
    o->ends_params = fmax(0.0, params - o->n * o->unit_params);
}

static double dp_exposed(const struct pred_ctx *c, const struct plan *p,
                         const struct pred_memo *memo,
                         const struct pred_stage *s, struct dp_params w,
                         double m)
{
    struct pred_shard_layer sl, se;
    struct plan q;
    double t;
    shard_layer(c, p, memo, w.dense, &sl);
    t = dp_sync_exposed(c, p, s, w) + tied_embed_sync(c, p) +
        pred_shard_exposed(c, p, &sl, m);
    if (w.experts <= 0)
        return t;
    pred_expert_plan(p, &q);        /* the experts' units, over edp */
    se = sl;
    se.unit_params = pred_layer_expert_params(&c->model, p);
    se.ends_params = 0;
    return t + pred_shard_exposed(c, &q, &se, m);
}

/* The optimizer step of the rank's shard of 'local' parameters. With the
 * optimizer offloaded (the plan's offload; Megatron-Core --chunked-
 * optimizer-state-offload, megatron/core/optimizer/cpu_offloading/
 * README.md) the step still runs on the GPU, but its master weights and
 * states (the job's optim_bytes per parameter) come in over the host link
 * and go back out: "H2D for the next chunk, optimizer compute for the
 * current chunk, and D2H for the previous chunk can overlap", each
 * direction on its own copy stream, and "D2H completion does not block
 * the host at the forward boundary". So the step takes the longest of the
 * three, optim_bytes x local over the rate each direction gets, or the
 * GPU's own step; never less than without offload. The rate: the host
 * link's achievable one (node.host_gbs x efficiency.host), unless the
 * node's host memory (node.host_mem_gbs) is the narrower: every rank steps
 * at once, so the node's GPUs of the plan (at most gpus per node) copy in
 * both directions together through it, 2 n x rate. */
double pred_host_copy_bytes_per_s(const struct pred_ctx *c, const struct plan *p)
{
    return hw_host_copy_bytes_per_s(&c->hw, c->k.host_bytes_per_s, plan_gpus(p));
}

double pred_optimizer_step_s(const struct pred_ctx *c, const struct plan *p,
                             double local)
{
    /* the stack's bytes a parameter (job.h JOB_STEP_BYTES: mixed-precision
     * Adam, 34), at the system's optimizer-step fit where it has one (no
     * preset does) */
    double gpu = pred_memop_size_s(&c->k, HW_MEMOP_OPTIM, 0,
                                   c->job.step_bytes * local, 1, 8);
    if (!p->offload || c->k.host_bytes_per_s <= 0)  /* rule offload-host
                                                       refuses the plan: its
                                                       time stays printable */
        return gpu;
    return fmax(gpu, c->job.optim_bytes * local / pred_host_copy_bytes_per_s(c, p));
}

static double optimizer_time(const struct pred_ctx *c, const struct plan *p,
                             struct dp_params w)
{
    struct plan q;
    double local = w.dense / (p->zero ? (double)pred_shard_degree(p) : 1.0);
    pred_expert_plan(p, &q);
    local += w.experts / (p->zero ? (double)pred_shard_degree(&q) : 1.0);
    return pred_optimizer_step_s(c, p, local);
}

/* ---- gradient accumulation outside the GEMM ---- */

/* Per micro-batch, the stage's weight gradients are added into an
 * accumulator by a separate memory-bound kernel per tensor where the stack
 * does not fuse the addition into the weight-gradient GEMM (the stack's
 * grad_accum_bytes per parameter; each stack file cites its value):
 * PyTorch's AccumulateGrad adds a micro-batch's 16-bit gradient into
 * param.grad (read 2 + 2, write 2 bytes; nothing to add on the first
 * micro-batch), Megatron-LM's 2021 DDP hook adds it into the fp32 main_grad
 * (megatron/model/distributed.py _make_param_hook: main_grad.add_(grad)),
 * DeepSpeed's BF16_Optimizer casts each micro-batch's bf16 gradient to
 * fp32 and adds it into its fp32 copy (deepspeed/runtime/bf16_optimizer.py
 * update_hp_grads, on every micro-batch). Megatron-Core accumulates inside
 * the GEMM (--gradient-accumulation-fusion: 0). One kernel per tensor: the
 * layer's 4 weight matrices and 2 norms, and their biases. ZeRO-2/3 reduce
 * each micro-batch's gradients instead (predictor/shard.c): not here. The
 * time per micro-batch, averaged over the m micro-batches. */
static double grad_accum_s(const struct pred_ctx *c, const struct plan *p,
                           double params, double layers, double m)
{
    bool bf16 = c->job.precision == JOB_PREC_BF16 &&
                c->job.grad_accum_bf16_bytes > 0;
    double bytes = bf16 ? c->job.grad_accum_bf16_bytes : c->job.grad_accum_bytes;
    double adds = bf16 ? 1.0 : (m - 1.0) / m;   /* autograd: m - 1 adds */
    double tensors = 6.0 * (c->model.bias ? 2.0 : 1.0);
    if (bytes <= 0 || p->zero >= 2 || adds <= 0)
        return 0;
    return adds * pred_mem_s(&c->k, bytes * params, fmax(1.0, tensors * layers));
}

/* ---- composition ---- */

/* Rank 'rank''s stage, one micro-batch: its layers and ends, and its
 * backward's gradient accumulation over m micro-batches; *params gets its
 * dense and expert parameters. */
static void rank_time(const struct pred_ctx *c, const struct plan *p,
                      const struct pred_memo *memo,
                      const struct stage_layout *lay, int64_t rank, double m,
                      struct pred_stage *s, struct dp_params *params)
{
    params->dense = pred_stage_params(&c->model, p, lay, rank);
    params->experts = pred_stage_expert_params(&c->model, p, lay, rank);
    stage_time(c, p, memo, lay, rank, s);
    s->bwd_s += grad_accum_s(c, p, params->dense + params->experts,
                             stage_rank_layers(lay, rank), m);
}

/* The slowest stage paces 1F1B: of the end stages (embedding, head and
 * loss) and the heaviest middle one (stage_worst_ranks), the first of the
 * slowest; *w gets the most dense and expert parameters any of them holds
 * (the DP reduction and the optimizer step of that stage). Each stage's backward
 * carries its gradient accumulation (grad_accum_s) over m micro-batches. */
static void slowest_stage(const struct pred_ctx *c, const struct plan *p,
                          const struct pred_memo *memo, double m,
                          struct pred_stage *slow, struct dp_params *w)
{
    struct stage_layout lay;
    struct pred_stage s;
    int64_t ranks[3];
    int n;
    pred_layout(c, p, &lay);
    n = stage_worst_ranks(&lay, ranks);
    w->dense = w->experts = 0;
    for (int i = 0; i < n; i++) {
        struct dp_params q;
        rank_time(c, p, memo, &lay, ranks[i], m, &s, &q);
        if (i == 0 || s.fwd_s + s.bwd_s > slow->fwd_s + slow->bwd_s)
            *slow = s;
        w->dense = fmax(w->dense, q.dense);
        w->experts = fmax(w->experts, q.experts);
    }
}

/* Point-to-point sends of activations forward and gradients backward,
 * vpp times as many with the interleaved schedule (sec. 2.2.2). */
static double pp_p2p_time(const struct pred_ctx *c, const struct plan *p,
                          double m)
{
    double bytes = 2.0 * pred_tokens(c, p) *
                   (double)c->model.hidden / (p->sp ? p->tp : 1);
    int inter = plan_gpus(p) > c->k.domain;
    if (p->pp <= 1)
        return 0;
    return 2.0 * (m * p->vpp + (double)(p->pp - 1)) *
           pred_p2p_s(&c->k, bytes, inter);
}

double pred_pipeline_span(int64_t pp, double m, int32_t vpp,
                          double (*stage_s)(void *arg, int64_t rank),
                          void *arg)
{
    double total = 0, before = 0, span = 0;
    for (int64_t r = 0; r < pp; r++)
        total += stage_s(arg, r);
    for (int64_t k = 0; k < pp; k++) {
        double t = stage_s(arg, k), after = total - before - t;
        double hidden = fmin(m - 1.0, (double)(pp - k - 1)) * t;
        double down = fmax(0.0, fmin(after, 2.0 * after - hidden));
        span = fmax(span, m * t + (before + down) / vpp);
        before += t;
    }
    return span;
}

struct span_arg {
    const struct pred_ctx *c;
    const struct plan *p;
    const struct pred_memo *memo;
    const struct stage_layout *lay;
    double m;
    double end_t[2];                    /* ranks 0 and pp - 1; < 0 unknown */
    double last_n, last_moe, last_t;    /* the last middle rank's */
};

/* Each rank's time, asked twice (pred_pipeline_span's two passes): the end
 * ranks' kept, and a middle rank's, which depends only on its layer
 * counts, kept for the next of the same (most middle ranks are). */
static double span_stage_s(void *arg, int64_t rank)
{
    struct span_arg *a = arg;
    struct pred_stage s;
    struct dp_params q;
    int end = rank == 0 ? 0 : rank == a->p->pp - 1 ? 1 : -1;
    double n = stage_rank_layers(a->lay, rank);
    double moe = pred_stage_moe_layers(&a->c->model, a->lay, rank);
    if (end >= 0 && a->end_t[end] >= 0)
        return a->end_t[end];
    if (end < 0 && n == a->last_n && moe == a->last_moe)
        return a->last_t;
    rank_time(a->c, a->p, a->memo, a->lay, rank, a->m, &s, &q);
    if (end >= 0)
        a->end_t[end] = s.fwd_s + s.bwd_s;
    else {
        a->last_n = n;
        a->last_moe = moe;
        a->last_t = s.fwd_s + s.bwd_s;
    }
    return s.fwd_s + s.bwd_s;
}

/* The pipeline's bubble: its span (pred_pipeline_span over every rank's
 * stage) beyond the slowest stage's m micro-batches. */
static double pipeline_bubble(const struct pred_ctx *c, const struct plan *p,
                              const struct pred_memo *memo,
                              const struct pred_stage *slow, double m)
{
    struct stage_layout lay;
    struct span_arg a = { c, p, memo, &lay, m, { -1, -1 }, -1, -1, 0 };
    if (p->pp <= 1)
        return 0;
    pred_layout(c, p, &lay);
    return fmax(0.0, pred_pipeline_span(p->pp, m, p->vpp, span_stage_s, &a) -
                         m * (slow->fwd_s + slow->bwd_s));
}

/* The pipeline's parts: m micro-batches of the slowest stage split into
 * compute, recompute and tp communication, the bubble, the sends. */
static void pipeline_parts(const struct pred_ctx *c, const struct plan *p,
                           const struct pred_memo *memo,
                           const struct pred_stage *slow, double m,
                           double *part_s)
{
    part_s[PRED_PART_TP_COMM] = m * slow->comm_s;
    part_s[PRED_PART_CP_COMM] = m * slow->cp_comm_s;
    part_s[PRED_PART_EP_COMM] = m * slow->ep_comm_s;
    part_s[PRED_PART_RECOMPUTE] = m * slow->recompute_s;
    part_s[PRED_PART_COMPUTE] = m * (slow->fwd_s + slow->bwd_s - slow->comm_s -
                                     slow->cp_comm_s - slow->ep_comm_s -
                                     slow->recompute_s);
    part_s[PRED_PART_PP_BUBBLE] = pipeline_bubble(c, p, memo, slow, m);
    part_s[PRED_PART_PP_P2P] = pp_p2p_time(c, p, m);
}

/* Throughput and utilisations of a composed iteration. */
static void rates(const struct pred_ctx *c, const struct plan *p,
                  struct pred_result *o)
{
    double gpus = (double)plan_gpus(p);
    o->iteration_s = 0;
    for (int i = 0; i < PRED_PART_COUNT; i++)
        o->iteration_s += o->part_s[i];
    o->model_flops = c->model_flops;
    o->hw_flops = c->hw_flops[p->recompute];
    if (p->recompute == PLAN_RECOMPUTE_FULL && p->rc_layers > 0)
        o->hw_flops = c->hw_flops[PLAN_RECOMPUTE_NONE] + pred_rc_share(c, p) *
                      (o->hw_flops - c->hw_flops[PLAN_RECOMPUTE_NONE]);
    o->tokens_per_s = (double)c->job.gbs * (double)c->job.seq / o->iteration_s;
    o->mfu = o->model_flops / (o->iteration_s * gpus * c->peak_flops);
    o->hfu = o->hw_flops / (o->iteration_s * gpus * c->peak_flops);
    o->band_outside = pred_band_outside(&c->band, gpus, c->params, c->hw.gpu_arch,
                                        NULL, 0);
    pred_band_apply(o->band_outside && c->band.region.gpus_hi > 0
                        ? pred_band_widen(c->band) : c->band,
                    o->iteration_s, &o->iteration_s_low, &o->iteration_s_high);
}

void pred_compose(const struct pred_ctx *c, const struct plan *p,
                  const struct pred_memo *memo, struct pred_result *o)
{
    struct pred_stage slow_stage = { 0 };
    const struct pred_stage *slow = &slow_stage;
    int64_t mb = plan_microbatches(p, &c->job);
    struct dp_params params;
    mb = mb < 1 ? 1 : mb;
    slowest_stage(c, p, memo, (double)mb, &slow_stage, &params);
    o->microbatches = mb;
    o->stage_fwd_s = slow->fwd_s;
    o->stage_bwd_s = slow->bwd_s;
    pipeline_parts(c, p, memo, slow, (double)mb, o->part_s);
    o->part_s[PRED_PART_DP_EXPOSED] = dp_exposed(c, p, memo, slow, params,
                                                 (double)mb);
    o->part_s[PRED_PART_OPTIMIZER] = optimizer_time(c, p, params);
    rates(c, p, o);
}

void pred_plan(const struct pred_ctx *c, const struct plan *p,
               struct pred_result *out)
{
    struct pred_memo memo;
    memset(out, 0, sizeof *out);
    out->rule = plan_check(p, &c->model, &c->job, &c->limits);
    if (out->rule == PLAN_RULE_DEGREE)
        return;
    pred_memo_build(c, p, &memo);
    out->layer = memo.layer;
    pred_compose(c, p, &memo, out);
    pred_memory(c, p, &out->mem);
}
