/* predictor/flash.c: FlashAttention-2's time (kernel.h pred_flash_s).
 *
 * The kernel (Dao 2023, FlashAttention-2, sec. 3.1-3.3; flash-attn
 * csrc/flash_attn/src/flash_fwd_launch_template.h and
 * flash_bwd_launch_template.h) tiles the score matrix in 128-row blocks:
 * forward one thread block per block of 128 queries (of one head of one
 * sequence), walking all keys; backward one per block of 128 keys, walking
 * all queries. The grid is b x heads x blocks; the GPU runs one wave of
 * 'sms' blocks at a time, so a grid of sms + 1 blocks takes two waves. Head
 * dims are compiled for 32, 64, ..., 256: a head of 80 runs the 96 kernel,
 * with predicated loads for the missing columns (is_even_K false), which
 * costs a fitted share more. Per score element the matmuls do 4 d FLOPs
 * forward, 10 d backward (five matmuls against two), and the softmax does a
 * fixed amount of non-matmul work (exponentials on the special-function
 * units: FlashAttention-3, Shah et al. 2024, sec. 3.1, which puts H100 at
 * 989 TFLOP/s of matmul against 3.9 TFLOP/s of exponentials). The matmul
 * rate falls with the head dim (larger templates hold fewer warps and
 * smaller key blocks per SM: kBlockN 128 up to d 64, 64 above), a fitted
 * slope in ln(d / 256). Causal masking skips the blocks above the diagonal:
 * (nb + 1) / (2 nb) of the nb x nb blocks remain. */
#include "predictor/kernel.h"

#include <math.h>

#define FLASH_BLOCK 128.0       /* rows of a thread block, both directions */
#define FLASH_DIM_STEP 32.0     /* head-dim templates */
#define FLASH_DIM_REF 256.0     /* the efficiency's head dim */

/* The share of the work a sliding window leaves (1 without one). */
static double work_share(const struct pred_flash_shape *sh)
{
    return sh->share > 0 ? sh->share : 1.0;
}

/* Score elements the waves cover: the grid's blocks times their rows and
 * columns, the last wave counted whole. */
static double covered_elems(const struct pred_kernels *k, int bwd,
                            const struct pred_flash_shape *sh)
{
    double rows = bwd ? sh->lk : sh->lq, cols = bwd ? sh->lq : sh->lk;
    double nb = ceil(rows / FLASH_BLOCK), blocks = nb * sh->b * sh->heads;
    double sms = (double)k->sms, waves = ceil(blocks / sms);
    double share = sh->causal ? (nb + 1.0) / (2.0 * nb) : 1.0;
    return waves * sms * FLASH_BLOCK * cols * share * work_share(sh);
}

static double roofline(const struct pred_kernels *k, int bwd,
                       const struct pred_flash_shape *sh, double dp)
{
    double flops = (sh->causal ? 2.0 : 4.0) * sh->b * sh->heads * sh->lq *
                   sh->lk * dp * work_share(sh);
    return bwd ? pred_compute_s(k, &k->attn_bwd, 2.5 * flops, 2.0 * sh->io_bytes)
               : pred_compute_s(k, &k->attn, flops, sh->io_bytes);
}

double pred_flash_s(const struct pred_kernels *k, int bwd,
                    const struct pred_flash_shape *sh)
{
    const struct hw_flash_fit *f = &k->flash;
    const struct pred_kparams *p = bwd ? &k->attn_bwd : &k->attn;
    double dp = ceil(sh->d / FLASH_DIM_STEP) * FLASH_DIM_STEP, elems, mm;
    if (!k->has_flash)
        return roofline(k, bwd, sh, dp);
    elems = covered_elems(k, bwd, sh);
    mm = (bwd ? 10.0 : 4.0) * dp / (p->peak_flops * p->eff_max) *
         fmax(0.1, 1.0 + f->log_d[bwd] * log(dp / FLASH_DIM_REF)) *
         (dp > sh->d + 1e-9 ? 1.0 + f->uneven[bwd] : 1.0);
    return f->floor_s[bwd] + elems * (mm + f->softmax_s[bwd]);
}
