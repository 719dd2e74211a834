/* predictor/kernel.c: kernel and collective time models (see kernel.h). */
#include "predictor/kernel.h"

#include <math.h>

/* GEMMs at the job's precision (FP8 where the GPU has it), and the
 * attention core, always in 16 bits. The tensor cores' rate is the spec
 * peak at the sustained clock of the fits' GPU times the system's clock
 * (hw.h: a lower power limit), so every compute-bound kernel (GEMMs,
 * batched and grouped GEMMs, flash attention's matmuls) takes 1 / clock as
 * long; MFU stays against the spec peak (pred.c). */
static void compute_params(struct pred_kernels *k, const struct hw_system *hw,
                           enum pred_gemm_prec prec)
{
    double peak16 = hw->bf16_flops * hw->clock;
    bool fp8 = prec != PRED_GEMM_16BIT && hw->fp8_flops > 0;
    k->gemm.peak_flops = fp8 ? hw->fp8_flops * hw->clock : peak16;
    k->gemm.eff_max = hw->eff_gemm;
    k->gemm.half_flop = hw->gemm_half_flop;
    k->gemm_bwd = k->gemm;
    k->gemm_bwd.eff_max = hw->eff_gemm_bwd;
    for (int i = 0; i < 3; i++)
        k->gemm.log_mnk[i] = 0, k->gemm_bwd.log_mnk[i] = hw->gemm_bwd_log[i];
    k->gemm16 = k->gemm;
    k->gemm16_bwd = k->gemm_bwd;
    k->gemm16.peak_flops = k->gemm16_bwd.peak_flops = peak16;
    if (fp8) {
        /* FP8 GEMMs reach a smaller share of their (doubled) peak: the
         * fitted 16-bit efficiencies times gemm_fp8, the ratio of the
         * measured FP8 and BF16 large-GEMM shares of peak (delayed
         * scaling), or gemm_fp8_cs with current / MXFP8 scaling, whose
         * per-GEMM amax or block-scale passes it carries (fidelity/tune.c) */
        double r = prec == PRED_GEMM_FP8_DELAYED ? hw->eff_gemm_fp8
                                                 : hw->eff_gemm_fp8_cs;
        k->gemm.eff_max = fmin(1.0, hw->eff_gemm * r);
        k->gemm_bwd.eff_max = fmin(1.0, hw->eff_gemm_bwd * r);
    }
    k->attn.peak_flops = peak16;
    k->attn.eff_max = hw->eff_attn;
    k->attn.half_flop = hw->gemm_half_flop;
    k->attn.log_mnk[0] = k->attn.log_mnk[1] = k->attn.log_mnk[2] = 0;
    k->attn_bwd = k->attn;
    k->attn_bwd.eff_max = hw->eff_attn_bwd;
}

/* NVLink inside a domain, the NIC across domains. */
static void link_params(struct pred_kernels *k, const struct hw_system *hw)
{
    k->intra_bytes_per_s = hw->nvlink_bytes_per_s * hw->eff_nvlink;
    k->pair_bytes_per_s = hw->nvlink_pair_bytes_per_s * hw->eff_nvlink;
    k->intra_lat_s = hw->nvlink_latency_s;
    k->inter_bytes_per_s = hw->nic_bytes_per_s * hw->eff_net;
    k->p2p_intra_scale = hw->eff_p2p_nvlink / hw->eff_nvlink;
    k->p2p_inter_scale = hw->eff_p2p_net / hw->eff_net;
    k->ag_intra_scale = hw->eff_ag_nvlink / hw->eff_nvlink;
    k->ag_inter_scale = hw->eff_ag_net / hw->eff_net;
    k->inter_lat_s = hw->net_latency_s;
    k->host_bytes_per_s = hw->host_bytes_per_s * hw->eff_host;
    k->nic_exp = hw->net_nic_exp;
    k->coll_base_s = hw->collective_base_s;
    k->p2p_base_s = hw->p2p_base_s;
    k->domain = hw->nvlink_domain;
}

