/* results/chart.c: line, stacked-bar and heat-map charts with cairo (see chart.h).
 * Log axes put ticks on powers of two (GPU counts) or ten; linear axes on
 * 1, 2 or 5 times a power of ten. */
#include "results/chart.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/outfile.h"

#define PI 3.14159265358979323846

static const double palette[8][3] = {
    { 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 },
    { 0.84, 0.15, 0.16 }, { 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 },
    { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 },
};

struct axis { double lo, hi; bool log; };
struct area { double x0, y0, x1, y1; };    /* pixels: left, top, right, bottom */

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcmp(path + n - e, ext);
}

bool res_chart_path_ok(const char *path)
{
    return has_ext(path, ".svg") || has_ext(path, ".png");
}

/* ---- scales and ticks ---- */

static double map(const struct axis *a, double v, double p0, double p1)
{
    double t = a->log ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    return p0 + t * (p1 - p0);
}

static void fit_axis(struct axis *a, double lo, double hi, bool log_scale,
                     int base)
{
    a->log = log_scale;
    if (!(hi > lo)) {           /* one value: give it room */
        lo = log_scale ? lo / 2 : lo - 1;
        hi = log_scale ? hi * 2 : hi + 1;
    }
    if (log_scale) {
        double b = base;
        a->lo = pow(b, floor(log(lo) / log(b) + 1e-9));
        a->hi = pow(b, ceil(log(hi) / log(b) - 1e-9));
    } else {
        double step = pow(10, floor(log10(hi - lo)));
        a->lo = lo >= 0 && lo < hi / 4 ? 0 : floor(lo / step) * step;
        a->hi = ceil(hi / step) * step;
    }
}

/* "2M", "500k", "0.05": short enough to sit under a tick; a base-2 axis
 * (GPU counts) in whole numbers. */
static void tick_label(char *buf, size_t n, double v, int base)
{
    if (base == 2)
        snprintf(buf, n, "%.0f", v);
    else if (v >= 1e9)
        snprintf(buf, n, "%gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, n, "%gM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, n, "%gk", v / 1e3);
    else if (v < 1e-2 && v > 0)
        snprintf(buf, n, "%.0e", v);
    else
        snprintf(buf, n, "%g", v);
}

/* ---- text ----
 * cairo's SVG surface draws text as glyph outlines, which neither a screen
 * reader nor a test can read. An SVG chart records its texts instead
 * (placed with cairo's own extents) and write_svg emits them as <text>
 * elements; a PNG draws them. */
struct svg_text {
    double x, y, size, deg, rgb[3];
    char *s;
};
struct text_log { struct svg_text *v; size_t n, cap; };
static const cairo_user_data_key_t text_log_key;

/* Font sizes are for a 960 x 640 chart; a small one (under 720 x 480)
 * draws them at this share, set by each draw function (one chart at a
 * time: charts are drawn on the main thread). */
static double font_k = 1;
#define NARROW_K 0.8

static bool narrow(double w, double h)
{
    return w < 720 || h < 480;
}

static void text_record(struct text_log *log, cairo_t *cr, double x, double y,
                        double size, double angle, const char *s)
{
    struct svg_text *t;
    double a;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 64;
        log->v = xrealloc(log->v, log->cap * sizeof *log->v);
    }
    t = &log->v[log->n++];
    *t = (struct svg_text){ x, y, size, angle * 180 / PI, { 0, 0, 0 },
                            xstrdup(s) };
    cairo_pattern_get_rgba(cairo_get_source(cr), &t->rgb[0], &t->rgb[1],
                           &t->rgb[2], &a);
}

static void text(cairo_t *cr, double x, double y, const char *s, double align_x,
                 double align_y, double size, double angle)
{
    struct text_log *log = cairo_get_user_data(cr, &text_log_key);
    cairo_text_extents_t e;
    double ox, oy;
    size *= font_k;
    cairo_save(cr);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    ox = -align_x * e.width - e.x_bearing;
    oy = -align_y * e.height - e.y_bearing;
    if (log)                    /* the baseline origin, rotated into place */
        text_record(log, cr, x + ox * cos(angle) - oy * sin(angle),
                    y + ox * sin(angle) + oy * cos(angle), size, angle, s);
    else {
        cairo_translate(cr, x, y);
        cairo_rotate(cr, angle);
        cairo_move_to(cr, ox, oy);
        cairo_show_text(cr, s);
    }
    cairo_restore(cr);
}

