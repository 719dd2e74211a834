/* common/err.h: the error value every library call fills, and the codes that
 * map one to one onto the program's exit codes (DESIGN.md "Errors"). Library
 * code never prints or exits: it returns a negative TPL_E* and fills the
 * caller's struct tpl_err; only cli/main.c prints and picks the exit code. */
#ifndef TPL_ERR_H
#define TPL_ERR_H

enum {
    TPL_OK      = 0,
    TPL_ENOPLAN = -1,       /* no feasible plan (exit 1) */
    TPL_EUSAGE  = -2,       /* bad command line (exit 2) */
    TPL_ECONFIG = -3,       /* bad input file or value (exit 3) */
    TPL_EIO     = -4,       /* unreadable or unwritable file (exit 4) */
    TPL_EINTR   = -130,     /* stopped by Ctrl-C, partial report (exit 128 + SIGINT) */
};

struct tpl_err {
    int  code;              /* TPL_OK or a negative TPL_E* */
    char msg[320];          /* "dgx-h100.cfg:14: 'hbm_gib' must be > 0" */
};

/* Format into err (if non-NULL) and return code, so: return tpl_errorf(...). */
int tpl_errorf(struct tpl_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exit code of a TPL_E* code: its negation; TPL_OK gives 0. */
int tpl_exit_code(int code);

/* Programmer errors only, never user input: prints file and line, aborts. */
#define TPL_BUG(...) tpl_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void tpl_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* TPL_ERR_H */
