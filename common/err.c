/* common/err.c: error formatting and the BUG() abort. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int tpl_errorf(struct tpl_err *err, int code, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

int tpl_exit_code(int code)
{
    return code < 0 ? -code : 0;
}

void tpl_bug(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "trainplan: BUG: %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
