/* common/log.c: "trainplan: warning: ..." lines and the progress line on
 * stderr. */
#include "common/log.h"

#include <assert.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum tpl_log_level tpl_log_level = TPL_LOG_WARN;

static const char *const level_names[TPL_LOG_COUNT] = {
    [TPL_LOG_ERROR] = "error", [TPL_LOG_WARN] = "warning",
    [TPL_LOG_INFO] = "info", [TPL_LOG_DEBUG] = "debug",
};
static_assert(TPL_LOG_COUNT == 4, "update level_names");

static bool progress_on, progress_drawn, progress_tty;
static int progress_width;              /* the widest line drawn */
static int progress_tenth = -1;         /* off a terminal: the last tenth said */
static double progress_t0;              /* the pass's start, monotonic s */
static double progress_last;            /* the last fraction drawn */

static void vline(const char *prefix, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void vline(const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void tpl_log(enum tpl_log_level level, const char *fmt, ...)
{
    char prefix[32];
    va_list ap;
    if (level > tpl_log_level)
        return;
    snprintf(prefix, sizeof prefix, "trainplan: %s: ", level_names[level]);
    va_start(ap, fmt);
    vline(prefix, fmt, ap);
    va_end(ap);
}

void tpl_log_plain(enum tpl_log_level level, const char *fmt, ...)
{
    va_list ap;
    if (level > tpl_log_level)
        return;
    va_start(ap, fmt);
    vline("", fmt, ap);
    va_end(ap);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tpl_progress_start(void)
{
    progress_t0 = mono_s();
    progress_tenth = -1;
    progress_last = 0;
}

void tpl_progress_enable(bool on)
{
    progress_on = on;
    progress_tty = isatty(STDERR_FILENO);
    tpl_progress_start();
}

bool tpl_progress_shown(void)
{
    return progress_on && tpl_log_level >= TPL_LOG_WARN;
}

/* "12 s", "3 min 05 s", "2 h 07 min" */
static void duration(char *buf, size_t n, double s)
{
    long t = lround(s);
    if (t < 60)
        snprintf(buf, n, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, n, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, n, "%ld h %02ld min", t / 3600, t / 60 % 60);
}

void tpl_progress_format(char *buf, size_t n, const char *what,
                         double fraction, double elapsed_s)
{
    char so_far[32], left[32];
    int len = snprintf(buf, n, "%s: %5.1f%%", what, 100 * fraction);
    if (len < 0 || (size_t)len >= n || !(elapsed_s >= 0))
        return;
    duration(so_far, sizeof so_far, elapsed_s);
    if (fraction >= 0.01 && fraction < 1)
        duration(left, sizeof left, elapsed_s * (1 - fraction) / fraction);
    snprintf(buf + len, n - (size_t)len, ", %s so far%s%s%s", so_far,
             fraction >= 0.01 && fraction < 1 ? ", about " : "",
             fraction >= 0.01 && fraction < 1 ? left : "",
             fraction >= 0.01 && fraction < 1 ? " left" : "");
}

/* On a terminal the line is redrawn; elsewhere one line per tenth. */
static void draw(const char *line, double fraction)
{
    int tenth = (int)(10 * fraction);
    if (progress_tty) {
        fprintf(stderr, "\r%-*s", progress_width, line);
        if ((int)strlen(line) > progress_width)
            progress_width = (int)strlen(line);
        progress_drawn = true;
    } else if (tenth > progress_tenth) {
        progress_tenth = tenth;
        fprintf(stderr, "%s\n", line);
    }
}

void tpl_progress(void *what, double fraction)
{
    char line[160];
    if (!tpl_progress_shown())
        return;
    snprintf(line, sizeof line, "%s: %5.1f%%", (const char *)what,
             100 * fraction);
    draw(line, fraction);
}

void tpl_progress_eta(void *what, double fraction)
{
    char line[160];
    if (!tpl_progress_shown())
        return;
    if (fraction < progress_last)       /* a new pass (compare: per system) */
        tpl_progress_start();
    progress_last = fraction;
    tpl_progress_format(line, sizeof line, (const char *)what, fraction,
                        mono_s() - progress_t0);
    draw(line, fraction);
}

void tpl_progress_end(void)
{
    if (progress_drawn)
        fprintf(stderr, "\r%*s\r", progress_width, "");
    progress_drawn = false;
    progress_width = 0;
}
