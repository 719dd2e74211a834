/* predictor/kernel.h: time of one kernel or one collective on a system.
 * Kernels: roofline (FLOPs over peak x efficiency, bytes over bandwidth x
 * efficiency) shaped by tile and wave quantisation and a saturating
 * efficiency curve in problem size, plus a launch overhead. Collectives:
 * alpha-beta with ring factors, hierarchical over NVLink domains.
 * The efficiency of each kernel class lives in a struct pred_kparams, so a
 * calibrated, shape-dependent fit can replace the defaults taken from the
 * system file without touching the callers. */
#ifndef PRED_KERNEL_H
#define PRED_KERNEL_H

#include <stdint.h>

#include "hardware/hw.h"

struct pred_kparams {           /* one kernel class */
    double peak_flops;          /* FLOP/s at the math precision of the class */
    double eff_max;             /* best achievable fraction of peak */
    double half_flop;           /* FLOPs at which efficiency is half of eff_max */
    double log_mnk[3];          /* a GEMM's time x (M/4096)^a (N/4096)^b
                                 * (K/4096)^c (hw gemm_log; 0: none) */
};

struct pred_kernels {           /* built once per (system, precision); read-only */
    struct pred_kparams gemm;   /* dense GEMMs of the layer, forward */
    struct pred_kparams gemm_bwd;   /* their data- and weight-gradient GEMMs */
    struct pred_kparams gemm16, gemm16_bwd; /* the same in 16 bits whatever the
                                               job's precision: the LM head */
    struct pred_kparams attn;   /* attention core (flash), forward */
    struct pred_kparams attn_bwd;
    double mem_bytes_per_s;     /* achievable HBM bandwidth, elementwise kernels */
    double norm_bytes_per_s;    /* the same for layer / RMS norms */
    double hbm_bytes_per_s;     /* peak HBM bandwidth (the fits' shares are of it) */
    double launch_s;
    bool has_memops;            /* per-operator memory-bound fits (hw memory_ops) */
    double memop_bytes_per_s[HW_MEMOP_COUNT][2], memop_floor_s[HW_MEMOP_COUNT][2];
    double memop_log_row[HW_MEMOP_COUNT][2];
    double memop_log_size[HW_MEMOP_COUNT][2];   /* the norm's, in log traffic */
    double memop_row_s[HW_MEMOP_COUNT][2];      /* per padded row element */
    double memop_row0_s[HW_MEMOP_COUNT][2];     /* per row */
    double memop_short_bytes_per_s[HW_MEMOP_COUNT][2];  /* rows on the warp path; 0: none */
    double memop_warp_row[HW_MEMOP_COUNT][2];   /* the warp path's longest row */
    double memop_warp_s[HW_MEMOP_COUNT][2];     /* its per padded element */
    double memop_wide_s[HW_MEMOP_COUNT][2];     /* per wide row (register kernel) */
    double memop_scalar_s[HW_MEMOP_COUNT][2];   /* per scalar-epilogue element */
    double memop_knee[HW_MEMOP_COUNT][2];       /* host / GPU soft maximum */
    double embed_few_index_s, embed_few_elem_s; /* the feature kernel's */
    bool memop_fitted[HW_MEMOP_COUNT];
    bool has_flash;             /* FlashAttention-2 fit (hw attention group) */
    struct hw_flash_fit flash;
    bool has_bgemm;             /* batched-GEMM fit (hw batched_gemm group) */
    struct hw_bgemm_fit bgemm;
    int64_t tile_m, tile_n, sms;
    double tile_k;              /* a tile's K step (hw; >= 1) */
    double gemm_fill_k;         /* a tile's fixed cost in K steps (hw) */
    double sample_gap_s;        /* calibrate only (hw.h) */
    /* links: achievable bus bandwidth and per-hop latency */
    double intra_bytes_per_s, intra_lat_s;
    double pair_bytes_per_s;    /* achievable between two GPUs of a domain */
    double p2p_intra_scale, p2p_inter_scale;    /* a send's share of the pair
                                 * and NIC rates over the collectives' (1: same) */
    double ag_intra_scale, ag_inter_scale;  /* the same for all-gather and
                                 * reduce-scatter (efficiency.allgather_*) */
    double inter_bytes_per_s, inter_lat_s;
    double host_bytes_per_s;    /* achievable GPU <-> host, per direction
                                 * (0: the system says no host link) */
    double nic_exp;             /* k GPUs of a node: k^nic_exp NIC rates
                                 * (network.nic_exp; 0 reads as 1) */
    double coll_base_s;
    double p2p_base_s;          /* a send's fixed cost (kernel.p2p_base_us) */
    int64_t domain;             /* GPUs per NVLink domain */
};

