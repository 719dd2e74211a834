/* predictor/coll.c: collective and point-to-point times (see kernel.h) by
 * NCCL's algorithms and protocols: ring (and tree for an all-reduce across
 * nodes) x LL / LL128 / Simple, each an alpha-beta cost over the link tiers
 * it crosses, the cheapest taken, as NCCL's tuner picks them (NCCL
 * src/graph/tuning.cc ncclTopoTuneModel, src/enqueue.cc topoGetAlgoInfo). */
#include "predictor/kernel.h"

#include <math.h>

enum { RING, TREE, N_ALGO };
enum { LL, LL128, SIMPLE, N_PROTO };

/* NCCL's per-hop latencies in microseconds (src/graph/tuning.cc hwLat,
 * hardware-facts.md sec. 6.5, S28 / S28b): per algorithm {LL, LL128,
 * Simple}. A system file gives the LL per-hop latencies (nvlink_latency_us,
 * network latency_us); the other protocols' hops scale with them. NCCL's
 * base latency per call (baseLat, 6.6-14 us) is inside the fitted fixed
 * cost kernel.collective_base_us, with the framework's launch and sync. */
static const double hop_nvlink_us[N_ALGO][N_PROTO] = { { 0.6, 1.9, 3.4 }, { 0.6, 1.25, 4.0 } };
static const double hop_net_us[N_ALGO][N_PROTO] = { { 2.7, 4.0, 14.0 }, { 5.0, 8.5, 14.0 } };

static const double ring_factor[PRED_COLL_COUNT] = {
    [PRED_COLL_ALLREDUCE] = 2.0, [PRED_COLL_ALLGATHER] = 1.0,
    [PRED_COLL_REDUCESCATTER] = 1.0,
};

static double hop_nv_s(const struct pred_kernels *k, int a, int p)
{
    return k->intra_lat_s * hop_nvlink_us[a][p] / hop_nvlink_us[RING][LL];
}

static double hop_net_s(const struct pred_kernels *k, int a, int p)
{
    return k->inter_lat_s * hop_net_us[a][p] / hop_net_us[RING][LL];
}

/* The share of the bus bandwidth a protocol reaches (tuning.cc's "model
 * refinements"): ring LL 1/4 across nodes or for an all-reduce, else 1/3
 * (8-byte lines of 4 data and 4 flag bytes); ring LL128 0.92 (0.7 with one
 * GPU per node); tree 0.92, LL 1/3.8 of that, LL128 120/128 across nodes. */
static double proto_share(int a, int p, enum pred_coll c, int multi, double ppn)
{
    if (a == RING && p == LL)
        return multi || c == PRED_COLL_ALLREDUCE ? 0.25 : 1.0 / 3.0;
    if (a == RING)
        return p == LL128 ? (ppn < 2.0 ? 0.7 : 0.92) : 1.0;
    return 0.92 * (p == LL ? 1.0 / 3.8 : p == LL128 ? 120.0 / 128.0 : 1.0);
}

/* The rates a collective runs at: all-gather and reduce-scatter at their
 * own shares of the links (kernel.h), all-reduce at the links'. */
struct rates { double intra, pair, inter; };

static struct rates coll_rates(const struct pred_kernels *k, enum pred_coll c)
{
    double si = c == PRED_COLL_ALLREDUCE ? 1.0 : k->ag_intra_scale;
    double sx = c == PRED_COLL_ALLREDUCE ? 1.0 : k->ag_inter_scale;
    return (struct rates){ k->intra_bytes_per_s * si, k->pair_bytes_per_s * si,
                           k->inter_bytes_per_s * sx };
}

/* One collective's group: n ranks, kk in each of nd domains, and the bus
 * bandwidth of its ring. Inside a domain, the NVLink rate (k-1 peers in
 * parallel over direct links, up to the GPU's whole NVLink bandwidth).
 * Across domains, the slower of two bounds:
 *  - the ring's (NCCL's own model, tuning.cc busBw = nChannels x bwInter):
 *    every channel leaves a domain through a NIC and the channels spread
 *    over the kk NICs of the group's GPUs there, so kk NIC rates carry
 *    the whole ring: f (n-1)/n S / (kk x NIC); kk^e NIC rates with the
 *    system's network.nic_exp e (1 by default: each NIC adds its whole
 *    rate; fitted below 1 where the NICs of a node share a bottleneck, as
 *    NCCL's socket transport shares the host: NCCL_NET=Socket stages every
 *    byte through host memory and a proxy thread per GPU). The Perlmutter samples
 *    follow it (2 nodes x 1, 2, 4 GPUs: 230, 183, 111 ms for 268 MB,
 *    ratios 1 : 0.80 : 0.48 against the ring's 1 : 0.75 : 0.44 and the
 *    staged form's 1 : 0.5 : 0.25);
 *  - the staged one the predictor had before (the domain's share over
 *    NVLink, then S/kk over each NIC, one after the other), which the
 *    published ZeRO-3 runs on NVSwitch nodes were validated with (the
 *    ring bound alone moves automodel's FSDP rows 0.8 points worse). */
