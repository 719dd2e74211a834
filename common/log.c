/* common/log.c: "trainplan: warning: ..." lines on stderr. */
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

void tpl_log(enum tpl_log_level level, const char *fmt, ...)
{
    va_list ap;
    if (level > tpl_log_level)
        return;
    fprintf(stderr, "trainplan: %s: ", level_names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