void pred_kernels_init(struct pred_kernels *k, const struct hw_system *hw,
                       enum pred_gemm_prec prec)
{
    compute_params(k, hw, prec);
    k->mem_bytes_per_s = hw->hbm_bytes_per_s * hw->eff_hbm;
    k->norm_bytes_per_s = hw->hbm_bytes_per_s * hw->eff_norm;
    k->hbm_bytes_per_s = hw->hbm_bytes_per_s;
    k->launch_s = hw->launch_s;
    k->has_memops = hw->has_memops;
    for (int o = 0; o < HW_MEMOP_COUNT; o++)
        for (int d = 0; d < 2; d++) {
            k->memop_bytes_per_s[o][d] = hw->hbm_bytes_per_s * hw->memop[o].eff[d];
            k->memop_floor_s[o][d] = hw->memop[o].floor_s[d];
            k->memop_log_row[o][d] = hw->memop[o].log_row[d];
            k->memop_log_size[o][d] = hw->memop[o].log_size[d];
            k->memop_row_s[o][d] = hw->memop[o].row_s[d];
            k->memop_row0_s[o][d] = hw->memop[o].row0_s[d];
            k->memop_short_bytes_per_s[o][d] =
                hw->hbm_bytes_per_s * hw->memop[o].short_eff[d];
            k->memop_warp_row[o][d] = hw->memop[o].warp_row[d] > 0 ?
                                      hw->memop[o].warp_row[d] : 1024.0;
            k->memop_warp_s[o][d] = hw->memop[o].warp_s[d];
            k->memop_wide_s[o][d] = hw->memop[o].wide_s[d];
            k->memop_scalar_s[o][d] = hw->memop[o].scalar_s[d];
            k->memop_knee[o][d] = hw->memop[o].knee[d];
            k->memop_fitted[o] = hw->memop[o].fitted;
        }
    k->embed_few_index_s = hw->memop[HW_MEMOP_EMBED].few_index_s;
    k->embed_few_elem_s = hw->memop[HW_MEMOP_EMBED].few_elem_s;
    k->has_flash = hw->has_flash;
    k->flash = hw->flash;
    for (int d = 0; d < 2; d++)     /* its online softmax runs on the SMs too */
        k->flash.softmax_s[d] /= hw->clock;
    k->has_bgemm = hw->has_bgemm;
    k->bgemm = hw->bgemm;
    k->tile_m = hw->tile_m;
    k->tile_n = hw->tile_n;
    k->tile_k = hw->tile_k > 1 ? (double)hw->tile_k : 1;
    k->gemm_fill_k = hw->gemm_fill_k;
    k->sample_gap_s = hw->sample_gap_s;
    k->sms = hw->sms;
    link_params(k, hw);
}

/* ---- kernels ---- */

/* Output elements the tile slots of every wave cover. */
static double covered(const struct pred_kernels *k, double m, double n)
{
    double tm = (double)k->tile_m, tn = (double)k->tile_n;
    double tiles = ceil(m / tm) * ceil(n / tn);
    double waves = ceil(tiles / (double)k->sms);
    return waves * (double)k->sms * tm * tn;
}

double pred_quant_eff(const struct pred_kernels *k, double m, double n)
{
    return (m * n) / covered(k, m, n);     /* useful outputs over covered */
}

double pred_k_steps(const struct pred_kernels *k, double kk)
{
    return k->tile_k > 1 ? ceil(kk / k->tile_k) * k->tile_k : kk;
}

double pred_sat_eff(const struct pred_kparams *p, double flops)
{
    return p->eff_max * flops / (flops + p->half_flop);
}

double pred_compute_s(const struct pred_kernels *k, const struct pred_kparams *p,
                      double flops, double bytes)
{
    double t_math = flops / (p->peak_flops * pred_sat_eff(p, flops));
    double t_mem = bytes / k->mem_bytes_per_s;
    return fmax(t_math, t_mem) + k->launch_s;
}

/* The GEMM in s splits of K (kernel.h pred_gemm_s): the work the tiles
 * really do, useful FLOPs over quantisation efficiency, each tile's K
 * steps plus the fixed fill; the saturating curve applies to that padded
 * work, so a bigger problem never takes less time than a smaller one;
 * split partials in fp32, written and read. */
static double gemm_split_s(const struct pred_kernels *k, const struct pred_kparams *p,
                           double m, double n, double kk, double in_bytes, double s)
{
    double tm = (double)k->tile_m, tn = (double)k->tile_n;
    double waves = ceil(s * ceil(m / tm) * ceil(n / tn) / (double)k->sms);
    double padded = 2.0 * (pred_k_steps(k, kk / s) + k->gemm_fill_k) * waves *
                    (double)k->sms * tm * tn;
    double bytes = in_bytes * (m * kk + kk * n) + 2.0 * m * n +
                   (s > 1 ? 8.0 * s * m * n : 0);
    double t_math = padded / (p->peak_flops * pred_sat_eff(p, padded));
    return fmax(t_math, bytes / k->mem_bytes_per_s) + k->launch_s;
}