struct group { double n, kk, nd, bus; enum pred_coll c; };

static struct group group_of(const struct pred_kernels *k, enum pred_coll c,
                             int64_t n, int64_t per_domain)
{
    struct rates r = coll_rates(k, c);
    struct group g = { .n = (double)n, .c = c };
    double intra, staged, nics;
    g.kk = (double)(per_domain < 1 ? 1 : per_domain > n ? n : per_domain);
    g.nd = ceil(g.n / g.kk);
    intra = g.kk > 1 ? fmin(r.intra, r.pair * (g.kk - 1)) : (double)INFINITY;
    g.bus = intra;
    if (g.nd == 1)
        return g;
    nics = k->nic_exp > 0 && k->nic_exp != 1 ? pow(g.kk, k->nic_exp) : g.kk;
    staged = ((g.kk - 1) / g.kk / intra + (g.nd - 1) / g.nd / nics / r.inter) *
             g.n / (g.n - 1);   /* seconds per byte, as a ring's bus rate */
    g.bus = fmin(1.0 / staged, fmin(intra, nics * r.inter));
    return g;
}

/* Ring with protocol p: nsteps = f (n - 1) steps, f (nd - 1) of them across
 * domains (tuning.cc: nsteps, nInterSteps; latency base + (nsteps -
 * nInterSteps) intraLat + nInterSteps interLat), and f (n - 1) / n of the
 * buffer through the ring's bus bandwidth (nccl-tests PERFORMANCE.md bus
 * factors: all-reduce 2 (n-1)/n, all-gather and reduce-scatter (n-1)/n). */
static double ring_s(const struct pred_kernels *k, const struct group *g,
                     double bytes, int p)
{
    double f = ring_factor[g->c], inter = f * (g->nd - 1), steps = f * (g->n - 1);
    return (steps - inter) * hop_nv_s(k, RING, p) + inter * hop_net_s(k, RING, p) +
           steps / g->n * bytes /
               (g->bus * proto_share(RING, p, g->c, g->nd > 1, g->kk));
}

/* Tree (all-reduce across domains): a chain through the kk GPUs of a domain
 * and a double binary tree over the nd domains, up and down: latency
 * 2 ((kk - 1) intraLat + log2(nd) interLat), the whole buffer at half the
 * bus bandwidth (tuning.cc: tree ratio 0.5). */
static double tree_s(const struct pred_kernels *k, const struct group *g,
                     double bytes, int p)
{
    return 2.0 * ((g->kk - 1) * hop_nv_s(k, TREE, p) +
                  ceil(log2(g->nd)) * hop_net_s(k, TREE, p)) +
           2.0 * bytes / (g->bus * proto_share(TREE, p, g->c, 1, g->kk));
}

double pred_coll_s(const struct pred_kernels *k, enum pred_coll c, double bytes,
                   int64_t n, int64_t per_domain)
{
    struct group g;
    double best = INFINITY;
    if (n <= 1)
        return 0;
    g = group_of(k, c, n, per_domain);
    for (int p = 0; p < N_PROTO; p++) {
        best = fmin(best, ring_s(k, &g, bytes, p));
        if (c == PRED_COLL_ALLREDUCE && g.nd > 1)
            best = fmin(best, tree_s(k, &g, bytes, p));
    }
    return k->coll_base_s + best;
}

/* A send: one hop (the system's per-hop latency) plus its fixed cost
 * (kernel.p2p_base_us, fitted on the p2p samples; 0 without) plus the
 * bytes at the send's share of the pair or NIC rate. NCCL sends above
 * NCCL_P2P_LL_THRESHOLD (16 KiB by default, NCCL environment-variable
 * docs) run Simple, and the sends a plan makes (activations of a
 * micro-batch) are far larger; the fitted fixed cost carries Simple's
 * per-send latency. */
double pred_p2p_s(const struct pred_kernels *k, double bytes, int inter)
{
    return inter ? k->p2p_base_s + k->inter_lat_s +
                       bytes / (k->inter_bytes_per_s * k->p2p_inter_scale)
                 : k->p2p_base_s + k->intra_lat_s +
                       bytes / (k->pair_bytes_per_s * k->p2p_intra_scale);
}
