/* predictor/shard.c: data-parallel sharding, ZeRO stages 0-3 and FSDP:
 * what a GPU keeps of the model states, and the parameter all-gathers and
 * gradient reduce-scatters of ZeRO-2/3 that the compute does not hide.
 *
 * Memory (Rajbhandari et al., "ZeRO", SC20, sec. 5 and Table 1: stage 1
 * shards the optimizer states, stage 2 the gradients too, stage 3 the
 * parameters too; bytes per parameter as predictor/mem.c counts them:
 * 2 weights, 4 gradients (fp32 main_grad, FSDP2's fp32 sharded gradient
 * with torchtitan's mixed_precision_reduce = "float32"), 12 optimizer):
 *   zero 0:  2P + 4P + 12P          zero 2:  2P + 4P/d + 12P/d
 *   zero 1:  2P + 4P + 12P/d        zero 3:  2P/d + 4P/d + 12P/d + units
 * where d is the sharding degree: dp, or with hybrid sharding (HSDP, the
 * plan's replicas r) dp / r. A ZeRO-3 / FSDP GPU also holds the
 * gathered 16-bit parameters of the unit (one transformer layer: FSDP2's
 * fully_shard per TransformerBlock, torchtitan parallelize_llama.py) it
 * computes and of the one it prefetches, 2 x 2U, and the unsharded
 * gradient of the unit whose reduce-scatter is in flight, 4U.
 * When parameters stay gathered between forward and backward (FSDP2
 * reshard_after_forward=False: the stack's fsdp_reshard "never", or
 * torchtitan's "default" under a pipeline, torchtitan/distributed/
 * parallelize: fsdp_reshard_after_forward), every layer of the stage is
 * gathered at the peak: 2P. Under a pipeline, torch.distributed.pipelining
 * (stage.py, backward_maybe_with_nosync) also turns gradient sync off
 * until the last micro-batch's backward, so the unsharded gradients
 * accumulate, and FSDP2 keeps them in its reduce dtype (torch/distributed/
 * fsdp/_fully_shard/_fsdp_param.py to_accumulated_grad_if_needed:
 * unsharded_grad.to(reduce_dtype)), fp32 in torchtitan (mixed_precision_
 * reduce = "float32") and NeMo AutoModel (MixedPrecisionPolicy reduce_dtype
 * float32, nemo_automodel/components/moe/parallelizer.py apply_fsdp): 4P
 * more.
 * The gradient and the optimizer states take the job's bytes per
 * parameter (the stack's grad_bytes, grad_fp16_bytes for fp16 jobs, and
 * optimizer_bytes; 4 and 12 above).
 * With the optimizer offloaded (the plan's offload: Megatron-Core
 * --chunked-optimizer-state-offload, megatron/core/optimizer/
 * cpu_offloading/README.md: master weights and states in pinned host
 * memory between updates, restored for the step, "All selected master
 * weights use one full restore window" and the states a chunk at a time
 * in "two reusable GPU state windows") the forward and backward run
 * without them: 0 on the GPU at that peak. The step restores the fp32
 * master weights of the rank's shard, 4P/d (restore_bytes; offload runs
 * with zero 1 only, rule offload-zero, so d is the optimizer's sharding),
 * and holds two state windows (pred_offload_window_bytes: the chunk,
 * pred.h PRED_OFFLOAD_CHUNK_MB, or where larger one parameter's states,
 * "a single parameter's atomic tensor-state payload can exceed the
 * target"), after the activations are freed: predictor/mem.c takes the
 * larger of the two peaks. The dense and expert masters are counted
 * restored together (Megatron steps their optimizers one after the
 * other: an upper bound).
 * DeepSpeed's ZeRO-3 (the stack's zero3_gather "parameter") does not hold
 * whole units: its coordinator fetches each module's parameters and
 * releases them once more than stage3_max_live_parameters (1e9 elements,
 * deepspeed/runtime/zero/config.py; partitioned_param_coordinator.py
 * fetch_sub_module / release_sub_module) are resident, so the gathered
 * 16-bit working set is 2 max(1e9, T) bytes, T the largest tensor (the
 * module in use must be whole: the QKV or first MLP weight, or the word
 * embedding), and the gradients wait for their reduce-scatter in a bucket
 * of reduce_bucket_size (5e8 elements, same file) in the 16-bit gradient
 * dtype, 2 max(5e8, T) bytes; neither beyond the stage's 2P.
 * A group of one rank (d = 1) shards nothing and FSDP2 does not manage its
 * parameters (NeMo AutoModel leaves experts whose ep_shard group is 1 out
 * of FSDP, moe/parallelizer.py apply_fsdp ignored_params): the model
 * states whole, no unit buffers, no no-sync accumulator.
 *
 * Time, per pipeline stage of n layers over m micro-batches: each layer's
 * all-gather (16-bit parameters, 2U bytes) and reduce-scatter (fp32
 * gradients, 4U bytes) over the d ranks, hierarchical over NVLink domains
 * as the dp group spans them (predictor/kernel.c). FSDP prefetches the next
 * unit's all-gather while the current unit computes (FSDP2 implicit
 * forward/backward prefetch; Megatron --overlap-param-gather) and reduce-
 * scatters a unit's gradients while the previous one runs its backward
 * (--overlap-grad-reduce), so per pass the first unit's communication is
 * exposed and every other unit exposes only what outlasts one layer's
 * compute: c + (n - 1) max(0, c - t). A communication not overlapped is
 * exposed whole, n c. The embedding and LM head (the root unit in
 * torchtitan) are gathered before the first layer and reduced after the
 * last: exposed. How often a pass happens:
 *   zero 2, and zero 3 kept gathered: parameters gathered once per step
 *     (after the optimizer, for the next forward); gradients reduced every
 *     micro-batch, or once with the pipeline's no-sync (above);
 *   zero 3 resharded: gathered in every micro-batch's forward and again in
 *     its backward, gradients reduced every micro-batch.
 * Per-micro-batch exposure stretches the stage, so the pipeline bubble
 * carries it too: (m + (pp - 1)/vpp) times.
 * Interference: a unit's communication that overlaps compute takes SMs
 * and memory bandwidth from it, as with TP overlap (predictor/tpo.c
 * pred_overlap, Calculon's processor_usage: 0.15 of the GPU while NVLink
 * collectives run, on the NICs' tier too: tpo.c), so the overlapped compute
 * lasts min(c, t) u / (1 - u) longer and only the rest of c beyond that
 * is exposed: per unit after the first, extra + max(0, c - t - extra).
 * FSDP2 (the stack's fsdp_copy_out) copies each gathered unit out of the
 * all-gather buffer into the parameters' own storage on the compute stream
 * (torch/distributed/_composable/fsdp/_fsdp_collectives.py
 * foreach_all_gather_copy_out: split_with_sizes_copy after waiting for the
 * all-gather), reading and writing its 16-bit parameters, 4U bytes per
 * gather, which nothing hides.
 * DeepSpeed's ZeRO-3 (the stack's zero3_gather "parameter") gathers a
 * module's parameters one tensor at a time: partition_parameters.py
 * _allgather_params_coalesced launches one all-gather per parameter, so a
 * layer's gather is k collectives of 2U / k bytes, k its tensors (QKV,
 * out-proj, fc1, fc2, their biases, the two norms' weights and biases),
 * each paying the collective's latency, which grows with the ring across
 * nodes (kernel.c); and its hooks release a module's parameters after
 * every forward call (partitioned_param_coordinator.py release_sub_module),
 * so with full recompute the rebuilt forward gathers them again before
 * the backward's own gather. Each of those gathers lands in a list of d
 * per-rank views of one flat buffer (partition_parameters.py
 * _allgather_param / _allgather_params: partitions.append(flat_tensor.
 * narrow(0, partition_size * i, partition_size)) for i < world_size, then
 * torch.distributed.all_gather(partitions, ...)); PyTorch's NCCL process
 * group gathers into a flat buffer of its own and copies it out one output
 * tensor at a time (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp
 * allgather: "Copy the flattened output tensors to the outputs", a copy_
 * per tensor), so a gather of k tensors costs k d copy kernels, each at
 * least the system's launch time, and reads and writes the gathered 2U
 * bytes: the copy-out of FSDP2 (above) with k d launches in place of one.
 * Its gradients go the same way back: one reduce-scatter per parameter
 * tensor of the 16-bit param.grad, over a list of d views of it
 * (partition_parameters.py _reduce_scatter_gradient: input_list of
 * param.grad.view(-1).narrow(...) per rank, dist.reduce_scatter(
 * input_list[rank], input_list)), which the process group first copies
 * into a flat buffer one input at a time (ProcessGroupNCCL.cpp
 * reduce_scatter: "Copy the input tensors to the flattened inputs"):
 * k reduce-scatters of 2U / k bytes, k d copy kernels and 2U bytes read
 * and written.
 * Hybrid sharding: the gathers and reduce-scatters run inside a group of
 * d = dp / r contiguous dp ranks (torchtitan's dp_shard mesh dimension,
 * inner to dp_replicate; Megatron's distributed-optimizer instances), and
 * each reduced shard, 1/d of the bytes, is then all-reduced across the r
 * replicas (FSDP2 HSDP; Megatron-FSDP outer_dp_sharding_strategy
 * no_shard), whose ranks sit d tp GPUs apart. */
