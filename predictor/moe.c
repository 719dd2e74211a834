/* predictor/moe.c: the routed experts of a mixture-of-experts layer, as
 * Megatron-Core runs them with Transformer Engine, the all-to-all token
 * dispatcher and grouped GEMMs (megatron/core/transformer/moe/: router.py,
 * token_dispatcher.py MoEAlltoAllTokenDispatcher, experts.py GroupedMLP /
 * TEGroupedMLP, moe_utils.py permute / unpermute).
 *
 * Layout (MoE parallel folding, Liu et al., arXiv 2504.14960 sec. 3;
 * megatron/core/parallel_state.py): the tp * cp * dp GPUs of a pipeline
 * stage are laid out again as etp x ep x edp, etp innermost. Attention
 * runs as in a dense layer; with tp > 1 sequence parallelism leaves each
 * GPU T / tp of the micro-batch's T tokens (the rule ep-sp), and each
 * routes its own. A GPU holds E / ep experts, each expert's FFN split over
 * etp.
 *
 * Per MoE layer and micro-batch, forward (backward: the same operators'
 * gradients, the all-to-alls in the other direction):
 *   router: a GEMM T_l x h x E and the fused score / top-k kernel over the
 *     T_l x E fp32 logits (router.py; T_l the GPU's tokens);
 *   permute: gather the k copies of each token by expert (read T_l h,
 *     write k T_l h, 16-bit), and after the combine the probability-
 *     weighted sum back (read k T_l h, write T_l h);
 *   dispatch: an all-to-all over the ep group, k T_l h 16-bit elements
 *     sent per GPU, a 1/ep share to each rank; with etp > 1 an all-gather
 *     of the received tokens over etp (and a reduce-scatter before the
 *     combine: token_dispatcher.py, the "tp" part of the alltoall
 *     dispatcher);
 *   experts: grouped GEMMs (all local experts in one kernel, TE
 *     GroupedLinear / CUTLASS grouped GEMM) up (and gate), activation,
 *     down, over the T_e = k T_l etp tokens a GPU receives on average, T_e
 *     / (E / ep) per expert: few tokens per expert leave tiles partly
 *     empty and the kernel below its saturation, the kernel model's size
 *     dependence (pred_grouped_gemm_s);
 *   combine: the all-to-all back.
 * Shared experts run as a dense MLP of their width, tp-split (moe_layer.py
 * SharedExpertMLP), in the layer's MLP operators; an MoE layer without
 * them has no MLP all-gather / reduce-scatter over tp, only attention's.
 *
 * All-to-all (pred_a2a_s): every rank sends S bytes, S / n to each peer.
 * NCCL posts the n - 1 sends and receives at once (ncclGroupStart /
 * ncclSend / ncclRecv, NCCL user guide "Point-to-point communication:
 * all-to-all"), so the peers in the GPU's NVLink domain are reached over
 * NVLink while those off-node share the GPU's NIC: it is not a ring, and
 * its time is set by the larger of the two:
 *   t = base + lat + max(S (g - 1) / n / B_nvl, S (n - g) / n / B_nic)
 * with g of the n ranks in the domain. Inside a node (g = n) it is
 * S (n - 1) / n over NVLink; across nodes the off-node share (n - g) / n
 * grows with n: 2 nodes of 8 send half of S over the NIC, 8 nodes 7/8.
 *
 * The flex dispatcher (job.moe_dispatch JOB_MOE_FLEX: Megatron's
 * MoEFlexTokenDispatcher on DeepEP or HybridEP, github.com/deepseek-ai/
 * DeepEP README "normal kernels": NVLink and RDMA forwarding) sends a
 * token once to each node that holds one of its experts, to the GPU of
 * the same local index there, which forwards it over NVLink to each GPU
 * that holds one (DeepSeek-V3, arXiv:2412.19437 sec. 3.2.2: "tokens are
 * first transmitted via IB to the GPUs with the same in-node index on
 * their target nodes ... instantaneously forwarded via NVLink"); the
 * combine runs the same way back, summing inside the node first. So a
 * GPU's T_l tokens cost T_l h x D_node over the NIC, D_node the remote
 * nodes a token reaches, and T_l h x D_gpu (g - 1) / g over NVLink, D_gpu
 * the GPUs it reaches, against k T_l h split (g - 1) / n and (n - g) / n
 * for the all-to-all: fewer copies whenever a token's experts share a GPU
 * or a node. Its experts are k of E laid out in order, E / units on each
 * unit (GPU or node); with group-limited routing (--moe-router-num-groups
 * G, --moe-router-group-topk M; DeepSeek-V3 n_group 8, topk_group 4) a
 * token picks M of the G groups of E / G experts, then k experts among
 * those M E / G (megatron/core/transformer/moe/moe_utils.py
 * group_limited_topk), each pick equally likely (the balanced-routing
 * law below). A unit inside one group is reached with probability
 * (M / G) (1 - C(M E/G - u, k) / C(M E/G, k)), u = E / units; a unit of
 * q whole groups with 1 - sum_j P(j of its q groups chosen) C(M E/G - j
 * E/G, k) / C(M E/G, k), P hypergeometric (pred_moe_hit_share). Without
 * groups (G = M = 1) that is 1 - C(E - u, k) / C(E, k): Mixtral on 8 GPUs
 * (one expert each, top 2) reaches 2 GPUs, as the all-to-all; DeepSeek-V3
 * on 64 GPUs of 8 nodes, a group per node, reaches at most 4 nodes,
 * 3.63 on average, 3.18 of them remote, against 7 NIC copies of the
 * all-to-all.
 *
 * Load imbalance: under balanced routing a GPU's load is a sum of
 * Bernoulli draws (each of the ep T_e token copies of its group lands on
 * it with probability 1 / ep), mean T_e, standard deviation
 * sqrt(T_e (1 - 1 / ep)); every all-to-all waits for the busiest of the ep
 * GPUs, whose load exceeds the mean by about sqrt(2 ln ep) deviations
 * (the expected maximum of n normal variables, Gumbel 1958; David and
 * Nagaraja, "Order Statistics", sec. 10.5). So times scale by
 * 1 + z sqrt((1 - 1/ep) / T_e), z = sqrt(2 ln ep). A learned router is
 * less balanced than that; this is the lower bound the load-balancing
 * loss aims at. Memory is sized for z = 6 (about one layer in 10^9 above
 * it under the same law): a dropless MoE (Megatron's default, no capacity
 * factor) allocates what arrives. With a capacity factor c the tokens
 * beyond c times the mean are dropped, so neither exceeds c
 * (--moe-expert-capacity-factor, moe_utils.py). */