/* The width of s at a font size, in pixels. */
static double text_width(cairo_t *cr, const char *s, double size)
{
    cairo_text_extents_t e;
    cairo_save(cr);
    cairo_set_font_size(cr, size * font_k);
    cairo_text_extents(cr, s, &e);
    cairo_restore(cr);
    return e.x_advance;
}

/* A light grid line across the area at pixel px. */
static void grid_line(cairo_t *cr, const struct area *r, double px, bool vertical)
{
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    if (vertical) {
        cairo_move_to(cr, r->x0, px);
        cairo_line_to(cr, r->x1, px);
    } else {
        cairo_move_to(cr, px, r->y0);
        cairo_line_to(cr, px, r->y1);
    }
    cairo_stroke(cr);
}

/* The tick values of an axis into v (at most n): on a linear axis 1, 2 or
 * 5 times a power of ten; on a log axis each power of the base, and on a
 * base-10 axis of at most three decades also 2 and 5 times each, so values
 * between the decades can be read. Returns the count. */
static int tick_values(const struct axis *a, int base, double *v, int n)
{
    int k = 0;
    if (!a->log) {
        double span = a->hi - a->lo, p = pow(10, floor(log10(span)));
        double step = span / p > 5 ? p : span / p > 2 ? p / 2 : p / 5;
        for (double x = a->lo; x <= a->hi * (1 + 1e-9) && k < n; x += step)
            v[k++] = fabs(x) < step * 1e-9 ? 0 : x;
        return k;
    }
    bool fine = base == 10 && a->hi / a->lo <= 1e3 * (1 + 1e-9);
    for (double x = a->lo; x <= a->hi * (1 + 1e-9) && k < n; x *= base) {
        v[k++] = x;
        for (int m = 2; fine && m <= 5 && x * m <= a->hi * (1 + 1e-9) && k < n;
             m += 3)
            v[k++] = x * m;
    }
    return k;
}

/* Ticks, grid and labels of one axis along an area side; a label that
 * would run into the one before it is left out (its grid line stays). */
static void ticks(cairo_t *cr, const struct axis *a, const struct area *r,
                  bool vertical, int base, bool labels)
{
    double v[64], last = -INFINITY;
    int n = tick_values(a, base, v, 64);
    char buf[32];
    for (int i = 0; i < n; i++) {
        double px = vertical ? map(a, v[i], r->y1, r->y0) : map(a, v[i], r->x0, r->x1);
        double half;
        grid_line(cr, r, px, vertical);
        if (!labels)
            continue;
        tick_label(buf, sizeof buf, v[i], a->log ? base : 10);
        half = vertical ? 7 : text_width(cr, buf, 11) / 2 + 3;
        if ((vertical ? -px : px) - half < last)
            continue;
        last = (vertical ? -px : px) + half;
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        if (vertical)
            text(cr, r->x0 - 6, px, buf, 1.0, 0.5, 11, 0);
        else
            text(cr, px, r->y1 + 6, buf, 0.5, 0.0, 11, 0);
    }
}

static void frame(cairo_t *cr, const struct area *r)
{
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, r->x0, r->y0, r->x1 - r->x0, r->y1 - r->y0);
    cairo_stroke(cr);
}

static void legend(cairo_t *cr, double x, double y, const char *const *names,
                   int n, bool boxes)
{
    double dy = 16 * font_k;
    for (int i = 0; i < n; i++) {
        const double *c = palette[i % 8];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        if (boxes)
            cairo_rectangle(cr, x, y + dy * i - 5, 12, 10);
        else {
            cairo_set_line_width(cr, 2.5);
            cairo_move_to(cr, x, y + dy * i);
            cairo_line_to(cr, x + 14, y + dy * i);
            cairo_stroke(cr);
            cairo_arc(cr, x + 7, y + dy * i, 3.5, 0, 2 * PI);
        }
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        text(cr, x + 20, y + dy * i, names[i], 0.0, 0.5, 12, 0);
    }
}

/* On a small chart the legend sits inside the area's top right corner on
 * a white box (there is no room beside it). */