#include "predictor/pred.h"

#include <math.h>

/* The gradient group, dp * cp ranks (as predictor/cp.c pred_grad_ranks;
 * kept here so that sharding does not depend on cp.c). */
static int64_t grad_ranks(const struct plan *p)
{
    return (int64_t)p->dp * p->cp;
}

/* GPUs of a group of n ranks 'stride' GPUs apart inside one NVLink
 * domain. */
static int64_t per_domain(const struct pred_ctx *c, int64_t stride, int64_t n)
{
    int64_t k = stride >= c->k.domain ? 1 : c->k.domain / stride;
    return k > n ? n : k;
}

int64_t pred_dp_per_domain(const struct pred_ctx *c, const struct plan *p)
{
    return per_domain(c, p->tp, grad_ranks(p));
}

/* With context parallelism the gradient group, and FSDP's shard group,
 * is dp * cp (torchtitan's dp_shard_cp mesh; predictor/cp.c). */
int64_t pred_shard_degree(const struct plan *p)
{
    int64_t n = grad_ranks(p);
    return p->replicas > 1 ? n / p->replicas : n;
}

double pred_dp_reduce_s(const struct pred_ctx *c, const struct plan *p,
                        double bytes)
{
    int64_t d = pred_shard_degree(p), r = grad_ranks(p) / d;
    if (p->zero == 0)
        return pred_coll_s(&c->k, PRED_COLL_ALLREDUCE, bytes,
                           grad_ranks(p), pred_dp_per_domain(c, p));
    return pred_coll_s(&c->k, PRED_COLL_REDUCESCATTER, bytes, d,
                       per_domain(c, p->tp, d)) +
           pred_coll_s(&c->k, PRED_COLL_ALLREDUCE, bytes / (double)d, r,
                       per_domain(c, (int64_t)p->tp * d, r));
}