#include "predictor/pred.h"

#include <math.h>

/* Memory's imbalance, in standard deviations (header). */
#define MOE_MEM_Z 6.0

/* Volumes over NVLink and over the NIC sent at once: the larger sets the
 * time (header). */
static double a2a_split_s(const struct pred_kernels *k, double intra_bytes,
                          double inter_bytes, double g)
{
    double t = k->coll_base_s, intra = 0, inter = 0;
    if (intra_bytes > 0 && g > 1) {
        intra = intra_bytes /
                fmin(k->intra_bytes_per_s, k->pair_bytes_per_s * (g - 1));
        t += k->intra_lat_s;
    }
    if (inter_bytes > 0) {
        inter = inter_bytes / k->inter_bytes_per_s;
        t += k->inter_lat_s;
    }
    return t + fmax(intra, inter);
}

double pred_a2a_s(const struct pred_kernels *k, double bytes, int64_t n,
                  int64_t per_domain)
{
    double g;
    if (n <= 1 || bytes <= 0)
        return 0;
    g = (double)(per_domain < 1 ? 1 : per_domain > n ? n : per_domain);
    return a2a_split_s(k, bytes * (g - 1) / (double)n,
                       bytes * ((double)n - g) / (double)n, g);
}

/* prod_{i<k} (n - u - i) / (n - i): no pick of k among n lands in u. */
static double miss_all(double n, double u, double k)
{
    double q = 1.0;
    for (double i = 0; i < k && q > 0; i++)
        q *= n - u - i > 0 ? (n - u - i) / (n - i) : 0.0;
    return q;
}

static double choose(double n, double r)
{
    return r < 0 || r > n ? 0.0
           : exp(lgamma(n + 1) - lgamma(r + 1) - lgamma(n - r + 1));
}

double pred_moe_hit_share(const struct model_moe *e, double units)
{
    double E = (double)e->experts, G = (double)e->groups;
    double M = (double)e->group_topk, k = (double)e->topk;
    double s = E / G, n = M * s, u = E / units, q, miss = 0;
    if (units <= 1)
        return 1.0;
    if (u <= s)                 /* inside one group: chosen, then picked */
        return M / G * (1.0 - miss_all(n, u, k));
    q = round(u / s);           /* q whole groups: j of them chosen */
    for (double j = 0; j <= q && j <= M; j++)
        miss += choose(q, j) * choose(G - q, M - j) / choose(G, M) *
                miss_all(n, j * s, k);
    return 1.0 - miss;
}