static void legend_inside(cairo_t *cr, const struct area *r,
                          const char *const *names, int n, bool boxes)
{
    double wmax = 0, dy = 16 * font_k;
    for (int i = 0; i < n; i++)
        wmax = fmax(wmax, text_width(cr, names[i], 12));
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_rectangle(cr, r->x1 - wmax - 30, r->y0 + 2, wmax + 28, dy * n + 4);
    cairo_fill(cr);
    legend(cr, r->x1 - wmax - 26, r->y0 + 4 + dy / 2, names, n, boxes);
}

/* ---- surfaces ---- */

static cairo_status_t to_file(void *closure, const unsigned char *data,
                              unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_WRITE_ERROR;
}

struct membuf { char *p; size_t n, cap; };

static cairo_status_t to_mem(void *closure, const unsigned char *data,
                             unsigned int length)
{
    struct membuf *m = closure;
    if (m->n + length + 1 > m->cap) {
        m->cap = (m->n + length + 1) * 2;
        m->p = xrealloc(m->p, m->cap);
    }
    memcpy(m->p + m->n, data, length);
    m->n += length;
    m->p[m->n] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

static void xml_escaped(FILE *fp, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        default:  fputc(*s, fp);
        }
}

static void svg_texts(FILE *fp, const struct text_log *log)
{
    for (size_t i = 0; i < log->n; i++) {
        const struct svg_text *t = &log->v[i];
        fprintf(fp, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"sans-serif\" "
                "font-size=\"%g\" fill=\"rgb(%d,%d,%d)\"", t->x, t->y, t->size,
                (int)lround(255 * t->rgb[0]), (int)lround(255 * t->rgb[1]),
                (int)lround(255 * t->rgb[2]));
        if (t->deg != 0)
            fprintf(fp, " transform=\"rotate(%g %.2f %.2f)\"", t->deg, t->x, t->y);
        fputc('>', fp);
        xml_escaped(fp, t->s);
        fputs("</text>\n", fp);
    }
}

/* A <title> and <desc> right after the <svg> tag say in words what the
 * chart shows (SVG accessibility); the texts go last, above the drawing. */
static int write_svg(FILE *fp, const struct membuf *m, const char *title,
                     const char *desc, const struct text_log *log)
{
    const char *svg = m->p ? strstr(m->p, "<svg") : NULL;
    const char *end = svg ? strchr(svg, '>') : NULL;
    const char *close = end ? strstr(end, "</svg>") : NULL;
    if (!close)
        return -1;
    fwrite(m->p, 1, (size_t)(end + 1 - m->p), fp);
    fputs("\n<title>", fp);
    xml_escaped(fp, title);
    fputs("</title>\n<desc>", fp);
    xml_escaped(fp, desc);
    fputs("</desc>", fp);
    fwrite(end + 1, 1, (size_t)(close - end - 1), fp);
    svg_texts(fp, log);
    fputs(close, fp);
    return ferror(fp) ? -1 : 0;
}

typedef void (*draw_fn)(cairo_t *cr, double w, double h, const void *arg);

/* Draw onto a new surface (recording SVG into mem) and finish it: PNG is
 * written to fp here. TPL_EIO when cairo fails. */
static int paint(FILE *fp, struct membuf *mem, struct text_log *log, int w,
                 int h, draw_fn draw, const void *arg)
{
    bool svg = log != NULL;
    cairo_surface_t *s = svg ? cairo_svg_surface_create_for_stream(to_mem, mem, w, h)
                             : cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    int rc = 0;
    if (log)
        cairo_set_user_data(cr, &text_log_key, log, NULL);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    draw(cr, w, h, arg);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (!svg && cairo_surface_write_to_png_stream(s, to_file, fp) !=
                CAIRO_STATUS_SUCCESS)
        rc = TPL_EIO;
    cairo_surface_finish(s);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        rc = TPL_EIO;
    cairo_surface_destroy(s);
    cairo_debug_reset_static_data();    /* cairo's font caches and */
    FcFini();                           /* fontconfig's, so nothing leaks */
    return rc;
}

