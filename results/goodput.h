/* results/goodput.h: what interruptions cost a long synchronous training
 * job. Any failure stops every GPU; the job goes back to its last checkpoint,
 * restarts and redoes the lost work. From the system's reliability fields
 * (hardware/hw.h: interruptions per GPU, checkpoint write bandwidth, restart
 * time) and the state a checkpoint holds, the optimum checkpoint interval
 * (Young 1974, Daly 2006) and the goodput: the fraction of wall-clock time
 * that trains. */
#ifndef RES_GOODPUT_H
#define RES_GOODPUT_H

#include <stdint.h>

#include "hardware/hw.h"
#include "spaces/model.h"

/* Bytes a checkpoint holds per parameter: 16-bit weights (2) and the fp32
 * master copy and Adam moments (4 + 4 + 4); gradients are not saved
 * (Rajbhandari et al. SC20, sec. 3.1: 2 + 2 + 12 of mixed-precision Adam,
 * less the 2 of gradients). */
#define RES_CKPT_BYTES_PER_PARAM 14.0

struct goodput {                /* a plain value */
    double state_bytes;         /* one checkpoint: the model and its optimizer */
    double write_s;             /* delta: writing it, the job stopped */
    double mtbf_s;              /* M: the job's mean time between interruptions */
    double restart_s;           /* R */
    double interval_s;          /* tau: compute time between checkpoints */
    double fraction;            /* goodput: solve time / wall time, in [0, 1] */
};

/* Daly's optimum compute time between checkpoints for a write time delta and
 * a mean time between interruptions M (Daly 2006, FGCS 22, the higher-order
 * estimate): sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta
 * when delta < 2M, else M. Young's first-order sqrt(2 delta M) is its
 * leading term. */
double res_daly_interval_s(double write_s, double mtbf_s);

/* The fraction of wall-clock time that trains with interval tau, write time
 * delta, restart R, Poisson interruptions at mean M: Daly 2006's expected
 * wall time T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau, so the
 * fraction is T_s / T_w. Computed in logs: it underflows to 0, never to a
 * NaN, when failures come faster than the job restarts. */
double res_daly_goodput(double interval_s, double write_s, double mtbf_s,
                        double restart_s);

/* All of it for a model on 'gpus' GPUs of a system. */
void res_goodput_of(const struct hw_system *hw, const struct model *m,
                    int64_t gpus, struct goodput *out);

#endif /* RES_GOODPUT_H */