double pred_dp_gather_s(const struct pred_ctx *c, const struct plan *p,
                        double bytes)
{
    int64_t d = pred_shard_degree(p);
    return pred_coll_s(&c->k, PRED_COLL_ALLGATHER, bytes, d,
                       per_domain(c, p->tp, d));
}

/* Bytes a gradient element takes in the data-parallel reduce: the fp32
 * main_grad (Megatron-LM arguments.py: bf16 "requires gradient
 * accumulation and all-reduce to be done in fp32"; FSDP2's
 * reduce_dtype = float32 in torchtitan), or 16 bits where the job says so
 * (Megatron-Core DistributedDataParallelConfig grad_reduce_in_fp32 =
 * False, which NeMo's performance recipes set:
 * recipe.trainer.plugins.grad_reduce_in_fp32 = False in
 * scripts/performance/llm/pretrain_*.py and the recipes'
 * pretrain_performance_optimizations). */
double pred_grad_reduce_bytes(const struct pred_ctx *c)
{
    return c->job.grad_reduce_16bit ? 2.0 : 4.0;
}

bool pred_overlap_grad(const struct pred_ctx *c, const struct plan *p)
{
    return p->overlap && c->job.overlap_grad_reduce;
}

bool pred_overlap_param(const struct pred_ctx *c, const struct plan *p)
{
    return pred_overlap_grad(c, p) && c->job.overlap_param_gather;
}