int64_t pred_ep_per_domain(const struct pred_ctx *c, const struct plan *p)
{
    int64_t g = p->etp >= c->k.domain ? 1 : c->k.domain / p->etp;
    return g > p->ep ? p->ep : g;
}

/* Tokens a GPU routes: its sequence-parallel share, or all of them. */
static double routed_tokens(const struct pred_ctx *c, const struct plan *p)
{
    double t = pred_tokens(c, p);
    return p->sp ? t / p->tp : t;
}

double pred_moe_expert_tokens(const struct pred_ctx *c, const struct plan *p)
{
    return routed_tokens(c, p) * (double)c->model.moe.topk *
           (p->sp ? (double)p->etp : 1.0);
}

double pred_moe_imbalance(const struct pred_ctx *c, const struct plan *p,
                          double z)
{
    double te = pred_moe_expert_tokens(c, p), cf = c->model.moe.capacity_factor;
    double f = 1.0;
    if (p->ep > 1 && te > 0)
        f = 1.0 + z * sqrt((1.0 - 1.0 / p->ep) / te);
    return cf > 0 ? fmin(f, cf) : f;
}

double pred_grouped_gemm_s(const struct pred_kernels *k,
                           const struct pred_kparams *kp, double groups,
                           double m, double n, double kk, double in_bytes)
{
    double tm = (double)k->tile_m, tn = (double)k->tile_n;
    double tiles, padded, bytes, t_math;
    if (groups <= 0 || m <= 0 || n <= 0 || kk <= 0)
        return 0;
    /* each group's tiles rounded up, all groups' tiles scheduled in waves
     * over the SMs together, each with the tile's fixed fill (as
     * pred_gemm_s for one GEMM; not its gradient class's correction in
     * log space, fitted on cuBLAS's dense kernels, not the grouped ones) */
    tiles = groups * ceil(m / tm) * ceil(n / tn);
    padded = 2.0 * (pred_k_steps(k, kk) + k->gemm_fill_k) *
             ceil(tiles / (double)k->sms) * (double)k->sms * tm * tn;
    bytes = groups * (in_bytes * (m * kk + kk * n) + 2.0 * m * n);
    t_math = padded / (kp->peak_flops * pred_sat_eff(kp, padded));
    return fmax(t_math, bytes / k->mem_bytes_per_s) + k->launch_s;
}

/* Forward C[m, n] = X[m, k] W[k, n] of each expert; backward dX and dW. */
static void grouped_fb(const struct pred_ctx *c, double groups, double m,
                       double n, double kk, double *fwd, double *bwd)
{
    const struct pred_kernels *k = &c->k;
    double in = c->job.precision == JOB_PREC_FP8 ? 1.0 : 2.0;
    *fwd = pred_grouped_gemm_s(k, &k->gemm, groups, m, n, kk, in);
    *bwd = pred_grouped_gemm_s(k, &k->gemm_bwd, groups, m, kk, n, in) +
           pred_grouped_gemm_s(k, &k->gemm_bwd, groups, kk, n, m, in);
}

/* Router: T_l x h x E GEMM, then scores and top-k over fp32 logits (read
 * and write T_l E, both ways). */
static void router_time(const struct pred_ctx *c, const struct plan *p,
                        double tl, struct pred_layer *o)
{
    const struct pred_kernels *k = &c->k;
    double h = (double)c->model.hidden, e = (double)c->model.moe.experts;
    double scores = 3.0 * 4.0 * tl * e;
    (void)p;
    o->fwd_s[PRED_OP_ROUTER] = pred_gemm_s(k, &k->gemm, tl, e, h, 2.0) +
                               pred_mem_s(k, scores, 1);
    o->bwd_s[PRED_OP_ROUTER] = pred_gemm_s(k, &k->gemm_bwd, tl, h, e, 2.0) +
                               pred_gemm_s(k, &k->gemm_bwd, h, e, tl, 2.0) +
                               pred_mem_s(k, scores, 1);
}

/* The flex dispatcher's all-to-all (header): a token goes once to each
 * node its experts are on, the others' over the NIC, and on to each GPU
 * they are on over NVLink. */
static double flex_a2a_s(const struct pred_ctx *c, const struct plan *p,
                         double token_bytes)
{
    const struct model_moe *e = &c->model.moe;
    double g = (double)pred_ep_per_domain(c, p), ep = (double)p->ep;
    double nodes = ceil(ep / g);
    double ranks = ep * pred_moe_hit_share(e, ep);
    double remote = nodes * pred_moe_hit_share(e, nodes) * (nodes - 1) / nodes;
    if (p->ep <= 1)
        return 0;
    return a2a_split_s(&c->k, token_bytes * ranks * (g - 1) / g,
                       token_bytes * remote, g);
}

