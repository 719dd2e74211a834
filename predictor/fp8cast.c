/* predictor/fp8cast.c: the FP8 casts of GEMM operands that run as kernels
 * of their own (the stack's fp8_cast "torchao"; Transformer Engine fuses
 * its casts into the norm, activation and GEMM kernels: "fused", nothing
 * here).
 *
 * torchao's float8 training (torchtitan's [float8] enable_float8_linear,
 * dynamic tensorwise scaling; pytorch/ao torchao/float8/float8_linear.py
 * matmul_with_hp_or_float8_args) keeps each Linear's input and weight in
 * 16 bits (ctx.save_for_backward(input_hp, weight_hp_t)) and casts every
 * operand of every GEMM when the GEMM runs: forward the input and the
 * weight; backward the output gradient for the data gradient, the weight
 * again for it (the code notes the weight's amax cannot be reused from the
 * forward, pytorch/pytorch#136267), the output gradient again, in the
 * other layout, for the weight gradient, and the input again for it. A
 * dynamic cast (float8_scaling_utils.py hp_tensor_to_float8_dynamic) is two
 * passes over the 16-bit tensor: tensor_to_scale reduces its amax (read 2
 * bytes an element), then hp_tensor_and_scale_to_float8 scales and casts
 * it (read 2, write 1): 5 bytes an element. torch.compile (torchtitan
 * compiles each TransformerBlock) shares one amax between the two casts of
 * the same output gradient in the backward graph (the same reduction of
 * the same tensor, removed by AOTAutograd's common-subexpression pass),
 * and likewise the three projections' shared input (wq, wk, wv read the
 * same normed activations; w1 and w3 likewise), so per GEMM of input a
 * (m x k), weight w (n x k) and output g (m x n) elements:
 *   forward   5 a + 5 w
 *   backward  5 a + 5 w + (2 + 3 + 3) g
 * With sequence parallelism the column-parallel GEMMs' input is cast on
 * the rank's own seq / tp rows before its all-gather (torchtitan
 * parallelize_llama.py apply_tp with float8: PrepareFloat8ModuleInput and
 * Float8ColwiseParallel, torchao/float8/float8_tensor_parallel.py), so a
 * is m k / tp there. A recomputed forward casts again (the recompute
 * repeats the forward's operators, pred.c). Not counted: FSDP2's float8
 * all-gather of weights (torchtitan's enable_fsdp_float8_all_gather, off
 * in its default configurations), MLA and the routed experts' GEMMs. */
#include "predictor/pred.h"

/* 5 bytes an element per dynamic cast; the backward's second cast of the
 * output gradient shares the first's amax (header). */
#define CAST_BYTES 5.0
#define GRAD_CAST_BYTES 8.0

double pred_fp8_cast_bytes(double a, double w, double g, int bwd)
{
    return CAST_BYTES * (a + w) + (bwd ? GRAD_CAST_BYTES * g : 0);
}

/* One GEMM of m x n x k over 'nw' weight tensors (torchtitan's separate
 * wq, wk, wv and w1, w3), input cast on 'a_rows' rows: two kernels a cast
 * (amax, cast), three for each output gradient (amax, two casts). */
static void add_cast(const struct pred_ctx *c, double a_rows, double m,
                     double n, double k, double nw, double *fwd, double *bwd)
{
    double a = a_rows * k, w = n * k, g = m * n;
    *fwd += pred_mem_s(&c->k, pred_fp8_cast_bytes(a, w, g, 0), 2.0 + 2.0 * nw);
    *bwd += pred_mem_s(&c->k, pred_fp8_cast_bytes(a, w, g, 1),
                       4.0 + 7.0 * nw);
}

void pred_fp8_cast_layer(const struct pred_ctx *c, const struct plan *p,
                         bool moe, struct pred_layer *o)
{
    const struct model *m = &c->model;
    double t = (double)p->tp, tok = pred_tokens(c, p), h = (double)m->hidden;
    double q = (double)model_q_dim(m), kv = (double)model_kv_dim(m);
    double f = (double)(moe ? m->moe.shared_ffn_hidden : m->ffn_hidden);
    double col = p->sp && p->tp > 1 ? tok / t : tok;    /* cast, then gathered */
    if (c->job.precision != JOB_PREC_FP8 || c->job.fp8_cast != JOB_FP8_CAST_TORCHAO ||
        m->mla.kv_lora_rank > 0)
        return;
    add_cast(c, col, tok, (q + 2.0 * kv) / t, h, 3,
             &o->fwd_s[PRED_OP_QKV], &o->bwd_s[PRED_OP_QKV]);
    add_cast(c, tok, tok, h, q / t, 1,
             &o->fwd_s[PRED_OP_PROJ], &o->bwd_s[PRED_OP_PROJ]);
    if (f <= 0)
        return;
    add_cast(c, col, tok, (m->glu ? 2.0 : 1.0) * f / t, h, m->glu ? 2 : 1,
             &o->fwd_s[PRED_OP_FC1], &o->bwd_s[PRED_OP_FC1]);
    add_cast(c, tok, tok, h, f / t, 1,
             &o->fwd_s[PRED_OP_FC2], &o->bwd_s[PRED_OP_FC2]);
}