static int render(const char *path, int w, int h, draw_fn draw, const void *arg,
                  const char *title, const char *desc, struct tpl_err *err)
{
    struct tpl_outfile o;
    struct membuf mem = { 0 };
    struct text_log log = { 0 };
    bool svg = has_ext(path, ".svg");
    int rc;
    if (!res_chart_path_ok(path))
        return tpl_errorf(err, TPL_EUSAGE, "--chart '%s': the name must end in "
                          ".svg or .png", path);
    if ((rc = tpl_outfile_open(&o, path, err)))
        return rc;
    rc = paint(o.fp, &mem, svg ? &log : NULL, w, h, draw, arg);
    if (rc == 0 && svg && write_svg(o.fp, &mem, title, desc, &log))
        rc = TPL_EIO;
    free(mem.p);
    for (size_t i = 0; i < log.n; i++)
        free(log.v[i].s);
    free(log.v);
    if (rc) {
        tpl_outfile_abort(&o);
        return tpl_errorf(err, TPL_EIO, "cannot write the chart '%s'", path);
    }
    return tpl_outfile_commit(&o, err);
}

/* ---- line charts ---- */

/* The x range over every series of every panel (1..2 when empty). */
static void x_range(const struct chart_lines *c, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int p = 0; p < c->n_panels; p++)
        for (int s = 0; s < c->panels[p].n_series; s++)
            for (int i = 0; i < c->panels[p].series[s].n; i++) {
                *lo = fmin(*lo, c->panels[p].series[s].x[i]);
                *hi = fmax(*hi, c->panels[p].series[s].x[i]);
            }
    if (!isfinite(*lo))
        *lo = 1, *hi = 2;
}

/* The y axis of a panel over its positive values (1..10 when none). */
static void y_axis(const struct chart_panel *pn, struct axis *ay)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < pn->n_series; s++)
        for (int i = 0; i < pn->series[s].n; i++)
            if (pn->series[s].y[i] > 0) {
                lo = fmin(lo, pn->series[s].y[i]);
                hi = fmax(hi, pn->series[s].y[i]);
            }
    if (!isfinite(lo))
        lo = 1, hi = 10;
    fit_axis(ay, lo, hi, pn->logy, 10);
}

struct plot {                   /* where a series is drawn */
    const struct axis *ax, *ay;
    const struct area *r;
};

/* The line through a series' points; a point y <= 0 breaks it. */
static void series_line(cairo_t *cr, const struct chart_series *se,
                        const struct plot *pl)
{
    bool pen = false;
    cairo_set_line_width(cr, 2.0);
    for (int i = 0; i < se->n; i++) {
        double px, py;
        if (se->y[i] <= 0) {
            pen = false;
            continue;
        }
        px = map(pl->ax, se->x[i], pl->r->x0, pl->r->x1);
        py = map(pl->ay, se->y[i], pl->r->y1, pl->r->y0);
        pen ? cairo_line_to(cr, px, py) : cairo_move_to(cr, px, py);
        pen = true;
    }
    cairo_stroke(cr);
}

/* A marker on each point: filled where marked (or when nothing is). */
static void series_markers(cairo_t *cr, const struct chart_series *se,
                           const struct plot *pl, const double *col)
{
    for (int i = 0; i < se->n; i++) {
        if (se->y[i] <= 0)
            continue;
        cairo_arc(cr, map(pl->ax, se->x[i], pl->r->x0, pl->r->x1),
                  map(pl->ay, se->y[i], pl->r->y1, pl->r->y0), 4, 0, 2 * PI);
        if (!se->marked || se->marked[i])
            cairo_fill(cr);
        else {
            cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, col[0], col[1], col[2]);
            cairo_stroke(cr);
        }
    }
}

/* The dashed vertical line at mark_x, labelled in the last panel. */
static void x_mark(cairo_t *cr, const struct chart_lines *c,
                   const struct plot *pl, bool top)
{
    double px = map(pl->ax, c->mark_x, pl->r->x0, pl->r->x1), dash = 5;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_dash(cr, &dash, 1, 0);
    cairo_move_to(cr, px, pl->r->y0);
    cairo_line_to(cr, px, pl->r->y1);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    if (top && c->mark_label)   /* low in the last panel: clear of legends */
        text(cr, px - 4, pl->r->y1 - 4, c->mark_label, 1.0, 1.0, 11, 0);
}