/* The splits tried: powers of two while the split tiles fit the SMs in
 * one wave (none for an output of as many tiles as SMs). The set shrinks
 * as M or N grows and does not depend on K, so the fastest of them keeps
 * the time monotone in every dimension. */
static double max_splits(const struct pred_kernels *k, double m, double n)
{
    double tiles = ceil(m / (double)k->tile_m) * ceil(n / (double)k->tile_n);
    return tiles >= (double)k->sms ? 1 : floor((double)k->sms / tiles);
}

double pred_gemm_splits(const struct pred_kernels *k, const struct pred_kparams *p,
                        double m, double n, double kk, double in_bytes)
{
    double best = 1, t = gemm_split_s(k, p, m, n, kk, in_bytes, 1), hi = max_splits(k, m, n);
    for (double s = 2; s <= hi; s *= 2) {
        double u = gemm_split_s(k, p, m, n, kk, in_bytes, s);
        if (u < t)
            t = u, best = s;
    }
    return best;
}

void pred_gemm_fb(const struct pred_kernels *k, double m, double n, double kk,
                  double in_bytes, double *fwd, double *bwd, double *dgrad)
{
    double d = pred_gemm_s(k, &k->gemm_bwd, m, kk, n, in_bytes);
    *fwd = pred_gemm_s(k, &k->gemm, m, n, kk, in_bytes);
    *bwd = d + pred_gemm_s(k, &k->gemm_bwd, kk, n, m, in_bytes);
    *dgrad += d;
}

/* ln(x / 4096) held inside [2^7, 2^16], the sampled GEMM sides. */
static double log_side(double x)
{
    return log(fmin(65536.0, fmax(128.0, x)) / 4096.0);
}

double pred_gemm_s(const struct pred_kernels *k, const struct pred_kparams *p,
                   double m, double n, double kk, double in_bytes)
{
    double t = gemm_split_s(k, p, m, n, kk, in_bytes, 1), hi = max_splits(k, m, n);
    for (double s = 2; s <= hi; s *= 2)
        t = fmin(t, gemm_split_s(k, p, m, n, kk, in_bytes, s));
    if (p->log_mnk[0] != 0 || p->log_mnk[1] != 0 || p->log_mnk[2] != 0)
        t = fmax(t * exp(p->log_mnk[0] * log_side(m) + p->log_mnk[1] * log_side(n) +
                         p->log_mnk[2] * log_side(kk)),
                 2.0 * m * n * kk / (p->peak_flops * p->eff_max));
    return t;
}

/* The batched GEMM as its tiles run it (kernel.h): math over the covered
 * waves, traffic with the large operand's re-reads, the longer of the two
 * plus the overlap share of the shorter. */
static double bgemm_fit_s(const struct pred_kernels *k, const struct pred_kparams *p,
                          double batch, double m, double n, double kk, double in_bytes)
{
    int kind = kk > n ? HW_BGEMM_IN : HW_BGEMM_OUT;
    const struct hw_bgemm_fit *f = &k->bgemm;
    double tm = (double)k->tile_m, tn = (double)k->tile_n, sms = (double)k->sms;
    double tiles = batch * ceil(m / tm) * ceil(n / tn);
    double math = 2.0 * pred_k_steps(k, kk) * ceil(tiles / sms) * sms * tm * tn /
                  (p->peak_flops * f->eff[kind]);
    double a = in_bytes * m * kk, b = in_bytes * kk * n, c = 2.0 * m * n;
    double again = a > c ? f->reread * a * (ceil(n / tn) - 1) : 0;
    double io = batch * (a + b + c + again) / (k->hbm_bytes_per_s * f->io_eff[kind]);
    double drift = fmax(0.1, 1.0 + f->log_size[kind] * log(batch * m * n / 268435456.0));
    return drift * (fmax(math, io) + f->overlap[kind] * fmin(math, io)) + k->launch_s;
}