bool pred_shard_keeps_params(const struct pred_ctx *c, const struct plan *p)
{
    if (p->zero < 3)
        return p->zero == 2;
    return c->job.fsdp_reshard == JOB_RESHARD_NEVER ||
           (c->job.fsdp_reshard == JOB_RESHARD_DEFAULT && p->pp > 1);
}

/* Gradients held unsharded until the last micro-batch: torch pipelining's
 * no-sync under FSDP (header). */
static bool pipeline_nosync(const struct pred_ctx *c, const struct plan *p)
{
    return p->zero == 3 && p->pp > 1 &&
           c->job.fsdp_reshard == JOB_RESHARD_DEFAULT;
}

/* Bytes per parameter of FSDP2's no-sync gradient accumulator (header). */
#define NOSYNC_GRAD_BYTES 4.0
/* DeepSpeed ZeRO-3's defaults, elements (header). */
#define DS_MAX_LIVE_PARAMS 1e9
#define DS_REDUCE_BUCKET 5e8

/* The largest parameter tensor one GPU holds whole when it is gathered:
 * the fused QKV weight, the first MLP weight (gate and up fused with a
 * GLU) or the vocab-parallel word embedding. */
static double largest_tensor(const struct model *m, const struct plan *p)
{
    double h = (double)m->hidden, t = (double)p->tp;
    double qkv = h * (double)(model_q_dim(m) + 2 * model_kv_dim(m));
    double fc1 = h * (double)m->ffn_hidden * (m->glu ? 2.0 : 1.0);
    return fmax(fmax(qkv, fc1), h * (double)m->vocab) / t;
}

/* An offloaded step's state window (header): the chunk, or one parameter's
 * states where that is larger. Megatron's distributed optimizer shards
 * each bucket of the flat buffer evenly over the d ranks, so a rank steps
 * about 1/d of a parameter (all of it with d = 1, as the experts of an
 * MoE layer on ep ranks without expert data parallelism); the largest:
 * the dense tensors of largest_tensor, or one expert's first MLP weight
 * split over etp, over the expert-data-parallel ranks. */
double pred_offload_window_bytes(const struct pred_ctx *c, const struct plan *p)
{
    const struct model *m = &c->model;
    struct plan q;
    double big = largest_tensor(m, p) / (double)pred_shard_degree(p);
    if (model_is_moe(m)) {
        pred_expert_plan(p, &q);
        big = fmax(big, (double)m->hidden * (double)m->moe.ffn_hidden *
                        (m->glu ? 2.0 : 1.0) / (double)p->etp /
                        (double)pred_shard_degree(&q));
    }
    return fmax(PRED_OFFLOAD_CHUNK_MB * 1024.0 * 1024.0,
                (c->job.optim_bytes - PRED_MASTER_BYTES) * big);
}

/* ZeRO-3's gathered parameters and in-flight gradients beyond the
 * shards, bytes (header): two 16-bit units and one fp32 unit gradient,
 * or DeepSpeed's live-parameter limit and reduce bucket. */
static void zero3_buffers(const struct pred_ctx *c, const struct plan *p,
                          double params, double unit, double *gathered,
                          double *inflight)
{
    double big;
    if (c->job.zero3_gather != JOB_GATHER_PARAMETER) {
        *gathered = *inflight = 4.0 * unit;
        return;
    }
    big = largest_tensor(&c->model, p);
    *gathered = 2.0 * fmin(params, fmax(DS_MAX_LIVE_PARAMS, big));
    *inflight = 2.0 * fmin(params, fmax(DS_REDUCE_BUCKET, big));
}

