/* common/log.h: leveled logging to stderr. stdout carries results only. The
 * level is checked before formatting (Redis serverLog). */
#ifndef TPL_LOG_H
#define TPL_LOG_H

enum tpl_log_level { TPL_LOG_ERROR, TPL_LOG_WARN, TPL_LOG_INFO, TPL_LOG_DEBUG,
                     TPL_LOG_COUNT };

extern enum tpl_log_level tpl_log_level;    /* default TPL_LOG_WARN */

void tpl_log(enum tpl_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* TPL_LOG_H */