static void draw_panel(cairo_t *cr, const struct chart_lines *c, int p,
                       const struct axis *ax, const struct area *r, bool lines)
{
    const struct chart_panel *pn = &c->panels[p];
    int n = pn->n_series < 8 ? pn->n_series : 8;
    const char *names[8];
    struct axis ay;
    struct plot pl = { ax, &ay, r };
    y_axis(pn, &ay);
    ticks(cr, ax, r, false, c->x_decimal ? 10 : 2, p == c->n_panels - 1);
    ticks(cr, &ay, r, true, 10, true);
    frame(cr, r);
    text(cr, 18, (r->y0 + r->y1) / 2, pn->ylabel, 0.5, 0.5,
         fmin(12, 12 * (r->y1 - r->y0) / fmax(1, text_width(cr, pn->ylabel, 12))),
         -PI / 2);
    for (int s = 0; s < n; s++) {
        const double *col = palette[s % 8];
        names[s] = pn->series[s].name;
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        if (lines)
            series_line(cr, &pn->series[s], &pl);
        else
            cairo_new_path(cr);         /* no stray line to the first marker */
        series_markers(cr, &pn->series[s], &pl, col);
    }
    if (c->mark_x > 0)
        x_mark(cr, c, &pl, p == c->n_panels - 1);
    if (font_k < 1)
        legend_inside(cr, r, names, n, false);
    else
        legend(cr, r->x1 + 18, r->y0 + 10, names, n, false);
}

static void draw_chart(cairo_t *cr, double w, double h,
                       const struct chart_lines *c, bool lines)
{
    double top, bottom, gap, left, right, ph;
    double xlo, xhi;
    struct axis ax;
    font_k = narrow(w, h) ? NARROW_K : 1;
    top = (c->note ? 58 : 48) * font_k;
    bottom = h - 52 * font_k;
    gap = 26 * font_k;
    left = 84 * font_k;
    right = font_k < 1 ? w - 24 : w - 250;
    ph = (bottom - top - gap * (c->n_panels - 1)) / c->n_panels;
    x_range(c, &xlo, &xhi);
    fit_axis(&ax, xlo, xhi, c->logx, c->x_decimal ? 10 : 2);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, w / 2, 14, c->title, 0.5, 0.0, 16, 0);
    if (c->note) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        text(cr, w / 2, 34 * font_k, c->note, 0.5, 0.0, 11, 0);
    }
    for (int p = 0; p < c->n_panels; p++) {
        struct area r = { left, top + p * (ph + gap), right,
                          top + p * (ph + gap) + ph };
        draw_panel(cr, c, p, &ax, &r, lines);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, (left + right) / 2, h - 18, c->xlabel, 0.5, 0.5, 12, 0);
}

static void draw_lines(cairo_t *cr, double w, double h, const void *arg)
{
    draw_chart(cr, w, h, arg, true);
}

static void draw_points(cairo_t *cr, double w, double h, const void *arg)
{
    draw_chart(cr, w, h, arg, false);
}

