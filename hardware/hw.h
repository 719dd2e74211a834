/* hardware/hw.h: a system (GPU, node, network, achievable efficiencies, kernel
 * shape parameters, memory reserve, price) as a system file describes it
 * (hardware/README.md), with its libconfig loader. Values are stored in SI
 * units (FLOP/s, bytes, bytes/s, seconds) once loaded. */
#ifndef HW_H
#define HW_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

/* Memory-bound operators with a fitted model of their own (optional group
 * memory_ops of a system file): time = floor + bytes / (eff x hbm_tbps),
 * forward and backward, bytes as predictor/kernel.h counts them. The first
 * three are required in the group; the others (the rest of the kernel
 * samples: eager RMSNorm and rotary, softmax, Megatron's fused masked
 * softmax, masked fill, embedding, cross-entropy, optimizer step) each
 * optional, an operator without a fit borrowing the generic model. */
enum hw_memop { HW_MEMOP_GELU, HW_MEMOP_RESADD, HW_MEMOP_NORM,
                HW_MEMOP_RMSNORM, HW_MEMOP_ROPE, HW_MEMOP_SOFTMAX,
                HW_MEMOP_MASKED_SOFTMAX, HW_MEMOP_FILLMASK, HW_MEMOP_EMBED,
                HW_MEMOP_XENT, HW_MEMOP_OPTIM, HW_MEMOP_COUNT };
#define HW_MEMOP_REQUIRED 3     /* gelu, res_add, layernorm */
/* The most of peak HBM bandwidth a kernel has been measured to stream:
 * ~90 % on H100 and H200 (device-to-device copy, read and write counted)
 * and FlashMLA's decode kernel on H800 (hardware-facts.md sec. 6.2);
 * calibrate flags a fitted memory-bound share above it. */
#define HW_HBM_MAX_SHARE 0.90

struct hw_memop_fit {
    bool fitted;                /* given in the file (always for the first 3) */
    double eff[2];              /* achieved share of hbm_tbps, fwd and bwd */
    double floor_s[2];          /* fixed cost per kernel call, fwd and bwd */
    double log_row[2];          /* the bandwidth term grows by 1 + log_row x
                                 * ln(size), size the operator's row or
                                 * traffic over its reference (0: flat) */
    double row_s[2];            /* a row softmax's time per padded row
                                 * element, the whole GPU (rows x
                                 * next_pow2(row) x row_s; 0: none) */
    double row0_s[2];           /* and per row, whatever its length */
    double short_eff[2];        /* achieved share of hbm_tbps when a row of
                                 * at most warp_row (1024 unless given)
                                 * elements runs one warp per row
                                 * (PyTorch's persistent softmax; 0: none) */
    double log_size[2];         /* the layer norm's second correction, in
                                 * its traffic: + log_size x ln(bytes /
                                 * 100 MB) beside its row term (0: none) */
    double warp_row[2];         /* the longest row the warp-per-row kernel
                                 * takes: 1024 (0: so), or 2048, PyTorch
                                 * 2.7's softmax forward, with the register
                                 * kernel beyond it (kernel.h
                                 * pred_memop_rows_s; only the softmax
                                 * forward's is read from a file) */
    double warp_s[2];           /* the warp path's time per padded element
                                 * x (padded / 1024), the whole GPU */
    double wide_s[2];           /* the register kernel's time per row once
                                 * a thread holds 7 or more of its values */
    double knee[2];             /* the eager rotary's samples: the exponent
                                 * of the soft maximum of the host's time
                                 * (floor_s) and the GPU's (kernel.h
                                 * pred_memop_knee_s; 0: none) */
    double few_index_s;         /* the embedding backward's feature kernel
                                 * (at most 3072 indices, kernel.h
                                 * pred_embed_s): time per index and per */
    double few_elem_s;          /* index element (0, 0: the gradient's bytes
                                 * at the few-index share instead) */
    double scalar_s[2];         /* PyTorch's block softmax: time per element
                                 * of a row's scalar epilogue, past its
                                 * last whole chunk of 8 x block (kernel.h
                                 * pred_memop_rows_s; the softmax's only) */
};

/* FlashAttention-2 fitted on its samples (optional group attention of a
 * system file; predictor/flash.c pred_flash_s): per direction the
 * non-matmul time per score element, the head-dim slope of the matmul
 * time, the extra matmul share of a head dim that is no kernel template,
 * and the fixed cost per call. */