enum pred_gemm_prec {
    PRED_GEMM_16BIT,
    PRED_GEMM_FP8,              /* current / MXFP8 scaling: gemm_fp8_cs */
    PRED_GEMM_FP8_DELAYED,      /* delayed scaling: gemm_fp8 */
};

/* Kernel parameters for 'hw' with GEMMs in 16-bit or FP8 (attention stays
 * 16-bit, as Transformer Engine's FP8 recipes run it). */
void pred_kernels_init(struct pred_kernels *k, const struct hw_system *hw,
                       enum pred_gemm_prec prec);

/* Tile x wave quantisation efficiency in (0, 1] of an M x N output
 * (NVIDIA "Matrix Multiplication Background" user guide, sections on tile and
 * wave quantisation). */
double pred_quant_eff(const struct pred_kernels *k, double m, double n);
/* K as a tile's mainloop runs it: whole K steps of k->tile_k, the depth
 * of the A and B slices one pipeline stage loads (cuBLAS's kernel names
 * carry it: Ampere "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_
 * 32x5_nn" steps 32 of K over 5 stages, "..._stages_64x3" 64; Hopper
 * "sm90_xmma_gemm_f16f16_..._tilesize128x128x64_..." 64, one 128-byte
 * swizzled TMA row of 16-bit elements). A step is loaded and multiplied
 * whole, its tail zero-filled, so K = 80 costs a 64-deep kernel two
 * steps, as K = 128. */
double pred_k_steps(const struct pred_kernels *k, double kk);

/* Saturating efficiency: eff_max * W / (W + half_flop). */
double pred_sat_eff(const struct pred_kparams *p, double flops);

/* C[M,N] = A[M,K] B[K,N] with 'in_bytes' per input element, under the
 * GEMM class p (k->gemm forward, k->gemm_bwd for gradients): the padded
 * work of whole waves of output tiles (pred_quant_eff), each tile's
 * mainloop K steps plus gemm_fill_k more (the fixed cost of a tile: the
 * multistage mainloop's prologue, which loads stages - 1 K tiles before
 * the first MMA, and the epilogue's store of the tile, CUTLASS
 * include/cutlass/gemm/threadblock/mma_multistage.h and epilogue/; the
 * share of a small-K GEMM's time it takes), at the saturating efficiency,
 * against the traffic. An output of fewer tiles than SMs with a long K is
 * split along K over the idle SMs, as cuBLAS's split-K / stream-K kernels
 * do (CUTLASS GemmSplitKParallel; Osama et al., "Stream-K", PPoPP 2023):
 * the fastest of 1, 2, 4, ... splits while the split tiles fill at most
 * one wave (the library's heuristic picks a split count; the fixed fill
 * per tile and the fp32 partials' traffic, written and read once more,
 * are what stop it splitting further). A class with a correction in log
 * space (log_mnk: the gradient GEMMs', hw gemm_bwd_log, fitted by
 * calibrate where the tiles, waves and splits leave structured residuals,
 * issue 15) multiplies the time by (M/4096)^a (N/4096)^b (K/4096)^c, each
 * side held inside [2^7, 2^16] (the sampled sides: no extrapolated
 * drift), and never goes under 2 M N K at the class's efficiency (no
 * correction takes a GEMM past its fitted rate, itself capped at the
 * GPU's measured maximum). */
double pred_gemm_s(const struct pred_kernels *k, const struct pred_kparams *p,
                   double m, double n, double kk, double in_bytes);
