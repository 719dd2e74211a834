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

/* The layer's GEMM operators are added here, the fused ones (pred.c) and
 * the separate ones (below) alike. TP overlap runs a GEMM in chunks of the
 * tokens but on several streams at once (tpo.c), so it is timed whole. */
void pred_gemm_add(const struct pred_ctx *c, enum pred_op op, double m,
                   double n, double kk, double times, struct pred_layer *o)
{
    double in = c->job.precision == JOB_PREC_FP8 ? 1.0 : 2.0, f, b, d = 0;
    pred_gemm_fb(&c->k, m, n, kk, in, &f, &b, &d);
    o->fwd_s[op] += times * f;
    o->bwd_s[op] += times * b;
    o->dgrad_s[op] += times * d;
}

void pred_separate_proj(const struct pred_ctx *c, const struct plan *p,
                        bool moe, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double t = (double)p->tp, tok = pred_tokens(c, p), h = (double)m->hidden;
    double q = (double)model_q_dim(m), kv = (double)model_kv_dim(m);
    double f = (double)(moe ? m->moe.shared_ffn_hidden : m->ffn_hidden);
    if (!c->job.separate_proj || m->mla.kv_lora_rank > 0)
        return;
    o->fwd_s[PRED_OP_QKV] = o->bwd_s[PRED_OP_QKV] = o->dgrad_s[PRED_OP_QKV] = 0;
    pred_gemm_add(c, PRED_OP_QKV, tok, q / t, h, 1, o);
    pred_gemm_add(c, PRED_OP_QKV, tok, kv / t, h, 2, o);
    if (f <= 0 || !m->glu)
        return;
    o->fwd_s[PRED_OP_FC1] = o->bwd_s[PRED_OP_FC1] = o->dgrad_s[PRED_OP_FC1] = 0;
    pred_gemm_add(c, PRED_OP_FC1, tok, f / t, h, 2, o);
}