/* The job's gradient bytes per parameter at its precision (header). With
 * 16-bit gradient reduction (the job's grad_reduce_16bit, Megatron's
 * --grad-reduce-in-bf16 / DistributedDataParallelConfig grad_reduce_in_fp32
 * = False) the data-parallel buffer that holds the gradients is allocated
 * in the parameters' 16-bit dtype, not fp32 (Megatron-LM megatron/core/
 * distributed/param_and_grad_buffer.py group_params_for_buffers: "grad_dtype
 * = torch.float if grad_reduce_in_fp32 else param.dtype", the buffer's
 * dtype=self.grad_dtype; at dev d48bd6be): 2 bytes under DDP and the
 * distributed optimizer (zero 0 / 1). Sharded gradients (zero 2 / 3) keep
 * the stack's bytes. */
static double grad_bytes(const struct job *j, const struct plan *p)
{
    if (j->precision == JOB_PREC_FP16 && j->grad_fp16_bytes > 0)
        return j->grad_fp16_bytes;
    return j->grad_reduce_16bit && p->zero < 2 ? fmin(2.0, j->grad_bytes)
                                               : j->grad_bytes;
}

void pred_shard_mem(const struct pred_ctx *c, const struct plan *p,
                    double params, double unit, struct pred_shard_mem *out)
{
    double d = (double)pred_shard_degree(p), g = grad_bytes(&c->job, p);
    double gathered, inflight;
    bool keep = pred_shard_keeps_params(c, p), one = d <= 1.0;
    zero3_buffers(c, p, params, unit, &gathered, &inflight);
    out->weights_bytes = p->zero < 3 || keep || one
                       ? 2.0 * params : 2.0 * params / d + gathered;
    out->grads_bytes = p->zero < 2 ? g * params : g * params / d;
    if (p->zero == 3 && !one && !pipeline_nosync(c, p))
        out->grads_bytes += inflight;
    if (pipeline_nosync(c, p) && !one)
        out->grads_bytes += NOSYNC_GRAD_BYTES * params;
    out->optimizer_bytes = p->offload ? 0.0
                         : c->job.optim_bytes * params / (p->zero ? d : 1.0);
    out->restore_bytes = p->offload ? PRED_MASTER_BYTES * params / d : 0.0;
}

/* ---- time ---- */

struct shard_coll { double ag_s, rs_s, ends_ag_s, ends_rs_s, copy_s, u;
                    double bwd_gathers; };

/* Parameter tensors of a layer (DeepSpeed's collectives per gather): the
 * four GEMM weights, their biases, the two norms' weights (and biases). */
static double layer_tensors(const struct model *m)
{
    return 4.0 + (m->bias ? 4.0 : 0.0) +
           (m->norm == MODEL_NORM_LAYERNORM ? 4.0 : 2.0);
}

/* One layer's gradient reduce-scatter: one collective of the fp32
 * gradients, or DeepSpeed's one per 16-bit tensor with its copy-in
 * (header). */
static double unit_reduce_s(const struct pred_ctx *c, const struct plan *p,
                            double unit)
{
    double k = layer_tensors(&c->model), d = (double)pred_shard_degree(p);
    if (c->job.zero3_gather == JOB_GATHER_UNIT || p->zero < 3)
        return pred_dp_reduce_s(c, p, pred_grad_reduce_bytes(c) * unit);
    return k * pred_dp_reduce_s(c, p, 2.0 * unit / k) +
           pred_mem_s(&c->k, 4.0 * unit, k * d);
}

/* One layer's parameter all-gather: one collective, or one per tensor. */
static double unit_gather_s(const struct pred_ctx *c, const struct plan *p,
                            double unit)
{
    double k = layer_tensors(&c->model);
    if (c->job.zero3_gather == JOB_GATHER_UNIT)
        return pred_dp_gather_s(c, p, 2.0 * unit);
    return k * pred_dp_gather_s(c, p, 2.0 * unit / k);
}