/* A layer GEMM both ways: forward C[m, n] = X[m, kk] W[kk, n] (k->gemm),
 * backward dX = dC W^T and dW = X^T dC (k->gemm_bwd); *dgrad gets dX's
 * time added (TP overlap pairs with it: tpo.c). */
void pred_gemm_fb(const struct pred_kernels *k, double m, double n, double kk,
                  double in_bytes, double *fwd, double *bwd, double *dgrad);
/* The K splits pred_gemm_s runs that GEMM in (1: none); a split GEMM is
 * two kernels, the partial products and their reduction. */
double pred_gemm_splits(const struct pred_kernels *k, const struct pred_kparams *p,
                        double m, double n, double kk, double in_bytes);
/* 'batch' independent GEMMs of that shape in one kernel (cuBLAS strided
 * batched: baddbmm, bmm): the tiles of every GEMM share the waves, so
 * quantisation counts batch x tiles against the SMs. Also the grouped
 * GEMM's form: experts as the batch. With the system's batched-GEMM fit
 * (hw batched_gemm), the kernel as its tiles run it: the mainloop's math
 * (2 K FLOPs per covered output element, every wave whole, at eff x peak)
 * and the HBM traffic (each operand and the output once, and an operand
 * larger than the output, which no L2 holds, streamed again for every
 * further column of output tiles at the fitted miss share) at io_eff x
 * peak HBM, the longer of the two plus the overlap share of the shorter
 * (a non-persistent kernel's tile reads its panels, then writes its
 * epilogue: the two overlap only across tiles); kind HW_BGEMM_OUT when
 * K <= N (attention's QK^T, dO V^T: the l x l scores written), else
 * HW_BGEMM_IN (P V, dS K, P^T dO: the scores read). NVIDIA "Matrix
 * Multiplication Background" user guide (tiles, waves, arithmetic
 * intensity); CUTLASS's threadblock tile rasterisation for the re-reads. */
double pred_bgemm_s(const struct pred_kernels *k, const struct pred_kparams *p,
                    double batch, double m, double n, double kk, double in_bytes);
/* The unfused attention's two batched GEMMs (Megatron's baddbmm QK^T and
 * bmm PV over b x heads of an s x s score matrix of head dim d), forward
 * (bwd 0: the two GEMMs) or backward (bwd 1: the four gradient GEMMs,
 * dS K and Q^T dS for baddbmm, dO V^T and P^T dO for bmm), 16-bit, as the
 * batched-GEMM fit times them (pred_bgemm_s under the attention class). */
double pred_unfused_bmm_s(const struct pred_kernels *k, int bwd, double heads_b,
                          double s, double d);
/* A compute kernel of 'flops' moving 'bytes', under class p. */
double pred_compute_s(const struct pred_kernels *k, const struct pred_kparams *p,
                      double flops, double bytes);
/* A memory-bound kernel moving 'bytes' in 'launches' kernels; norms have
 * their own achievable bandwidth (reductions over the row). */
double pred_mem_s(const struct pred_kernels *k, double bytes, double launches);
double pred_norm_s(const struct pred_kernels *k, double bytes, double launches);

/* 'calls' instances of a memory-bound operator moving 'bytes' in all
 * (direction bwd 0 or 1): with the system's fit of that operator,
 * calls x floor + bytes / achieved bandwidth, the floor being the time of a
 * call too small to stream (launch, the row reductions' synchronisation);
 * achieved bandwidth bytes / t then rises with size towards eff x peak
 * (NVIDIA CUDA C++ Best Practices Guide, "Effective Bandwidth
 * Calculation"). Without a fit: pred_norm_s / pred_mem_s with 'launches'. */
double pred_memop_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                    double bytes, double calls, double launches);
/* The same with the bandwidth term times max(0.1, 1 + log_row x
 * ln(bytes / 100 MB)): achieved bandwidth that changes with the traffic
 * (the eager operators' small tensors sit in L2, large ones stream; the
 * correction in log size the "cache-resident regime" asks for,
 * fitted, 0 without a fit; 100 MB the middle of the sampled traffic). An
 * operator without a fit of its own: pred_mem_s with 'launches'. */