/* "x: ...; y: ...; series: a, b" for the SVG description. */
static void describe(char *buf, size_t n, const char *x, const char *const *ys,
                     int n_y, const char *const *series, int n_series)
{
    size_t len = (size_t)snprintf(buf, n, "x: %s; y:", x ? x : "");
    for (int i = 0; i < n_y && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s %s", i ? "," : "", ys[i]);
    if (len < n)
        len += (size_t)snprintf(buf + len, n - len, "; series:");
    for (int i = 0; i < n_series && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s %s", i ? "," : "",
                                series[i]);
}

static int lines_or_points(const char *path, int width, int height,
                           const struct chart_lines *c, bool lines,
                           struct tpl_err *err)
{
    const char *ys[8], *series[16];
    char desc[1024];
    int ny = 0, ns = 0;
    for (int p = 0; p < c->n_panels && ny < 8; p++) {
        ys[ny++] = c->panels[p].ylabel;
        for (int s = 0; s < c->panels[p].n_series && ns < 16; s++)
            series[ns++] = c->panels[p].series[s].name;
    }
    describe(desc, sizeof desc, c->xlabel, ys, ny, series, ns);
    return render(path, width, height, lines ? draw_lines : draw_points, c,
                  c->title, desc, err);
}

int res_chart_lines_write(const char *path, int width, int height,
                          const struct chart_lines *c, struct tpl_err *err)
{
    return lines_or_points(path, width, height, c, true, err);
}

int res_chart_scatter_write(const char *path, int width, int height,
                            const struct chart_lines *c, struct tpl_err *err)
{
    return lines_or_points(path, width, height, c, false, err);
}

/* ---- stacked bars ---- */

/* The tallest stack. */
static double bars_max(const struct chart_bars *c)
{
    double hi = 0;
    for (int b = 0; b < c->n_bars; b++) {
        double sum = 0;
        for (int s = 0; s < c->n_stacks; s++)
            sum += c->values[b * c->n_stacks + s];
        hi = fmax(hi, sum);
    }
    return hi;
}

/* Where bar b starts, and its slot: groups get half a slot between them. */
static double bar_x(const struct chart_bars *c, int b, const struct area *r,
                    double *slot)
{
    int g = c->per_group > 0 ? b / c->per_group : 0;
    int n_gaps = c->per_group > 0 ? (c->n_bars - 1) / c->per_group : 0;
    *slot = (r->x1 - r->x0) / (c->n_bars + 0.5 * n_gaps > 0
                               ? c->n_bars + 0.5 * n_gaps : 1);
    return r->x0 + *slot * (b + 0.5 * g);
}

/* A label above a bar, one word a line (narrow bars), the first lowest. */
static void top_label(cairo_t *cr, double x, double y, const char *s)
{
    char buf[96], *save, *word;
    int line = 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (word = strtok_r(buf, " ", &save); word; word = strtok_r(NULL, " ", &save))
        text(cr, x, y - 11 * font_k * line++, word, 0.5, 1.0, 9, 0);
}

/* Bar b: its stacks bottom up, its label above (tops) and under the
 * area; with more bars than labels fit, every k-th label only. */
static void draw_bar(cairo_t *cr, const struct chart_bars *c, int b,
                     const struct axis *ay, const struct area *r)
{
    double slot, x = bar_x(c, b, r, &slot), base = 0, bw = slot * 0.6;
    int every = (int)ceil(c->n_bars * 14 * font_k / (r->x1 - r->x0));
    x += slot * 0.2;
    for (int s = 0; s < c->n_stacks; s++) {
        double v = c->values[b * c->n_stacks + s];
        double y0 = map(ay, base, r->y1, r->y0), y1 = map(ay, base + v, r->y1, r->y0);
        const double *col = palette[s % 8];
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_rectangle(cr, x, y1, bw, y0 - y1);
        cairo_fill(cr);
        base += v;
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    if (c->tops && c->tops[b] && c->tops[b][0])
        top_label(cr, x + bw / 2, map(ay, base, r->y1, r->y0) - 3, c->tops[b]);
    if (every <= 1 || b % every == 0)
        text(cr, x + bw / 2 + 4, r->y1 + 8, c->bars[b], 1.0, 0.5, 10, -PI / 4);
}

/* Group labels under the bar labels. */
static void draw_groups(cairo_t *cr, const struct chart_bars *c,
                        const struct area *r, double y)
{
    double slot;
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int b = 0; c->per_group > 0 && c->groups && b < c->n_bars;
         b += c->per_group) {
        int last = b + c->per_group - 1 < c->n_bars ? b + c->per_group - 1
                                                    : c->n_bars - 1;
        double x0 = bar_x(c, b, r, &slot), x1 = bar_x(c, last, r, &slot) + slot;
        text(cr, (x0 + x1) / 2, y, c->groups[b / c->per_group], 0.5, 0.5, 12, 0);
    }
}

static void draw_bars(cairo_t *cr, double w, double h, const void *arg)
{
    const struct chart_bars *c = arg;
    struct area r;
    struct axis ay;
    double yhi = bars_max(c);
    font_k = narrow(w, h) ? NARROW_K : 1;
    r = (struct area){ 84 * font_k, 48 * font_k, font_k < 1 ? w - 24 : w - 270,
                       h - (c->groups ? 150 : 190) * font_k };
    fit_axis(&ay, 0, yhi > 0 ? yhi * (c->tops ? 1.15 : 1) : 1, false, 10);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, w / 2, 14, c->title, 0.5, 0.0, 16, 0);
    ticks(cr, &ay, &r, true, 10, true);
    for (int b = 0; b < c->n_bars; b++)
        draw_bar(cr, c, b, &ay, &r);
    draw_groups(cr, c, &r, h - 20 * font_k);
    frame(cr, &r);
    text(cr, 18, (r.y0 + r.y1) / 2, c->ylabel, 0.5, 0.5,
         fmin(12, 12 * (r.y1 - r.y0) / fmax(1, text_width(cr, c->ylabel, 12))),
         -PI / 2);
    if (font_k < 1)
        legend_inside(cr, &r, c->stacks, c->n_stacks < 8 ? c->n_stacks : 8, true);
    else
        legend(cr, r.x1 + 18, r.y0 + 10, c->stacks,
               c->n_stacks < 8 ? c->n_stacks : 8, true);
}