double pred_bgemm_s(const struct pred_kernels *k, const struct pred_kparams *p,
                    double batch, double m, double n, double kk, double in_bytes)
{
    double tm = (double)k->tile_m, tn = (double)k->tile_n, sms = (double)k->sms;
    double tiles = batch * ceil(m / tm) * ceil(n / tn);
    double padded = 2.0 * pred_k_steps(k, kk) * ceil(tiles / sms) * sms * tm * tn;
    double bytes = batch * (in_bytes * (m * kk + kk * n) + 2.0 * m * n);
    double t_math;
    if (k->has_bgemm)
        return bgemm_fit_s(k, p, batch, m, n, kk, in_bytes);
    t_math = padded / (p->peak_flops * pred_sat_eff(p, padded));
    return fmax(t_math, bytes / k->mem_bytes_per_s) + k->launch_s;
}

double pred_unfused_bmm_s(const struct pred_kernels *k, int bwd, double heads_b,
                          double s, double d)
{
    const struct pred_kparams *a = &k->attn;
    if (!bwd)           /* QK^T: [s, d] x [d, s]; PV: [s, s] x [s, d] */
        return pred_bgemm_s(k, a, heads_b, s, s, d, 2) +
               pred_bgemm_s(k, a, heads_b, s, d, s, 2);
    return 3.0 * pred_bgemm_s(k, a, heads_b, s, d, s, 2) +    /* dQ, dK, dV */
           pred_bgemm_s(k, a, heads_b, s, s, d, 2);            /* dP */
}

double pred_mem_s(const struct pred_kernels *k, double bytes, double launches)
{
    return bytes / k->mem_bytes_per_s + launches * k->launch_s;
}

double pred_norm_s(const struct pred_kernels *k, double bytes, double launches)
{
    return bytes / k->norm_bytes_per_s + launches * k->launch_s;
}

/* calls x floor + factor x bytes / achieved bandwidth, or the generic
 * model when the operator has no fit. */
static double memop_time(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double calls, double launches, double factor)
{
    if (!k->has_memops || !k->memop_fitted[op])
        return op == HW_MEMOP_NORM ? pred_norm_s(k, bytes, launches)
                                   : pred_mem_s(k, bytes, launches);
    return calls * k->memop_floor_s[op][bwd] +
           factor * bytes / k->memop_bytes_per_s[op][bwd];
}

double pred_memop_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                    double bytes, double calls, double launches)
{
    return memop_time(k, op, bwd, bytes, calls, launches, 1.0);
}

double pred_memop_size_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double calls, double launches)
{
    double f = 1.0;             /* no log for the generic model (hot loop) */
    if (k->has_memops && k->memop_fitted[op] && k->memop_log_row[op][bwd] != 0)
        f = fmax(0.1, 1.0 + k->memop_log_row[op][bwd] * log(bytes / 1e8));
    return memop_time(k, op, bwd, bytes, calls, launches, f);
}

double pred_memop_row_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                        double bytes, double calls, double launches, double row)
{
    double f = 1.0 + k->memop_log_row[op][bwd] * log(row / 4096.0);
    if (k->memop_log_size[op][bwd] != 0)
        f += k->memop_log_size[op][bwd] * log(bytes / 1e8);
    return memop_time(k, op, bwd, bytes, calls, launches, fmax(0.1, f));
}

double pred_soft_max(double a, double b, double p)
{
    double hi = fmax(a, b), lo = fmin(a, b);
    if (p <= 0)
        return hi;
    if (lo <= 0)
        return hi + fmax(lo, 0.0);
    p = fmin(50.0, fmax(0.5, p));   /* hw.c's range: a solver's step to 0
                                     * would make 2^(1/p) inf */
    return hi * pow(1.0 + pow(lo / hi, p), 1.0 / p);   /* no overflow */
}

double pred_memop_knee_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double extra)
{
    if (!k->has_memops || !k->memop_fitted[op] || k->memop_knee[op][bwd] <= 0)
        return pred_memop_size_s(k, op, bwd, bytes, 1, 1);
    return pred_soft_max(k->memop_floor_s[op][bwd],
                         bytes / k->memop_bytes_per_s[op][bwd] +
                         extra * k->memop_row_s[op][bwd],
                         k->memop_knee[op][bwd]);
}

double pred_host_knee(const struct pred_kernels *k, int bwd)
{
    return k->has_memops && k->memop_fitted[HW_MEMOP_ROPE] ?
           k->memop_knee[HW_MEMOP_ROPE][bwd] : 0.0;
}

/* The few indices PyTorch's embedding backward runs its feature kernel
 * for (Embedding.cu: num_indices <= 3072 and not scale_grad_by_freq). */
#define EMBED_FEW_INDICES 3072.0