double pred_memop_size_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double calls, double launches);
/* An eager operator timed on its own, one Python-level call issuing its
 * kernels: the host's time H (floor_s: the call's interpreter and launch
 * overhead) against the GPU's, G = bytes / (eff x hbm_tbps) + 'extra'
 * elements (the rotary's cos / sin tables) at row_s each, combined as the
 * soft maximum (H^p + G^p)^(1/p), p = knee: the host sets the pace while
 * its kernels are short, the GPU once they are long, and kernels of
 * different sizes cross over one at a time, which rounds the corner (p
 * large: the hard max; 1: the sum; held to [0.5, 50]). The published rotary samples (a
 * TorchScript apply_rotary_pos_emb, GPT-NeoX's form, timed per call) spend
 * ~270 us (A100, GH200) and 30-60 us (H100, H200 eager) on the host below
 * ~2^22 elements. Without a knee: pred_memop_size_s with one call. For the
 * sample fit (calibrate) only: inside a training step the host runs ahead
 * of the GPU and the stack's host model (predictor/host.c, job host_s)
 * times what is left. */
double pred_memop_knee_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double extra);
/* The soft maximum (a^p + b^p)^(1/p) of two non-negative times, p held to
 * [0.5, 50] (pred_memop_knee_s); p <= 0: the hard maximum. */
double pred_soft_max(double a, double b, double p);
/* The knee of a Python-issued kernel sequence on this system, direction
 * bwd: the eager rotary samples' (memory_ops.rope_fwd_knee / _bwd_knee,
 * the one sampled operator that is such a sequence timed whole); 0 (the
 * hard maximum) without that fit. predictor/pred.c host_wait. */
double pred_host_knee(const struct pred_kernels *k, int bwd);
/* The same over rows of 'row' elements: the bandwidth term times
 * max(0.1, 1 + log_row x ln(row / 4096)), a correction in log row length
 * (the norms' per-row reductions deepen with the row; fitted, 0 without a
 * fit; 4096 the middle of the sampled hidden sizes). */
double pred_memop_row_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                        double bytes, double calls, double launches, double row);

/* A row softmax over 'rows' rows of 'row' elements moving 'bytes' in all:
 * floor + bytes / achieved bandwidth + rows x (row0 + next_pow2(row) x
 * row_s), row0 the fixed latency of a row's reductions. One
 * thread block per row (PyTorch's cunn_SoftMaxForward / Backward: a block
 * of the power of two >= row / 8 threads, 8 halves per thread, so one
 * pass covers next_pow2(row) elements; Megatron's
 * scaled_upper_triang_masked_softmax: a warp per row over next_pow2(row)
 * elements, WARP_ITERATIONS = next_pow2 / 32) holds its threads for the
 * row's reductions whatever the row's real length, so the SMs run
 * rows x next_pow2(row) element slots at a fitted rate (Little's law: the
 * threads resident per SM bound the rows in flight); PyTorch 2.1 and later
 * launch min(row, 1024) threads instead, a fixed cost per row: the fit
 * takes whichever the samples show. The slot term is multiplied by
 * (next_pow2(row) / 1024)^g, g = log_row clamped to [-1, 1]: a longer
 * padded row holds more registers per thread (Megatron keeps
 * WARP_ITERATIONS = next_pow2 / 32 elements per thread in registers), so
 * fewer rows are resident per SM and each slot costs more; g = 1 is the
 * latency-bound limit (half the rows in flight per doubling), g = 0 a
 * slot cost independent of occupancy (fitted, 0 without); held at its
 * value for 2048, the longest row sampled (no extrapolated occupancy
 * loss). A row of at most warp_row elements (1024 unless the fit says
 * otherwise) where the fit has a short-row share runs PyTorch's persistent
 * warp softmax (PersistentSoftmax.cuh dispatch_softmax_forward: the row in
 * registers, no block reduction): floor + bytes at that share + rows x
 * next_pow2(row) x (next_pow2(row) / 1024) x warp_s (a warp holds
 * next_pow2(row) / 32 values a thread, so a longer padded row costs its
 * slots and occupancy both). From PyTorch 2.7 (pull request #144679,
 * SoftMax.cu host_softmax) the forward takes that path up to 2048 16-bit
 * elements (dim_size <= 2048 and dim_size x sizeof <= 8192) and beyond it
 * cunn_SoftMaxForwardReg, one block of min(row, 1024) threads a row
 * (SoftMaxForward_getBlockSize) each holding ceil(row / 1024) values in
 * registers (potential_register_count < 10): warp_row above 1024 selects
 * that dispatch, the padded row is then 1024 ceil(row / 1024) (held at
 * 8192, the longest sampled, in the occupancy term) and a row of 7 or more
 * values a thread pays wide_s more (the H100 and H200 samples step there,
 * 6656-8192 elements 25-30 % under the bandwidth of 6144; read as an
 * occupancy step of the 1024-thread block). Rows of 10240 and more leave
 * the register kernel for PyTorch's shared-memory or two-pass block
 * kernels, beyond the samples: they keep its form. PyTorch's block
 * kernels (cunn_SoftMaxForward before 2.7, cunn_SoftMaxBackward in all)
 * read and write a row in vectors of ILP = 8 16-bit elements over chunks
 * of ILP x block, and the rest of the row, row mod (ILP x block), one
 * element a thread (SoftMax.cu ilpReduce and WriteFpropResults /
 * WriteBpropResults: "last = size % (ILP * blockDim.x)", the epilogue
 * loop), block the power of two >= min(row / ILP, 1024) / 2, at least a
 * warp (SoftMax_getBlockSize, "keep >= 1/2 of the buffer vectorised"):
 * those elements cost scalar_s each more (rows of 1536, 2560, 3072, 3584,
 * 4608 and 5120 run a third to a ninth of the row so; the A100 samples'
 * non-power-of-two rows 4.6-4.9 ps an element against 3.5 for 2048 and
 * 4096). Without a fit of the operator: pred_mem_s with 'launches'. */
