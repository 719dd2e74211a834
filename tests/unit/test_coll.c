/* tests/unit/test_coll.c: the collective and send models (predictor/coll.c)
 * by hand, on round links: NVLink 1e11 B/s with NCCL's LL hop 0.6 us (so
 * LL128 1.9 us and Simple 3.4 us, tree 0.6 / 1.25 / 4.0 us: NCCL
 * src/graph/tuning.cc hwLat), the NIC 1e10 B/s per GPU with the LL hop
 * 2.7 us (LL128 4.0, Simple 14.0; tree 5.0 / 8.5 / 14.0), a fixed cost of
 * 10 us per collective and 5 us per send. */
#include "helpers.h"

static struct pred_kernels round_links(void)
{
    struct pred_kernels k = { 0 };
    k.intra_bytes_per_s = k.pair_bytes_per_s = 1e11;
    k.intra_lat_s = 0.6e-6;
    k.inter_bytes_per_s = 1e10;
    k.inter_lat_s = 2.7e-6;
    k.p2p_intra_scale = k.p2p_inter_scale = 1;
    k.ag_intra_scale = k.ag_inter_scale = 1;
    k.coll_base_s = 10e-6;
    k.p2p_base_s = 5e-6;
    k.domain = 8;
    return k;
}

/* NVLink tier, 8 GPUs, 1 GB: ring all-reduce 2 (7/8) 1e9 / 1e11 = 17.5 ms
 * plus 14 Simple hops (47.6 us): 17.5576 ms with the fixed cost (LL128's
 * 26.6 us of hops cost 17.5 / 0.92 - 17.5 = 1.52 ms more bytes time).
 * All-gather (7/8) 1e9 / 1e11 = 8.75 ms + 7 x 3.4 us + 10 us = 8.7838 ms
 * (nccl-tests PERFORMANCE.md bus factors). */
Test(coll, ring_inside_a_node_by_hand)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 1e9, 8, 8), 17.5576e-3, 1e-12);
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLGATHER, 1e9, 8, 8), 8.7838e-3, 1e-12);
    assert_rel(pred_coll_s(&k, PRED_COLL_REDUCESCATTER, 1e9, 8, 8), 8.7838e-3, 1e-12);
    cr_assert_eq(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 1e9, 1, 1), 0);
}

/* A small message runs LL: 64 KiB all-reduced over 8 GPUs, 14 LL hops
 * (8.4 us) and 2 (7/8) 65,536 B at a quarter of 1e11 (4.58752 us):
 * 22.98752 us with the fixed cost; LL128 would take 26.6 + 1.2466 us,
 * Simple 47.6 + 1.1469 us. */
Test(coll, small_messages_run_ll)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 65536, 8, 8), 22.98752e-6, 1e-12);
}

/* Network tier, one GPU a node, 8 nodes, 1 GB: ring 2 (7/8) 1e9 / 1e10 =
 * 175 ms plus 14 Simple network hops (196 us) = 175.206 ms with the fixed
 * cost; the tree (2 x 3 hops, 2 x 1e9 / (0.92 x 1e10) = 217.4 ms) loses. */
Test(coll, ring_across_nodes_by_hand)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 1e9, 8, 1), 175.206e-3, 1e-12);
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLGATHER, 1e9, 8, 1),
               10e-6 + 7 * 14e-6 + 7.0 / 8 * 1e9 / 1e10, 1e-12);
}

/* Where NCCL picks the tree: 1 MB all-reduced over 64 nodes of one GPU.
 * Ring: 126 steps, LL128 at 0.7 of the NIC (one GPU a node) 126 x 4 us +
 * 1.96875e6 / 0.7e10 = 785.25 us. Tree LL128: 2 x log2(64) = 12 hops of
 * 8.5 us and 2 x 1e6 / (0.92 x 120/128 x 1e10) = 231.884 us: 343.884 us
 * with the fixed cost, the cheapest of the six. */
Test(coll, tree_for_small_all_reduce_across_many_nodes)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 1e6, 64, 1),
               10e-6 + 102e-6 + 2e6 / (0.92 * 120.0 / 128.0 * 1e10), 1e-12);
}

/* Two nodes of 4 GPUs (Perlmutter's shape), 1 GB all-reduced: the ring
 * leaves each node through its 4 NICs, 4e10 B/s, slower than the staged
 * form's 1 / ((3/4) / 1e11 + (1/2) / 4 / 1e10) x 7/8 = 4.375e10: 2 (7/8)
 * 1e9 / 4e10 = 43.75 ms plus 12 NVLink and 2 network Simple hops (40.8 +
 * 28 us): 43.8288 ms with the fixed cost. */
Test(coll, ring_bound_across_nodes)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLREDUCE, 1e9, 8, 4), 43.8288e-3, 1e-12);
}

/* Two nodes of 8: the ring bound 8e10 B/s, the staged one 1 / ((7/8) /
 * 1e11 + (1/2) / 8 / 1e10) x 15/16 = 6.25e10, the slower: an all-gather
 * of 1 GB takes (15/16) 1e9 / 6.25e10 = 15 ms (8.75 ms of NVLink stage and
 * 6.25 ms of NICs) plus 14 NVLink and 1 network Simple hops (47.6 + 14 us)
 * and the fixed cost: 15.0716 ms. */
Test(coll, staged_bound_across_nodes)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_coll_s(&k, PRED_COLL_ALLGATHER, 1e9, 16, 8), 15.0716e-3, 1e-12);
}

/* Sends: fixed cost + one hop + bytes at the pair or NIC rate. 1 MB
 * inside a node: 5 + 0.6 + 10 us; across: 5 + 2.7 + 100 us. */
Test(coll, sends_by_tier)
{
    struct pred_kernels k = round_links();
    assert_rel(pred_p2p_s(&k, 1e6, 0), 15.6e-6, 1e-12);
    assert_rel(pred_p2p_s(&k, 1e6, 1), 107.7e-6, 1e-12);
}

/* Time never falls as the message grows, on either tier, whichever
 * protocol or algorithm takes over (the minimum of increasing lines). */
Test(coll, monotone_in_size)
{
    struct pred_kernels k = round_links();
    double prev[4] = { 0 };
    for (double s = 1024; s <= 1e10; s *= 1.7) {
        double t[4] = { pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 8, 8),
                        pred_coll_s(&k, PRED_COLL_ALLREDUCE, s, 512, 8),
                        pred_coll_s(&k, PRED_COLL_ALLGATHER, s, 64, 1),
                        pred_p2p_s(&k, s, 1) };
        for (int i = 0; i < 4; i++) {
            cr_assert_geq(t[i], prev[i], "case %d at %g B", i, s);
            prev[i] = t[i];
        }
    }
}
