/* common/log.h: leveled logging to stderr; stdout carries results only. The
 * level is checked before formatting (Redis serverLog). main() sets it:
 * -q errors only, default warnings, -v also the run's figures. The same
 * level governs the progress line of long runs (git's progress.c). */
#ifndef TPL_LOG_H
#define TPL_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum tpl_log_level { TPL_LOG_ERROR, TPL_LOG_WARN, TPL_LOG_INFO, TPL_LOG_DEBUG,
                     TPL_LOG_COUNT };

extern enum tpl_log_level tpl_log_level;    /* default TPL_LOG_WARN */

/* "trainplan: warning: <message>" when 'level' is at or below the level. */
void tpl_log(enum tpl_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The line as it is ("search: 8 combinations, ..."): a run's own figures. */
void tpl_log_plain(enum tpl_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- progress: "\rsearch:  42.0%" redrawn in place on stderr ----
 * Shown only once enabled (main does it for long commands when stderr is a
 * terminal, --progress asks for it elsewhere) and while the level is at
 * least TPL_LOG_WARN (-q hides it). Off a terminal nothing is redrawn: a
 * line is written each time another tenth is done. */
void tpl_progress_enable(bool on);
bool tpl_progress_shown(void);
/* The shape of search_cfg.progress: 'what' is the title, a const char *. */
void tpl_progress(void *what, double fraction);
/* The same with the time so far and the time left at that pace, counted
 * from the last tpl_progress_start (or tpl_progress_enable). */
void tpl_progress_eta(void *what, double fraction);
void tpl_progress_start(void);
/* "search:  42.0%, 3 s so far, about 4 s left" into buf (n > 0): the time
 * left is elapsed_s x (1 - fraction) / fraction, said once 1 % is done;
 * times in s, then min and s, then h and min. Pure: the tests' seam. */
void tpl_progress_format(char *buf, size_t n, const char *what,
                         double fraction, double elapsed_s);
/* Erase the line if one was drawn. */
void tpl_progress_end(void);

#endif /* TPL_LOG_H */