double pred_memop_rows_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double rows, double row, double launches);

/* The embedding lookup over 'tokens' indices into a table of 'rows' rows
 * of 'row' elements: forward (bwd 0) the gather moving 'bytes', half read
 * and half written (pred_memop_size_s); where the fit has a forward row
 * term (row_s[0]), only the touched rows' first reads and the writes
 * stream from HBM, and each repeated index re-reads its row from L2 at
 * row_s a element (an index drawn again finds its row cached: the
 * H100's tensor-parallel tables of 6-25 K rows run the gather 12 % faster
 * than the full vocabulary's 50 K); backward the gradient's scatter-add, 'bytes' of
 * gradient and 'table_bytes' of table. PyTorch runs one of two backward
 * kernels (aten/src/ATen/native/cuda/Embedding.cu,
 * embedding_dense_backward_cuda): at most 3072 indices, a direct kernel
 * over the gradient's features (embedding_backward_feature_kernel) after
 * the table's zeroing: two launches, the table's bytes at the fit's
 * few-index share (short_eff) and tokens x (few_index + row x few_elem):
 * a block of 32 x 32 threads per 32 features walks every index in turn,
 * so its time grows with the indices, the blocks with the row (waves of
 * them over the SMs); without those two terms, the gradient's bytes at
 * the few-index share too; more, the
 * table zeroed, the indices sorted, partial sums per segment of equal
 * indices and their sum scattered into the rows touched
 * (EmbeddingBackwardKernel.cu: compute_grad_weight, sum_and_scatter):
 * floor + table bytes at the fit's share + tokens x row x row_s (the
 * gradient's rows read) + touched x row x row0_s (a partial sum and a
 * scatter per distinct row: latency-bound, scattered rows), touched =
 * rows (1 - e^(-tokens / rows)), the distinct rows of uniformly drawn
 * indices (the samples' torch.randint; text's skewed ids touch fewer).
 * Without the fit (or its backward terms): pred_memop_size_s of both byte
 * counts with 'launches' 2. */
double pred_embed_s(const struct pred_kernels *k, int bwd, double bytes,
                    double table_bytes, double tokens, double rows, double row);

