/* common/log.c: "trainplan: warning: ..." lines and the progress line on
 * stderr. */
#include "common/log.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

enum tpl_log_level tpl_log_level = TPL_LOG_WARN;

static const char *const level_names[TPL_LOG_COUNT] = {
    [TPL_LOG_ERROR] = "error", [TPL_LOG_WARN] = "warning",
    [TPL_LOG_INFO] = "info", [TPL_LOG_DEBUG] = "debug",
};
static_assert(TPL_LOG_COUNT == 4, "update level_names");

static bool progress_on, progress_drawn;

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

void tpl_progress_enable(bool on)
{
    progress_on = on;
}

bool tpl_progress_shown(void)
{
    return progress_on && tpl_log_level >= TPL_LOG_WARN;
}

void tpl_progress(void *what, double fraction)
{
    if (!tpl_progress_shown())
        return;
    fprintf(stderr, "\r%s: %5.1f%%", (const char *)what, 100 * fraction);
    progress_drawn = true;
}

void tpl_progress_end(void)
{
    if (progress_drawn)
        fputs("\r               \r", stderr);
    progress_drawn = false;
}
