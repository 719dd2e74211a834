/* sweep/ckpt.c: the checkpoint: a text file, a header naming the sweep (its
 * hash) and then one line per finished item, appended in one write(2) with
 * O_APPEND and ending in its own checksum. Numbers are hexadecimal floats,
 * so a resumed sweep reads back exactly what it computed and writes the
 * same bytes. A torn last line (a kill during the write) fails its checksum
 * and is cut off when the file is opened again. */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"

#define MAGIC "trainplan-sweep-checkpoint 2"      /* 2: rows carry calibrated */

static uint64_t fnv64(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return h;
}

/* ---- one record ---- */

static size_t put_row(char *p, size_t room, const struct sweep_row *r)
{
    int n = snprintf(p, room, " %lld %d %d %s %a %a %a %a %a %a %a",
                     (long long)r->gpus, (int)r->status, (int)r->calibrated,
                     r->key[0] ? r->key : "-",
                     r->iteration_s, r->days, r->gpu_hours, r->cost_usd,
                     r->energy_kwh, r->mfu, r->margin_gib);
    return n > 0 && (size_t)n < room ? (size_t)n : room;
}

static bool get_row(char **p, struct sweep_row *r, uint64_t item)
{
    char *e;
    double *d[7] = { &r->iteration_s, &r->days, &r->gpu_hours, &r->cost_usd,
                     &r->energy_kwh, &r->mfu, &r->margin_gib };
    size_t len;
    memset(r, 0, sizeof *r);
    r->item = item;
    r->gpus = strtoll(*p, &e, 10);
    r->status = (int32_t)strtol(e, &e, 10);
    r->calibrated = strtol(e, &e, 10) != 0;
    e += strspn(e, " ");
    len = strcspn(e, " ");
    if (len == 0 || len >= sizeof r->key || r->status < 0 || r->status > 1)
        return false;
    if (!(len == 1 && *e == '-'))
        memcpy(r->key, e, len);
    e += len;
    for (int i = 0; i < 7; i++)
        *d[i] = strtod(e, &e);
    *p = e;
    return *e == ' ';
}

/* Parse one line (without its newline) into r's rows; false when torn. */
static bool parse_record(char *line, size_t len, struct sweep_result *r)
{
    char *hash = memchr(line, '#', len), *p = line;
    uint64_t item;
    if (!hash || hash == line || hash[-1] != ' ' ||
        strtoull(hash + 1, NULL, 16) != fnv64(line, (size_t)(hash - line) - 1))
        return false;
    item = strtoull(p, &p, 10);
    if (item >= r->n_items || (size_t)strtoull(p, &p, 10) != r->n_gpus)
        return false;
    for (size_t g = 0; g < r->n_gpus; g++)
        if (!get_row(&p, &r->rows[item * r->n_gpus + g], item))
            return false;
    if (!r->done[item])
        r->n_done++, r->n_resumed++;
    r->done[item] = true;
    return true;
}

/* ---- the file ---- */

static char *slurp(int fd, size_t *n)
{
    struct stat st;
    char *buf;
    ssize_t got = 0;
    if (fstat(fd, &st))
        return NULL;
    buf = xmalloc((size_t)st.st_size + 1);
    while ((size_t)got < (size_t)st.st_size) {
        ssize_t k = read(fd, buf + got, (size_t)st.st_size - (size_t)got);
        if (k <= 0)
            break;
        got += k;
    }
    buf[got] = 0;
    *n = (size_t)got;
    return buf;
}

/* Read the records after the header; return the length that is whole. */
static size_t read_records(char *buf, size_t n, size_t at, struct sweep_result *r)
{
    while (at < n) {
        char *nl = memchr(buf + at, '\n', n - at);
        if (!nl || !parse_record(buf + at, (size_t)(nl - buf - at), r))
            break;
        at = (size_t)(nl - buf) + 1;
    }
    return at;
}

static int load(struct sweep_ckpt *c, uint64_t hash, struct sweep_result *r,
                struct tpl_err *err)
{
    char head[96];
    size_t n, hl = (size_t)snprintf(head, sizeof head, MAGIC " %016llx %zu\n",
                                    (unsigned long long)hash, r->n_gpus);
    char *buf = slurp(c->fd, &n);
    size_t whole = 0;
    int rc = 0;
    if (!buf)
        return tpl_errorf(err, TPL_EIO, "cannot read '%s': %s", c->path,
                          strerror(errno));
    if (n == 0 && write(c->fd, head, hl) != (ssize_t)hl)
        rc = tpl_errorf(err, TPL_EIO, "cannot write '%s'", c->path);
    else if (n > 0 && (n < hl || memcmp(buf, head, hl)))
        rc = tpl_errorf(err, TPL_ECONFIG, "%s:1: checkpoint of another sweep "
                        "(or not a checkpoint): remove it or give the same "
                        "arguments", c->path);
    else if (n > 0 && (whole = read_records(buf, n, hl, r)) < n &&
             ftruncate(c->fd, (off_t)whole))      /* drop a torn record */
        rc = tpl_errorf(err, TPL_EIO, "cannot truncate '%s'", c->path);
    free(buf);
    return rc;
}

int sweep_ckpt_open(struct sweep_ckpt *c, const char *path, uint64_t hash,
                    struct sweep_result *r, struct tpl_err *err)
{
    int rc;
    c->path = xstrdup(path);
    c->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (c->fd < 0)
        rc = tpl_errorf(err, TPL_EIO, "cannot open '%s': %s", path,
                        strerror(errno));
    else
        rc = load(c, hash, r, err);
    if (rc)
        sweep_ckpt_close(c);
    return rc;
}

int sweep_ckpt_append(struct sweep_ckpt *c, const struct sweep_row *rows,
                      size_t n_gpus, struct tpl_err *err)
{
    size_t room = 64 + n_gpus * 320, len;
    char *buf = xmalloc(room);
    ssize_t put;
    len = (size_t)snprintf(buf, room, "%llu %zu",
                           (unsigned long long)rows[0].item, n_gpus);
    for (size_t g = 0; g < n_gpus; g++)
        len += put_row(buf + len, room - len, &rows[g]);
    len += (size_t)snprintf(buf + len, room - len, " #%016llx\n",
                            (unsigned long long)fnv64(buf, len));
    put = write(c->fd, buf, len);
    free(buf);
    if (put != (ssize_t)len)
        return tpl_errorf(err, TPL_EIO, "cannot append to '%s'", c->path);
    return 0;
}

void sweep_ckpt_close(struct sweep_ckpt *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->path);
    c->path = NULL;
}