/* Dispatch and combine: the all-to-all of the routed 16-bit tokens (k
 * copies of each, or one per GPU and node with the flex dispatcher), the
 * busiest GPU's share stretched by the imbalance, and with etp > 1 the
 * all-gather (reduce-scatter) of the received tokens over etp. */
static void dispatch_time(const struct pred_ctx *c, const struct plan *p,
                          double tl, double imb, struct pred_layer *o)
{
    double h = (double)c->model.hidden, kk = (double)c->model.moe.topk;
    double a2a = c->job.moe_dispatch == JOB_MOE_FLEX
                 ? flex_a2a_s(c, p, 2.0 * tl * h * imb)
                 : pred_a2a_s(&c->k, 2.0 * kk * tl * h * imb, p->ep,
                              pred_ep_per_domain(c, p));
    double te = pred_moe_expert_tokens(c, p) * imb;
    int64_t in = p->etp < c->k.domain ? p->etp : c->k.domain;
    double ag = 0, rs = 0;
    if (p->etp > 1 && p->sp) {
        ag = pred_coll_s(&c->k, PRED_COLL_ALLGATHER, 2.0 * te * h, p->etp, in);
        rs = pred_coll_s(&c->k, PRED_COLL_REDUCESCATTER, 2.0 * te * h,
                         p->etp, in);
    }
    o->fwd_s[PRED_OP_DISPATCH] = a2a + ag;
    o->bwd_s[PRED_OP_DISPATCH] = a2a + rs;
    o->fwd_s[PRED_OP_COMBINE] = a2a + rs;
    o->bwd_s[PRED_OP_COMBINE] = a2a + ag;
}

/* The experts' grouped GEMMs and activation over the busiest GPU's
 * tokens; the activation as the dense MLP's (pred.c rope_act_time). */
static void experts_time(const struct pred_ctx *c, const struct plan *p,
                         double imb, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double groups = (double)(m->moe.experts / p->ep);
    double te = pred_moe_expert_tokens(c, p) * imb, per = te / groups;
    double h = (double)m->hidden, f = (double)m->moe.ffn_hidden / p->etp;
    double up = (m->glu ? 2.0 : 1.0) * f;
    grouped_fb(c, groups, per, up, h, &o->fwd_s[PRED_OP_EXPERT_UP],
               &o->bwd_s[PRED_OP_EXPERT_UP]);
    grouped_fb(c, groups, per, h, f, &o->fwd_s[PRED_OP_EXPERT_DOWN],
               &o->bwd_s[PRED_OP_EXPERT_DOWN]);
    o->fwd_s[PRED_OP_EXPERT_ACT] = pred_memop_s(&c->k, HW_MEMOP_GELU, 0,
                                        (m->glu ? 6.0 : 4.0) * te * f, 1, 1);
    o->bwd_s[PRED_OP_EXPERT_ACT] = pred_memop_s(&c->k, HW_MEMOP_GELU, 1,
                                        (m->glu ? 10.0 : 6.0) * te * f, 1, 1);
}

/* The all-to-all overlap (plan switch epo, --overlap-moe-expert-parallel-
 * comm): Megatron's combined 1F1B (megatron/core/pipeline_parallel/
 * combined_1f1b.py) runs one micro-batch's forward beside another's
 * backward, layer by layer, each one's dispatch and combine on a
 * communication stream beside the other's computation. Of the layer's
 * all-to-alls (both passes, C) beside its computation (both passes, G)
 * the part beyond G stays exposed, and G slows by the interference of the
 * all-to-all's kernels (tpo.c pred_overlap, the NIC's or NVLink's): the
 * slowdown is charged to the experts' up GEMM. */
static void a2a_overlap(const struct pred_ctx *c, const struct plan *p,
                        struct pred_layer *o)
{
    double comm = 0, comp = 0, extra, exposed, keep;
    for (int i = 0; i < PRED_OP_COUNT; i++) {
        if (pred_ops[i].part == PRED_PART_EP_COMM)
            comm += o->fwd_s[i] + o->bwd_s[i];
        else if (pred_ops[i].kind == PRED_KIND_KERNEL)
            comp += o->fwd_s[i] + o->bwd_s[i];
    }
    pred_overlap(comp, comm, pred_interference(p->ep > pred_ep_per_domain(c, p)),
                 1, &extra, &exposed);
    keep = comm > 0 ? exposed / comm : 0;
    for (int i = 0; i < PRED_OP_COUNT; i++)
        if (pred_ops[i].part == PRED_PART_EP_COMM) {
            o->fwd_s[i] *= keep;
            o->bwd_s[i] *= keep;
        }
    o->fwd_s[PRED_OP_EXPERT_UP] += extra / 2;
    o->bwd_s[PRED_OP_EXPERT_UP] += extra / 2;
}