/* One optimizer step over a stage's 'params' parameters in 'tensors'
 * parameter tensors, moving 'bytes' in all. With the system's step fit
 * (memory_ops.optimizer_fwd_row_ns / _row_ps, the "rows" here being the
 * parameter tensors): floor + tensors x row0 + params x row_s. The
 * multi-tensor Adam (DeepSpeed FusedAdam, csrc/adam/multi_tensor_adam.cu
 * through multi_tensor_apply) streams every element in one pass, but its
 * step() first walks the parameter list in Python, one tensor at a time
 * (state lookup, the lists of p, g, m, v; on a first step two zeros_like
 * state allocations and fills per tensor: deepspeed/ops/adam/fused_adam.py):
 * a host cost per tensor that the device waits on when the tensors are
 * small, then a cost per element (the states' traffic). Without that fit:
 * pred_memop_size_s of the bytes with 'launches'. */
double pred_optim_s(const struct pred_kernels *k, double bytes, double params,
                    double tensors, double launches);

/* One FlashAttention-2 call (predictor/flash.c): b sequences of 'heads'
 * heads, lq queries against lk keys of head dim d, causal or not. */
struct pred_flash_shape {
    double b, heads, lq, lk, d;
    bool causal;
    double share;               /* of the (causal) work done: sliding windows;
                                 * 0 or 1: all of it */
    double io_bytes;            /* q, k, v, o: the roofline's memory side
                                 * when the system has no flash fit */
};
/* Forward (bwd 0) or backward (bwd 1) time. With the system's fit: block
 * tiling on the real SM count (128-row blocks of queries forward, of keys
 * backward, one block per SM at a time, whole waves), the head dim padded
 * to the kernel's template (multiples of 32), the matmul FLOPs (4 lq lk d
 * forward, 2.5x backward; half the blocks and the diagonal when causal) at
 * the attention efficiency, plus the non-matmul work per score element
 * (softmax exponentials: FlashAttention-3, Shah et al. 2024, sec. 3.1);
 * FlashAttention-2 (Dao 2023) sec. 3 for the FLOPs and the tiling.
 * Without a fit: the roofline of pred_compute_s. */
double pred_flash_s(const struct pred_kernels *k, int bwd,
                    const struct pred_flash_shape *sh);

/* ---- collectives (NCCL conventions: S is the whole buffer in bytes) ---- */

enum pred_coll { PRED_COLL_ALLREDUCE, PRED_COLL_ALLGATHER,
                 PRED_COLL_REDUCESCATTER, PRED_COLL_COUNT };

/* A collective over n ranks, k of them in each NVLink domain (n/k domains).
 * All-gather and reduce-scatter run at their own achieved shares of the
 * links where the system has them (efficiency.allgather_nvlink /
 * allgather_network, fitted on the all-gather samples; NCCL's ring
 * reduce-scatter moves the same (n-1)/n S per rank in the same n-1 steps
 * as its all-gather, nccl-tests doc/PERFORMANCE.md, so it takes the
 * all-gather's share: no reduce-scatter samples are published).
 * Inside a domain a GPU reaches its k-1 peers at the pair bandwidth each,
 * up to its whole NVLink bandwidth (all of it at once behind NVSwitch; on
 * fully connected boards, Perlmutter's A100s or MI300X, a pair gets a share).
 * Ring bus factors: all-reduce 2(n-1)/n, all-gather / reduce-scatter
 * (n-1)/n (NCCL tests PERFORMANCE.md). Hierarchical across domains: the
 * intra-domain stage over k ranks moves S, the inter-domain stage over n/k
 * domains moves S/k per GPU on every GPU's own NIC. */
double pred_coll_s(const struct pred_kernels *k, enum pred_coll c, double bytes,
                   int64_t n, int64_t per_domain);
/* One point-to-point send of 'bytes' inside a domain or across: per-hop
 * latency plus the bytes at the send's own achieved share of the pair or
 * NIC rate (efficiency.p2p_nvlink / p2p_network, fitted on the p2p
 * samples; the collectives' shares without them). */
double pred_p2p_s(const struct pred_kernels *k, double bytes, int inter);

#endif /* PRED_KERNEL_H */
