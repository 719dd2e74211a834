/* predictor/tpo.c: communication overlapped with computation, and TP
 * communication overlap (plan switch tpo: Transformer Engine userbuffers,
 * Megatron-LM --tp-comm-overlap; torchtitan's
 * parallelism.enable_async_tensor_parallel).
 *
 * With sequence parallelism each TP GEMM pairs with one collective: forward,
 * the all-gather of the input before QKV and MLP-up and the reduce-scatter
 * of the output after out-proj and MLP-down; backward the mirror images
 * (reduce-scatter after QKV and MLP-up's data gradient, all-gather before
 * out-proj's and MLP-down's). Userbuffers split each pair into tp chunks
 * and pipeline them (the GEMM of chunk i while chunk i+1 moves:
 * transformer_engine/pytorch/module/base.py initialize_ub, ring-exchange
 * overlap; Wang et al. ASPLOS 2023, "Overlap communication with dependent
 * computation via decomposition"), so of a collective of time C beside a
 * GEMM of time G what stays exposed is the part longer than the GEMM, plus
 * one chunk that cannot overlap: max(0, C - G) + min(C, G) / tp.
 *
 * Interference: while communication kernels run they take SMs and memory
 * bandwidth from the GEMM. Calculon models it as the fraction of the
 * processor a network's collectives use ('processor_usage' in
 * calculon-ai/calculon systems/h100_80g_nvl8.json: 0.15 on NVLink, 0.02
 * on the InfiniBand tier; Isaev et al. SC23); the overlapped computation
 * runs at 1 - u of its speed, so it lasts longer by min(C, G) u / (1 - u). */
#include "predictor/pred.h"

#include <math.h>

/* calculon-ai/calculon systems/h100_80g_nvl8.json 'processor_usage' */
#define INTERFERENCE_NVLINK 0.15
#define INTERFERENCE_NIC 0.02

double pred_interference(bool inter)
{
    return inter ? INTERFERENCE_NIC : INTERFERENCE_NVLINK;
}

void pred_overlap(double compute, double comm, double u, double chunks,
                  double *compute_extra, double *exposed)
{
    double both = fmin(compute, comm);
    *compute_extra = both * u / (1.0 - u);
    *exposed = fmax(0.0, comm - compute - *compute_extra) +
               (chunks > 1 ? fmin(comm, compute + *compute_extra) / chunks : 0);
}

/* The layer's GEMMs paired with the collective each hides, in the order
 * above: all-gather (0) or reduce-scatter (1). */
static const struct { enum pred_op op; int fwd_rs, bwd_rs; } pairs[] = {
    { PRED_OP_QKV, 0, 1 }, { PRED_OP_PROJ, 1, 0 },
    { PRED_OP_FC1, 0, 1 }, { PRED_OP_FC2, 1, 0 },
};

static void hide(double *gemm, double comm, double u, double tp,
                 double *exposed)
{
    double extra, e;
    pred_overlap(*gemm, comm, u, tp, &extra, &e);
    *gemm += extra;
    *exposed += e;
}

void pred_tpo_layer(const struct pred_ctx *c, const struct plan *p,
                    double ag_s, double rs_s, struct pred_layer *o)
{
    bool inter = p->tp > c->k.domain;
    double u = pred_interference(inter), tp = (double)p->tp;
    double ef = 0, eb = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        hide(&o->fwd_s[pairs[i].op], pairs[i].fwd_rs ? rs_s : ag_s, u, tp, &ef);
        hide(&o->bwd_s[pairs[i].op], pairs[i].bwd_rs ? rs_s : ag_s, u, tp, &eb);
    }
    o->fwd_s[PRED_OP_TP_COMM] = ef;
    o->bwd_s[PRED_OP_TP_COMM] = eb;
}