struct hw_flash_fit {
    double softmax_s[2];        /* per score element, the whole GPU */
    double log_d[2];            /* matmul time x (1 + log_d ln(d / 256)) */
    double uneven[2];           /* matmul time x (1 + uneven), d not a template */
    double floor_s[2];
};

/* The batched GEMMs of unfused attention (cuBLAS strided batched: baddbmm
 * QK^T, bmm PV and their gradients; optional group batched_gemm of a system
 * file; predictor/kernel.c pred_bgemm_s), per kind: [0] output-bound (the
 * inner dimension K no larger than the output's N: the scores written),
 * [1] operand-bound (K above N: the scores read as an operand, once per
 * column of output tiles). */
enum { HW_BGEMM_OUT, HW_BGEMM_IN, HW_BGEMM_KINDS };
struct hw_bgemm_fit {
    double eff[HW_BGEMM_KINDS];     /* mainloop share of 16-bit peak (<= gemm_max) */
    double io_eff[HW_BGEMM_KINDS];  /* achieved share of hbm_tbps of the traffic */
    double overlap[HW_BGEMM_KINDS]; /* share of the shorter of math and traffic
                                     * not hidden under the longer, [0, 1] */
    double log_size[HW_BGEMM_KINDS];    /* time x (1 + this x ln(outputs /
                                     * 2^28)): the rate's drift with the
                                     * problem's size, [-0.5, 0.5] */
    double reread;                  /* share of a re-read of the large operand
                                     * (kind IN) that reaches HBM, [0, 1] */
};

struct hw_system {              /* a plain value: nothing to free */
    char name[64];
    char description[200];
    char calibration[160];      /* where the efficiencies come from; "": the
                                 * system's own samples or sourced figures */
    char gpu_name[64];
    char gpu_arch[16];          /* gpu.arch, its architecture ("" when the
                                 * file names none): a stack's band is
                                 * validated on some (predictor/pred.c
                                 * pred_band_outside) */
    /* gpu */
    double bf16_flops, fp16_flops, fp8_flops;  /* dense peak, FLOP/s; fp8 0: none */
    double hbm_bytes;                          /* capacity */
    double hbm_bytes_per_s;                    /* peak bandwidth */
    int64_t sms;
    double tdp_w;
    /* node */
    int64_t gpus_per_node;
    int64_t nvlink_domain;                     /* GPUs in one NVLink/IF domain */
    double nvlink_bytes_per_s;                 /* per GPU, per direction */
    double nvlink_pair_bytes_per_s;            /* between two GPUs (switched: all of it) */
    double nvlink_latency_s;
    double host_bytes_per_s;                   /* GPU <-> host memory (PCIe,
                                                * NVLink-C2C), per GPU, per
                                                * direction (optional: 0, no
                                                * host link said: no
                                                * optimizer offload) */
    double host_mem_bytes_per_s;               /* the node's host memory (all
                                                * sockets), which its GPUs'
                                                * copies share both ways
                                                * (optional: 0, no cap) */
    /* network */
    double nic_bytes_per_s;                    /* per GPU, per direction */
    double net_latency_s;
    double net_nic_exp;         /* k GPUs of a node reach k^nic_exp NIC
                                 * rates together (optional: 1) */
    /* efficiency; the _bwd and norm ones are optional in the file and
     * default to their forward / elementwise counterparts */
    double eff_gemm, eff_gemm_bwd, gemm_half_flop, eff_attn, eff_attn_bwd;
    double gemm_bwd_log[3];     /* the gradient GEMMs' correction in log M,
                                 * N, K (optional: 0; predictor/kernel.h
                                 * pred_gemm_s) */
    double eff_gemm_fp8;        /* FP8 GEMM efficiency relative to 16-bit (1: same) */
    double eff_gemm_fp8_cs;     /* the same with current / MXFP8 scaling
                                   (job.fp8_delayed false; absent: gemm_fp8) */
    double eff_max;             /* measured maximum share of 16-bit peak (MAMF);
                                 * no compute efficiency exceeds it */
    double eff_hbm, eff_norm, eff_nvlink, eff_net;
    double eff_p2p_nvlink, eff_p2p_net;    /* point-to-point sends (optional:
                                 * the collectives' nvlink / network) */
    double eff_host;            /* achieved share of host_bytes_per_s
                                 * (optional: 1) */
    double eff_ag_nvlink, eff_ag_net;      /* all-gather and reduce-scatter
                                 * (optional: the all-reduce's nvlink /
                                 * network) */
    bool has_memops;            /* memory_ops given: memop[] holds the fits */
    struct hw_memop_fit memop[HW_MEMOP_COUNT];
    bool has_flash;             /* attention given: flash holds the fit */
    struct hw_flash_fit flash;
    bool has_bgemm;             /* batched_gemm given: bgemm holds the fit */
    struct hw_bgemm_fit bgemm;
    /* kernel */
    double launch_s;
    int64_t tile_m, tile_n;
    int64_t tile_k;             /* a tile's K step: K runs in whole steps
                                 * (1 when absent: none; predictor/kernel.h
                                 * pred_k_steps) */
    double gemm_fill_k;         /* a GEMM tile's fixed cost (mainloop
                                 * prologue, epilogue) in K steps (0: none;
                                 * predictor/kernel.h pred_gemm_s) */
    double sample_gap_s;        /* calibrate only: the profiled samples'
                                 * host gap between a backward's kernels */
    double collective_base_s;
    double p2p_base_s;          /* a send's fixed cost (optional: 0) */
    bool calibrated;            /* false: the efficiencies are modelling
                                   defaults (efficiency.calibrated = false) */
    bool net_from_runs;         /* efficiency.network_from_runs: no source
                                   measures the fabric, so its share (network,
                                   for every inter-node collective and send)
                                   is fitted on published runs
                                   (fidelity/tune.c) */
    double clock;               /* efficiency.clock: the sustained tensor-core
                                   clock relative to the GPU whose fits the
                                   compute shares are (a lower power limit;
                                   default 1): every compute-bound kernel
                                   takes 1 / clock as long (predictor/
                                   kernel.c compute_params) */
    bool clock_from_runs;       /* efficiency.clock_from_runs: no source
                                   gives that clock, so it is fitted on
                                   published runs (fidelity/tune.c) */
    /* memory, price */
    double reserve_bytes;
    double usd_per_gpu_hour;
    /* reliability: the optional section; defaults and sources in hw.c */
    double gpu_mtbf_s;          /* mean time between job interruptions, per GPU */
    double storage_bytes_per_s; /* checkpoint write bandwidth of the job */
    double restart_s;           /* from an interruption to training again */
    /* power: the optional section; defaults and sources in hw.c */
    double gpu_busy_frac;       /* board draw computing, share of tdp_w */
    double gpu_idle_frac;       /* board draw waiting (communication, bubble) */
    double node_w;              /* the node's rated power; 0: not given */
    double node_train_frac;     /* its measured draw training, share of node_w */
};