int res_chart_bars_write(const char *path, int width, int height,
                         const struct chart_bars *c, struct tpl_err *err)
{
    char desc[2048];
    describe(desc, sizeof desc, "bars", &c->ylabel, 1, c->stacks, c->n_stacks);
    return render(path, width, height, draw_bars, c, c->title, desc, err);
}

/* ---- heat maps ---- */

static void heat_range(const struct chart_heat *c, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < c->nx * c->ny; i++)
        if (c->values[i] > 0) {
            *lo = fmin(*lo, c->values[i]);
            *hi = fmax(*hi, c->values[i]);
        }
    if (!isfinite(*lo))
        *lo = 0, *hi = 1;
}

/* Cell (i, j): light (low) to dark blue (high), its value written in. */
static void heat_cell(cairo_t *cr, const struct chart_heat *c, int i, int j,
                      const struct area *r, double lo, double hi)
{
    double cw = (r->x1 - r->x0) / c->nx, ch = (r->y1 - r->y0) / c->ny;
    double v = c->values[j * c->nx + i], t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    double x = r->x0 + cw * i, y = r->y1 - ch * (j + 1);
    char buf[32];
    if (v <= 0)
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    else
        cairo_set_source_rgb(cr, 1 - 0.9 * t, 1 - 0.75 * t, 0.85 - 0.35 * t);
    cairo_rectangle(cr, x, y, cw, ch);
    cairo_fill(cr);
    snprintf(buf, sizeof buf, v > 0 ? "%.3g" : "-", v);
    cairo_set_source_rgb(cr, t > 0.55 && v > 0 ? 1 : 0.1, t > 0.55 && v > 0 ? 1 : 0.1,
                         t > 0.55 && v > 0 ? 1 : 0.1);
    text(cr, x + cw / 2, y + ch / 2, buf, 0.5, 0.5, 11, 0);
}

static void draw_heat(cairo_t *cr, double w, double h, const void *arg)
{
    const struct chart_heat *c = arg;
    font_k = narrow(w, h) ? NARROW_K : 1;
    struct area r = { 110, 48, w - 200, h - 70 };
    double lo, hi;
    char scale[96];
    heat_range(c, &lo, &hi);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, w / 2, 14, c->title, 0.5, 0.0, 16, 0);
    for (int j = 0; j < c->ny; j++)
        for (int i = 0; i < c->nx; i++)
            heat_cell(cr, c, i, j, &r, lo, hi);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    for (int i = 0; i < c->nx; i++)
        text(cr, r.x0 + (r.x1 - r.x0) * (i + 0.5) / c->nx, r.y1 + 12, c->xs[i],
             0.5, 0.5, 11, 0);
    for (int j = 0; j < c->ny; j++)
        text(cr, r.x0 - 8, r.y1 - (r.y1 - r.y0) * (j + 0.5) / c->ny, c->ys[j],
             1.0, 0.5, 11, 0);
    frame(cr, &r);
    text(cr, (r.x0 + r.x1) / 2, h - 18, c->xlabel, 0.5, 0.5, 12, 0);
    text(cr, 22, (r.y0 + r.y1) / 2, c->ylabel, 0.5, 0.5, 12, -PI / 2);
    snprintf(scale, sizeof scale, "%s: light %.3g, dark %.3g", c->unit, lo, hi);
    text(cr, r.x1 + 14, r.y0 + 10, scale, 0.0, 0.5, 11, 0);
}

int res_chart_heat_write(const char *path, int width, int height,
                         const struct chart_heat *c, struct tpl_err *err)
{
    char desc[512];
    describe(desc, sizeof desc, c->xlabel, &c->ylabel, 1, &c->unit, 1);
    return render(path, width, height, draw_heat, c, c->title, desc, err);
}
