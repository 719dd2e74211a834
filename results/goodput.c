/* results/goodput.c: checkpoint interval and goodput under interruptions
 * (goodput.h). The model is Daly's: J. T. Daly, "A higher order estimate of
 * the optimum checkpoint interval for restart dumps", Future Generation
 * Computer Systems 22 (2006) 303-312, for exponentially distributed
 * interruptions; its worked examples (Figs. 3-5) are the unit tests. */
#include "results/goodput.h"

#include <math.h>

double res_daly_interval_s(double write_s, double mtbf_s)
{
    double xi = write_s / (2 * mtbf_s);
    if (write_s >= 2 * mtbf_s)
        return mtbf_s;
    return sqrt(2 * write_s * mtbf_s) * (1 + sqrt(xi) / 3 + xi / 9) - write_s;
}

/* log(e^x - 1) for x > 0 without overflow. */
static double log_expm1(double x)
{
    return x > 30 ? x + log1p(-exp(-x)) : log(expm1(x));
}

double res_daly_goodput(double interval_s, double write_s, double mtbf_s,
                        double restart_s)
{
    double lg = log(interval_s) - log(mtbf_s) - restart_s / mtbf_s -
                log_expm1((interval_s + write_s) / mtbf_s);
    return fmin(1.0, exp(lg));
}

void res_goodput_of(const struct hw_system *hw, const struct model *m,
                    int64_t gpus, struct goodput *out)
{
    out->state_bytes = RES_CKPT_BYTES_PER_PARAM * (double)model_params(m);
    out->write_s = out->state_bytes / hw->storage_bytes_per_s;
    out->mtbf_s = hw->gpu_mtbf_s / (double)gpus;   /* any GPU stops the job */
    out->restart_s = hw->restart_s;
    out->interval_s = res_daly_interval_s(out->write_s, out->mtbf_s);
    out->fraction = res_daly_goodput(out->interval_s, out->write_s,
                                     out->mtbf_s, out->restart_s);
}
