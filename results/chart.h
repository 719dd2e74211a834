/* results/chart.h: charts people read instead of tables, drawn with cairo
 * into SVG or PNG (chosen by the file name). Every chart has a title, axes
 * with units, and a legend; files are written atomically. */
#ifndef RES_CHART_H
#define RES_CHART_H

#include <stdbool.h>

#include "common/err.h"

struct chart_series {
    const char *name;
    const double *x, *y;        /* n points; y <= 0 is a gap */
    int n;
    const bool *marked;         /* optional: filled marker where true */
};

struct chart_panel {            /* one plot area */
    const char *ylabel;
    bool logy;
    const struct chart_series *series;
    int n_series;
};

struct chart_lines {
    const char *title, *xlabel;
    bool logx;
    const struct chart_panel *panels;   /* stacked top to bottom, shared x */
    int n_panels;
    double mark_x;              /* vertical dashed line (the knee); <= 0: none */
    const char *mark_label;
    const char *note;           /* a line under the title (what filled
                                   markers mean); NULL: none */
    bool x_decimal;             /* a log x axis in powers of ten (costs);
                                   false: of two (GPU counts) */
};

struct chart_bars {
    const char *title, *ylabel;
    const char *const *bars;    /* n_bars labels (with many bars, some are
                                   left out so the rest can be read) */
    int n_bars;
    const char *const *stacks;  /* n_stacks legend names */
    int n_stacks;
    const double *values;       /* n_bars x n_stacks, bar-major */
    const char *const *tops;    /* NULL, or a label above each bar */
    int per_group;              /* > 0: bars come in groups of this many,
                                   with a gap between groups */
    const char *const *groups;  /* with per_group: a label under each */
};

struct chart_heat {             /* a grid of coloured cells with their values */
    const char *title, *xlabel, *ylabel, *unit;
    const char *const *xs;      /* nx column labels, left to right */
    int nx;
    const char *const *ys;      /* ny row labels, bottom to top */
    int ny;
    const double *values;       /* ny x nx, row-major from the bottom; <= 0: none */
};

/* Write a chart to 'path' (".svg" or ".png"; width x height pixels).
 * TPL_EUSAGE for another extension, TPL_EIO when it cannot be written. */
int res_chart_lines_write(const char *path, int width, int height,
                          const struct chart_lines *c, struct tpl_err *err);
int res_chart_bars_write(const char *path, int width, int height,
                         const struct chart_bars *c, struct tpl_err *err);
/* The same chart as points only (a scatter): markers, no lines. */
int res_chart_scatter_write(const char *path, int width, int height,
                            const struct chart_lines *c, struct tpl_err *err);
int res_chart_heat_write(const char *path, int width, int height,
                         const struct chart_heat *c, struct tpl_err *err);
/* Is 'path' a chart file name trainplan can write? */
bool res_chart_path_ok(const char *path);

#endif /* RES_CHART_H */
