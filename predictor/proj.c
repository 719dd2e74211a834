/* predictor/proj.c: projections run as separate GEMMs (the stack's
 * separate_proj). Megatron-Core fuses the query, key and value projections
 * into one column-parallel GEMM (linear_qkv) and SwiGLU's gate and up
 * projections into one (linear_fc1, 2 f wide); torchtitan's Llama keeps
 * them apart (torchtitan/models/llama/model.py: Attention's wq, wk, wv and
 * FeedForward's w1, w3, each an nn.Linear of its own), so each runs as its
 * own, narrower GEMM: wq q / tp, wk and wv kv / tp, w1 and w3 f / tp
 * columns, over the same tokens and hidden width. A narrow GEMM fills
 * fewer tiles per wave and sits lower on the saturation curve of the
 * system's GEMM fit (predictor/kernel.c pred_gemm_s), which is the cost:
 * the FLOPs are the fused GEMM's. The three input gradients of the
 * separate projections are summed by autograd; those additions are not
 * counted (torch.compile fuses them into neighbouring kernels). */
#include "predictor/pred.h"

/* One GEMM of m x n x k forward, its data and weight gradients backward
 * (as pred.c's gemm_fb), added to *fwd and *bwd, 'times' times. */
static void add_gemm(const struct pred_kernels *k, double m, double n,
                     double kk, double in, double times, double *fwd,
                     double *bwd)
{
    *fwd += times * pred_gemm_s(k, &k->gemm, m, n, kk, in);
    *bwd += times * (pred_gemm_s(k, &k->gemm_bwd, m, kk, n, in) +
                     pred_gemm_s(k, &k->gemm_bwd, kk, n, m, in));
}

void pred_separate_proj(const struct pred_ctx *c, const struct plan *p,
                        bool moe, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double t = (double)p->tp, tok = pred_tokens(c, p), h = (double)m->hidden;
    double q = (double)model_q_dim(m), kv = (double)model_kv_dim(m);
    double f = (double)(moe ? m->moe.shared_ffn_hidden : m->ffn_hidden);
    double in = c->job.precision == JOB_PREC_FP8 ? 1.0 : 2.0;
    double *qf = &o->fwd_s[PRED_OP_QKV], *qb = &o->bwd_s[PRED_OP_QKV];
    if (!c->job.separate_proj || m->mla.kv_lora_rank > 0)
        return;
    *qf = *qb = 0;
    add_gemm(&c->k, tok, q / t, h, in, 1, qf, qb);
    add_gemm(&c->k, tok, kv / t, h, in, 2, qf, qb);
    if (f <= 0 || !m->glu)
        return;
    o->fwd_s[PRED_OP_FC1] = o->bwd_s[PRED_OP_FC1] = 0;
    add_gemm(&c->k, tok, f / t, h, in, 2, &o->fwd_s[PRED_OP_FC1],
             &o->bwd_s[PRED_OP_FC1]);
}