/* One pass over n units: 'ov' seconds of overlapped communication per
 * unit (the first exposed, the rest beyond 't' of compute slowed by the
 * interference u), 'no' seconds not overlapped. */
static double pass_exposed(double ov, double first, double no, double t,
                           double n, double u)
{
    double extra, exposed;
    pred_overlap(t, ov, u, 1.0, &extra, &exposed);
    return first + (n - 1.0) * (extra + exposed) + n * no;
}

/* The shard group leaves the NVLink domain: the NICs' interference. */
static bool shard_inter(const struct pred_ctx *c, const struct plan *p)
{
    int64_t d = pred_shard_degree(p);
    return per_domain(c, p->tp, d) < d;
}

static void shard_colls(const struct pred_ctx *c, const struct plan *p,
                        double unit, double ends, struct shard_coll *o)
{
    o->ag_s = unit_gather_s(c, p, unit);
    o->rs_s = unit_reduce_s(c, p, unit);
    o->bwd_gathers = c->job.zero3_gather == JOB_GATHER_PARAMETER &&
                     p->recompute == PLAN_RECOMPUTE_FULL
                   ? 1.0 + pred_rc_share(c, p) : 1.0;
    o->ends_ag_s = ends > 0 ? pred_dp_gather_s(c, p, 2.0 * ends) : 0;
    o->ends_rs_s = ends > 0
                 ? pred_dp_reduce_s(c, p, pred_grad_reduce_bytes(c) * ends) : 0;
    o->copy_s = p->zero < 3 ? 0
              : c->job.zero3_gather == JOB_GATHER_PARAMETER
              ? pred_mem_s(&c->k, 4.0 * unit, layer_tensors(&c->model) *
                                              (double)pred_shard_degree(p))
              : c->job.fsdp_copy_out ? pred_mem_s(&c->k, 4.0 * unit, 1) : 0;
    o->u = pred_interference(shard_inter(c, p));
}

/* Forward gather pass and backward pass (gather when resharded, reduce). */
static double fwd_pass(const struct pred_ctx *c, const struct plan *p,
                       const struct shard_coll *s,
                       const struct pred_shard_layer *l)
{
    bool ov = pred_overlap_param(c, p);
    return s->ends_ag_s + pass_exposed(ov ? s->ag_s : 0, ov ? s->ag_s : 0,
                                       (ov ? 0 : s->ag_s) + s->copy_s,
                                       l->fwd_s, l->n, s->u);
}

static double bwd_pass(const struct pred_ctx *c, const struct plan *p,
                       const struct shard_coll *s,
                       const struct pred_shard_layer *l, bool gather)
{
    bool og = pred_overlap_param(c, p), orr = pred_overlap_grad(c, p);
    double ag = gather ? s->bwd_gathers * s->ag_s : 0;
    double ov = (og ? ag : 0) + (orr ? s->rs_s : 0);
    double no = (og ? 0 : ag) + (orr ? 0 : s->rs_s) +
                (gather ? s->bwd_gathers * s->copy_s : 0);
    return s->ends_rs_s + pass_exposed(ov, orr ? s->rs_s : 0, no, l->bwd_s,
                                       l->n, s->u);
}

double pred_shard_exposed(const struct pred_ctx *c, const struct plan *p,
                          const struct pred_shard_layer *l, double m)
{
    struct shard_coll s;
    double per_mb, per_step, stretch = m + (double)(p->pp - 1) / p->vpp;
    bool keep = pred_shard_keeps_params(c, p);
    if (p->zero < 2 || grad_ranks(p) <= 1)
        return 0;
    shard_colls(c, p, l->unit_params, l->ends_params, &s);
    if (keep) {
        double reduce = bwd_pass(c, p, &s, l, false);
        per_step = fwd_pass(c, p, &s, l);
        per_mb = 0;
        if (pipeline_nosync(c, p))
            per_step += reduce;
        else
            per_mb = reduce;
    } else {
        per_step = 0;
        per_mb = fwd_pass(c, p, &s, l) + bwd_pass(c, p, &s, l, true);
    }
    return per_step + stretch * per_mb;
}