double pred_embed_s(const struct pred_kernels *k, int bwd, double bytes,
                    double table_bytes, double tokens, double rows, double row)
{
    const enum hw_memop o = HW_MEMOP_EMBED;
    double touched = rows > 0 ? rows * -expm1(-tokens / rows) : tokens;
    if (!bwd && k->has_memops && k->memop_fitted[o] && k->memop_row_s[o][0] > 0 &&
        tokens > 0) {
        double again = fmax(0, tokens - touched);   /* repeated indices */
        return pred_memop_size_s(k, o, 0, bytes * (1 - 0.5 * again / tokens), 1, 1) +
               again * row * k->memop_row_s[o][0];
    }
    if (!bwd || !k->has_memops || !k->memop_fitted[o] ||
        k->memop_short_bytes_per_s[o][1] <= 0)
        return pred_memop_size_s(k, o, bwd, bytes + table_bytes, 1, bwd ? 2 : 1);
    if (tokens <= EMBED_FEW_INDICES) {   /* two kernels: zero, accumulate */
        bool walk = k->embed_few_index_s > 0 || k->embed_few_elem_s > 0;
        return 2.0 * k->launch_s +
               (table_bytes + (walk ? 0 : bytes)) / k->memop_short_bytes_per_s[o][1] +
               (walk ? tokens * (k->embed_few_index_s + row * k->embed_few_elem_s) : 0);
    }
    if (rows <= 0)
        touched = 0;
    return k->memop_floor_s[o][1] + table_bytes / k->memop_bytes_per_s[o][1] +
           row * (tokens * k->memop_row_s[o][1] + touched * k->memop_row0_s[o][1]);
}

double pred_optim_s(const struct pred_kernels *k, double bytes, double params,
                    double tensors, double launches)
{
    const enum hw_memop o = HW_MEMOP_OPTIM;
    if (!k->has_memops || !k->memop_fitted[o] ||
        (k->memop_row_s[o][0] <= 0 && k->memop_row0_s[o][0] <= 0))
        return pred_memop_size_s(k, o, 0, bytes, 1, launches);
    return k->memop_floor_s[o][0] + tensors * k->memop_row0_s[o][0] +
           params * k->memop_row_s[o][0];
}

static double next_pow2(double x)
{
    double p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* The elements of a row of 'row' 16-bit values that PyTorch's block
 * softmax reads one a thread, past its last whole chunk of ILP x block
 * (kernel.h pred_memop_rows_s; SoftMax.cu SoftMax_getBlockSize with ILP =
 * sizeof(float4) / sizeof(half) = 8, integer divisions as there). */
static double block_epilogue(double row)
{
    double max_block = floor(fmin(floor(row / 8.0), 1024.0) / 2.0), block = 1;
    while (block < max_block)
        block *= 2;
    return fmod(row, 8.0 * fmax(block, 32.0));
}

double pred_memop_rows_s(const struct pred_kernels *k, enum hw_memop op, int bwd,
                         double bytes, double rows, double row, double launches)
{
    double w, f, g, wide = 0, scalar = 0;
    if (!k->has_memops || !k->memop_fitted[op])
        return pred_mem_s(k, bytes, launches);
    w = next_pow2(row);
    if (row <= k->memop_warp_row[op][bwd] && k->memop_short_bytes_per_s[op][bwd] > 0)
        return k->memop_floor_s[op][bwd] + bytes / k->memop_short_bytes_per_s[op][bwd] +
               rows * w * (w / 1024.0) * k->memop_warp_s[op][bwd];
    g = fmin(1.0, fmax(-1.0, k->memop_log_row[op][bwd]));
    if (k->memop_warp_row[op][bwd] > 1024.0) {  /* cunn_SoftMaxForwardReg */
        w = 1024.0 * ceil(row / 1024.0);
        f = pow(fmin(w, 8192.0) / 1024.0, g);
        wide = w >= 7168.0 ? k->memop_wide_s[op][bwd] : 0;
    } else {
        f = pow(fmin(w, 2048.0) / 1024.0, g);
        if (k->memop_scalar_s[op][bwd] > 0)
            scalar = block_epilogue(row) * k->memop_scalar_s[op][bwd];
    }
    return k->memop_floor_s[op][bwd] + bytes / k->memop_bytes_per_s[op][bwd] +
           rows * (k->memop_row0_s[op][bwd] + f * w * k->memop_row_s[op][bwd] + wide +
                   scalar);
}
