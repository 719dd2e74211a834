/* calibrate/chart.c: the calibration chart (calibrate.h cal_chart_write):
 * predicted against measured time of the sampled points per operator, on
 * log axes, a panel per kernel family so that no panel has more series
 * than the chart's palette, with the line predicted = measured. */
#include "calibrate/calibrate.h"

#include <math.h>

#include "results/chart.h"

#define N_DIAG 24

static const enum cal_op families[4][7] = {
    { CAL_OP_L1, CAL_OP_L2, CAL_OP_L3, CAL_OP_L4, CAL_OP_LFINAL, CAL_OP_BADDBMM,
      CAL_OP_BMM },
    { CAL_OP_GELU, CAL_OP_RESADD, CAL_OP_NORM, CAL_OP_RMSNORM, CAL_OP_ROPE,
      CAL_OP_FILLMASK, CAL_OP_EMBED },
    { CAL_OP_FLASH, CAL_OP_SOFTMAX, CAL_OP_SUTMS, CAL_OP_XENT, CAL_OP_OPT_FIRST,
      CAL_OP_OPT_MIDDLE, CAL_OP_OPT_LAST },
    { CAL_OP_AR_INTRA, CAL_OP_AR_INTER, CAL_OP_P2P_INTRA, CAL_OP_P2P_INTER,
      CAL_OP_AG_INTRA, CAL_OP_AG_INTER, CAL_OP_COUNT },
};
static const char *const ylabels[4] = {
    "GEMMs: predicted (us)", "memory-bound: predicted (us)",
    "attention, softmax, ends: predicted (us)", "collectives: predicted (us)",
};

/* The range of every point charted, for the diagonal. */
static void span(const struct cal_report *rep, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0;
    for (int o = 0; o < CAL_OP_COUNT; o++)
        for (int i = 0; i < rep->points[o].n; i++) {
            *lo = fmin(*lo, rep->points[o].measured[i]);
            *hi = fmax(*hi, rep->points[o].measured[i]);
        }
    if (*hi <= 0)
        *lo = 1, *hi = 10;
}

/* One family's panel: its operators with points, then the diagonal. */
static int family_panel(const struct cal_report *rep, int f, const double *diag,
                        struct chart_series *ser)
{
    int n = 0;
    for (int i = 0; i < 7; i++) {
        enum cal_op o = families[f][i];
        if (o == CAL_OP_COUNT || rep->points[o].n == 0)
            continue;
        ser[n++] = (struct chart_series){ .name = cal_op_name(o),
            .x = rep->points[o].measured, .y = rep->points[o].predicted,
            .n = rep->points[o].n };
    }
    if (n)
        ser[n++] = (struct chart_series){ .name = "predicted = measured",
            .x = diag, .y = diag, .n = N_DIAG };
    return n;
}

int cal_chart_write(const char *path, const struct cal_report *rep,
                    struct tpl_err *err)
{
    static struct chart_series ser[4][8];
    struct chart_panel panels[4];
    double diag[N_DIAG], lo, hi;
    char title[128];
    int np = 0;
    span(rep, &lo, &hi);
    for (int i = 0; i < N_DIAG; i++)
        diag[i] = lo * pow(hi / lo, i / (N_DIAG - 1.0));
    for (int f = 0; f < 4; f++) {
        int n = family_panel(rep, f, diag, ser[np]);
        if (n)
            panels[np] = (struct chart_panel){ .ylabel = ylabels[f], .logy = true,
                                               .series = ser[np], .n_series = n },
            np++;
    }
    snprintf(title, sizeof title, "%s samples: predicted against measured", rep->gpu);
    return res_chart_scatter_write(path, 1100, 300 * (np ? np : 1), &(struct chart_lines){
        .title = title, .xlabel = "measured kernel time (us)", .logx = true,
        .panels = panels, .n_panels = np, .x_decimal = true,
        .note = "the fitted system's prediction of an even spread of each "
                "file's samples, forward and backward" }, err);
}