extern const struct conf_preset hw_presets[];
extern const size_t hw_presets_count;

/* Section names a --set may address in a system file. */
extern const char *const hw_sections[];
/* The memory_ops field of each operator and direction: "gelu_fwd" (its
 * efficiency) and "gelu_fwd_floor_us". */
extern const char *const hw_memop_names[HW_MEMOP_COUNT];

/* Load a preset name or a path, apply the --set assignments whose section is
 * one of hw_sections, validate. 0 or TPL_ECONFIG / TPL_EIO / TPL_EUSAGE. */
int hw_system_load(struct hw_system *hw, const char *name_or_path,
                   const char *const *sets, int n_sets, struct tpl_err *err);
int hw_system_read(struct hw_system *hw, const struct conf *c,
                   struct tpl_err *err);
bool hw_is_section(const char *section);

/* A fabric's share fitted on runs (efficiency.network_from_runs;
 * fidelity/tune.c): the one share of every inter-node collective and send,
 * the all-reduces', the all-gathers' and the sends' alike (hw.c). */
void hw_set_network_share(struct hw_system *h, double share);
/* A power-limited GPU's clock fitted on runs (efficiency.clock_from_runs;
 * fidelity/tune.c). */
void hw_set_clock(struct hw_system *h, double clock);

/* What one GPU copies to or from host memory per second, its link's
 * achievable rate 'link', while the plan's 'gpus' (at most a node's) copy
 * both ways through the node's host memory at once (hw.c). */
double hw_host_copy_bytes_per_s(const struct hw_system *h, double link,
                                int64_t gpus);

#endif /* HW_H */