void pred_moe_layer(const struct pred_ctx *c, const struct plan *p,
                    struct pred_layer *o)
{
    double tl = routed_tokens(c, p), h = (double)c->model.hidden;
    double kk = (double)c->model.moe.topk;
    double imb = pred_moe_imbalance(c, p, sqrt(2.0 * log((double)p->ep)));
    double perm = 2.0 * (2.0 * tl * h + 2.0 * kk * tl * h);
    router_time(c, p, tl, o);
    o->fwd_s[PRED_OP_PERMUTE] = pred_mem_s(&c->k, perm, 2);
    o->bwd_s[PRED_OP_PERMUTE] = pred_mem_s(&c->k, perm, 2);
    dispatch_time(c, p, tl, imb, o);
    experts_time(c, p, imb, o);
    if (p->epo)
        a2a_overlap(c, p, o);
}

/* ---- where the MoE layers are, and what they hold ---- */

double pred_stage_moe_layers(const struct model *m,
                             const struct stage_layout *s, int64_t rank)
{
    double n = stage_rank_layers(s, rank), dense, before = 0;
    int64_t d = m->moe.dense_first;
    if (!model_is_moe(m))
        return 0;
    /* the dense-first layers fill the first ranks' first chunks (all of
     * a rank without interleaving) */
    for (int64_t r = 0; r < rank && before < (double)d; r++)
        before += s->vpp > 1 ? stage_rank_chunk(s, r) : stage_rank_layers(s, r);
    dense = fmin(fmax((double)d - before, 0.0),
                 s->vpp > 1 ? (double)stage_rank_chunk(s, rank) : n);
    return (n - dense) / (double)(m->moe.layer_freq > 0 ? m->moe.layer_freq : 1);
}

double pred_layer_expert_params(const struct model *m, const struct plan *p)
{
    if (!model_is_moe(m))
        return 0;
    return (double)(m->moe.experts / p->ep) *
           (double)model_ffn_params(m, m->moe.ffn_hidden) / p->etp;
}

double pred_stage_expert_params(const struct model *m, const struct plan *p,
                                const struct stage_layout *s, int64_t rank)
{
    double layers = pred_stage_moe_layers(m, s, rank);
    if (rank == p->pp - 1 && model_is_moe(m))   /* MTP on the last stage */
        layers += (double)m->mtp_layers;
    return layers * pred_layer_expert_params(m, p);
}

void pred_expert_plan(const struct plan *p, struct plan *out)
{
    *out = *p;
    out->dp = (int32_t)plan_edp(p);
    out->tp = p->ep * p->etp;           /* edp ranks sit ep etp GPUs apart */
    out->cp = 1;
    out->replicas = 1;
}

/* Per MoE layer and micro-batch on the busiest GPU (header: z = 6):
 * router logits and scores (fp32, T_l E each) and the routing map; the
 * received tokens (the up GEMM's input, FP8 or 16-bit), the up GEMM's
 * 16-bit output the activation's backward reads (2f with a GLU: gate and
 * up), the down GEMM's input, the experts' 16-bit output the unpermute's
 * backward reads (Megatron-Core experts.py, moe_utils.py). Full recompute
 * keeps only the layer input (mem.c); selective with moe_act rebuilds the
 * activation, so the down GEMM's input is not kept (experts.py,
 * CheckpointWithoutOutput on activation_func), with moe the whole MoE
 * layer from its input (transformer_layer.py). */
double pred_moe_act_bytes(const struct pred_ctx *c, const struct plan *p)
{
    const struct model *m = &c->model;
    double tl = routed_tokens(c, p), e = (double)m->moe.experts;
    double imb = pred_moe_imbalance(c, p, MOE_MEM_Z);
    double te = pred_moe_expert_tokens(c, p) * imb, h = (double)m->hidden;
    double f = (double)m->moe.ffn_hidden / p->etp;
    double g = c->job.precision == JOB_PREC_FP8 ? 1.0 : 2.0;
    if (p->recompute == PLAN_RECOMPUTE_FULL || !model_is_moe(m) ||
        pred_rc_has(&c->job, p, JOB_RC_MOE))
        return 0;
    return 8.0 * tl * e + 12.0 * tl * (double)m->moe.topk +
           te * (g * h + (m->glu ? 4.0 : 2.0) * f + 2.0 * h +
                 (pred_rc_has(&c->job, p, JOB_RC_MOE_ACT) ? 0.0 : g * f));
}
