/* calibrate/fields.c: the fields a calibration fits (calibrate.h): where
 * each lives in a system file and in struct hw_system, its unit, how it is
 * fitted and what range is plausible. The fit, the report and the
 * system-file writer all read this table. */
#include "calibrate/calibrate.h"

#include <assert.h>
#include <math.h>

#define AT(f) offsetof(struct hw_system, f)
#define EFF(path, f) { path, AT(f), 1, CAL_X_EFF, 0, INFINITY, NULL, false }
#define CAP(path, f) { path, AT(f), 1, CAL_X_EFF, 0, INFINITY, NULL, true }

static const char implausible[] = "far below the link rate";

const struct cal_field_def cal_fields[CAL_FIELD_COUNT] = {
    [CAL_FIELD_LAUNCH] = { "kernel.launch_us", AT(launch_s), 1e-6, CAL_X_POS,
                           0, INFINITY, NULL },
    [CAL_FIELD_HBM] = EFF("efficiency.hbm", eff_hbm),
    [CAL_FIELD_NORM] = EFF("efficiency.norm", eff_norm),
    [CAL_FIELD_GEMM] = CAP("efficiency.gemm", eff_gemm),
    [CAL_FIELD_GEMM_HALF] = { "efficiency.gemm_half_gflop", AT(gemm_half_flop),
                              1e9, CAL_X_POS, 0, INFINITY, NULL },
    [CAL_FIELD_GEMM_BWD] = CAP("efficiency.gemm_bwd", eff_gemm_bwd),
    [CAL_FIELD_ATTN] = CAP("efficiency.attn", eff_attn),
    [CAL_FIELD_ATTN_BWD] = CAP("efficiency.attn_bwd", eff_attn_bwd),
    /* alpha shows only where it is a visible share of the smallest message */
    [CAL_FIELD_COLLECTIVE_BASE] = { "kernel.collective_base_us",
                                    AT(collective_base_s), 1e-6, CAL_X_POS, 1, 500,
                                    "not constrained by these message sizes" },
    /* under 0.2 of the link rate is no bus bandwidth of a fabric run as
     * its vendor means it (the Perlmutter inter-node samples: 1.2 GB/s
     * against a 25 GB/s NIC, NCCL over sockets); such a fit is kept as the
     * sampled fabric's rate and the report says so (calibrate/fit.c) */
    [CAL_FIELD_NVLINK] = { "efficiency.nvlink", AT(eff_nvlink), 1, CAL_X_EFF,
                           0.2, 1.5, implausible },
    [CAL_FIELD_NETWORK] = { "efficiency.network", AT(eff_net), 1, CAL_X_EFF,
                            0.2, 1, implausible },
    /* memory-bound operators: achieved share of peak HBM bandwidth in
     * (0, 1) (a working set resident in L2 could beat it, but the predictor
     * runs shapes far beyond L2), and the floor per call */
#define MEMOP(o, name)                                                      \
    [CAL_FIELD_MEMOP + 4 * o] = { "memory_ops." name "_fwd",                \
        AT(memop[o].eff[0]), 1, CAL_X_EFF, 0, INFINITY, NULL, false },      \
    [CAL_FIELD_MEMOP + 4 * o + 1] = { "memory_ops." name "_fwd_floor_us",   \
        AT(memop[o].floor_s[0]), 1e-6, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_MEMOP + 4 * o + 2] = { "memory_ops." name "_bwd",            \
        AT(memop[o].eff[1]), 1, CAL_X_EFF, 0, INFINITY, NULL, false },      \
    [CAL_FIELD_MEMOP + 4 * o + 3] = { "memory_ops." name "_bwd_floor_us",   \
        AT(memop[o].floor_s[1]), 1e-6, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_LOG_ROW + 2 * o] = { "memory_ops." name "_fwd_log_row",      \
        AT(memop[o].log_row[0]), 1, CAL_X_LIN, -4, 4, NULL, false },        \
    [CAL_FIELD_LOG_ROW + 2 * o + 1] = { "memory_ops." name "_bwd_log_row",  \
        AT(memop[o].log_row[1]), 1, CAL_X_LIN, -4, 4, NULL, false },        \
    [CAL_FIELD_ROW + 2 * o] = { "memory_ops." name "_fwd_row_ps",           \
        AT(memop[o].row_s[0]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_ROW + 2 * o + 1] = { "memory_ops." name "_bwd_row_ps",       \
        AT(memop[o].row_s[1]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_SHORT + 2 * o] = { "memory_ops." name "_fwd_short",          \
        AT(memop[o].short_eff[0]), 1, CAL_X_EFF, 0, INFINITY, NULL, false },\
    [CAL_FIELD_SHORT + 2 * o + 1] = { "memory_ops." name "_bwd_short",      \
        AT(memop[o].short_eff[1]), 1, CAL_X_EFF, 0, INFINITY, NULL, false },\
    [CAL_FIELD_ROW0 + 2 * o] = { "memory_ops." name "_fwd_row_ns",          \
        AT(memop[o].row0_s[0]), 1e-9, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_ROW0 + 2 * o + 1] = { "memory_ops." name "_bwd_row_ns",      \
        AT(memop[o].row0_s[1]), 1e-9, CAL_X_POS, 0, INFINITY, NULL, false }
    MEMOP(HW_MEMOP_GELU, "gelu"),
    MEMOP(HW_MEMOP_RESADD, "res_add"),
    MEMOP(HW_MEMOP_NORM, "layernorm"),
    MEMOP(HW_MEMOP_RMSNORM, "rmsnorm"),
    MEMOP(HW_MEMOP_ROPE, "rope"),
    MEMOP(HW_MEMOP_SOFTMAX, "softmax"),
    MEMOP(HW_MEMOP_MASKED_SOFTMAX, "masked_softmax"),
    MEMOP(HW_MEMOP_FILLMASK, "fillmask"),
    MEMOP(HW_MEMOP_EMBED, "embedding"),
    MEMOP(HW_MEMOP_XENT, "cross_entropy"),
    MEMOP(HW_MEMOP_OPTIM, "optimizer"),
#undef MEMOP
    /* FlashAttention-2 (predictor/flash.c): the head-dim slope is bounded
     * as the system-file reader bounds it */
#define FLASH(d, name)                                                      \
    [CAL_FIELD_FLASH + 4 * d] = { "attention.softmax_ps_" name,             \
        AT(flash.softmax_s[d]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },\
    [CAL_FIELD_FLASH + 4 * d + 1] = { "attention.log_head_dim_" name,       \
        AT(flash.log_d[d]), 1, CAL_X_LIN, -2, 2, NULL, false },             \
    [CAL_FIELD_FLASH + 4 * d + 2] = { "attention.uneven_" name,             \
        AT(flash.uneven[d]), 1, CAL_X_POS, 0, 10, NULL, false },            \
    [CAL_FIELD_FLASH + 4 * d + 3] = { "attention.floor_us_" name,           \
        AT(flash.floor_s[d]), 1e-6, CAL_X_POS, 0, INFINITY, NULL, false }
    FLASH(0, "fwd"),
    FLASH(1, "bwd"),
#undef FLASH
    [CAL_FIELD_P2P_NVLINK] = { "efficiency.p2p_nvlink", AT(eff_p2p_nvlink), 1,
                               CAL_X_EFF, 0.2, 1.5, implausible },
    [CAL_FIELD_P2P_NETWORK] = { "efficiency.p2p_network", AT(eff_p2p_net), 1,
                                CAL_X_EFF, 0.2, 1, implausible },
    /* the batched GEMMs (predictor/kernel.c pred_bgemm_s): the mainloop's
     * share capped at the GPU's measured maximum, the traffic, overlap and
     * re-read shares in (0, 1), the size drift bounded as the system-file
     * reader bounds it */
#define BGEMM(i, name)                                                      \
    [CAL_FIELD_BGEMM + 4 * i] = CAP("batched_gemm.eff_" name, bgemm.eff[i]),\
    [CAL_FIELD_BGEMM + 4 * i + 1] = EFF("batched_gemm.io_" name, bgemm.io_eff[i]),\
    [CAL_FIELD_BGEMM + 4 * i + 2] = EFF("batched_gemm.overlap_" name,       \
                                        bgemm.overlap[i]),                  \
    [CAL_FIELD_BGEMM + 4 * i + 3] = { "batched_gemm.log_size_" name,        \
        AT(bgemm.log_size[i]), 1, CAL_X_LIN, -0.5, 0.5, NULL, false }
    BGEMM(HW_BGEMM_OUT, "out"),
    BGEMM(HW_BGEMM_IN, "in"),
#undef BGEMM
    [CAL_FIELD_BGEMM_REREAD] = EFF("batched_gemm.reread", bgemm.reread),
    [CAL_FIELD_AG_NVLINK] = { "efficiency.allgather_nvlink", AT(eff_ag_nvlink), 1,
                              CAL_X_EFF, 0.2, 1.5, implausible },
    [CAL_FIELD_AG_NETWORK] = { "efficiency.allgather_network", AT(eff_ag_net), 1,
                               CAL_X_EFF, 0.2, 1, implausible },
    [CAL_FIELD_P2P_BASE] = { "kernel.p2p_base_us", AT(p2p_base_s), 1e-6, CAL_X_POS,
                             0, 500, "not constrained by these message sizes" },
    /* NCCL's LL hop (the other protocols' scale with it): from ~0 (the
     * fixed cost carries it) to tens of microseconds (a TCP hop) */
    [CAL_FIELD_NVLINK_LAT] = { "node.nvlink_latency_us", AT(nvlink_latency_s), 1e-6,
                               CAL_X_POS, 0, 50, "not constrained by these message sizes" },
    [CAL_FIELD_NET_LAT] = { "network.latency_us", AT(net_latency_s), 1e-6,
                            CAL_X_POS, 0, 100, "not constrained by these message sizes" },
    /* k GPUs of a node reach k^e NIC rates: below 0.5 the NICs would add
     * less than a square root, no shared bottleneck we know of */
    [CAL_FIELD_NIC_EXP] = { "network.nic_exp", AT(net_nic_exp), 1, CAL_X_LIN,
                            0.5, 1, "not a plausible share of the added NICs" },
    [CAL_FIELD_GEMM_FILL] = { "kernel.gemm_fill_k", AT(gemm_fill_k), 1, CAL_X_POS,
                              0, 4096, NULL, false },
    [CAL_FIELD_SAMPLE_GAP] = { "kernel.sample_gap_us", AT(sample_gap_s), 1e-6,
                               CAL_X_POS, 0, INFINITY, NULL, false },
#define GEMM_LOG(f, i, file, member)                                        \
    [f + i] = { "efficiency." file, AT(member[i]), 1, CAL_X_LIN, -1, 1, NULL, false }
    GEMM_LOG(CAL_FIELD_GEMM_BWD_LOG, 0, "gemm_bwd_log_m", gemm_bwd_log),
    GEMM_LOG(CAL_FIELD_GEMM_BWD_LOG, 1, "gemm_bwd_log_n", gemm_bwd_log),
    GEMM_LOG(CAL_FIELD_GEMM_BWD_LOG, 2, "gemm_bwd_log_k", gemm_bwd_log),
#undef GEMM_LOG
    [CAL_FIELD_NORM_LOG_SIZE] = { "memory_ops.layernorm_fwd_log_size",
        AT(memop[HW_MEMOP_NORM].log_size[0]), 1, CAL_X_LIN, -4, 4, NULL, false },
    [CAL_FIELD_NORM_LOG_SIZE + 1] = { "memory_ops.layernorm_bwd_log_size",
        AT(memop[HW_MEMOP_NORM].log_size[1]), 1, CAL_X_LIN, -4, 4, NULL, false },
    [CAL_FIELD_SOFTMAX_WARP_ROW] = { "memory_ops.softmax_fwd_warp_row",
        AT(memop[HW_MEMOP_SOFTMAX].warp_row[0]), 1, CAL_X_LIN, 1024, 2048, NULL, false },
    [CAL_FIELD_SOFTMAX_WARP] = { "memory_ops.softmax_fwd_warp_ps",
        AT(memop[HW_MEMOP_SOFTMAX].warp_s[0]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_SOFTMAX_WIDE] = { "memory_ops.softmax_fwd_wide_ns",
        AT(memop[HW_MEMOP_SOFTMAX].wide_s[0]), 1e-9, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_SOFTMAX_SCALAR] = { "memory_ops.softmax_fwd_scalar_ps",
        AT(memop[HW_MEMOP_SOFTMAX].scalar_s[0]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_SOFTMAX_SCALAR + 1] = { "memory_ops.softmax_bwd_scalar_ps",
        AT(memop[HW_MEMOP_SOFTMAX].scalar_s[1]), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_ROPE_KNEE] = { "memory_ops.rope_fwd_knee", AT(memop[HW_MEMOP_ROPE].knee[0]),
        1, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_ROPE_KNEE + 1] = { "memory_ops.rope_bwd_knee", AT(memop[HW_MEMOP_ROPE].knee[1]),
        1, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_EMBED_FEW] = { "memory_ops.embedding_bwd_few_ns",
        AT(memop[HW_MEMOP_EMBED].few_index_s), 1e-9, CAL_X_POS, 0, INFINITY, NULL, false },
    [CAL_FIELD_EMBED_FEW + 1] = { "memory_ops.embedding_bwd_few_ps",
        AT(memop[HW_MEMOP_EMBED].few_elem_s), 1e-12, CAL_X_POS, 0, INFINITY, NULL, false },
};
static_assert(CAL_FIELD_COUNT == 11 + 12 * HW_MEMOP_COUNT + 8 + 2 + 9 + 2 + 4 + 2 + 3 + 2 + 3 + 2 + 2 + 2 &&
              HW_MEMOP_COUNT == 11,
              "a fitted field needs its row in cal_fields");

double cal_field_get(const struct hw_system *hw, enum cal_field f)
{
    return *(const double *)((const char *)hw + cal_fields[f].off) /
           cal_fields[f].scale;
}

void cal_field_set(struct hw_system *hw, enum cal_field f, double v)
{
    *(double *)((char *)hw + cal_fields[f].off) = v * cal_fields[f].scale;
}
