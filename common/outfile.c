/* common/outfile.c: write to "<dir>/.<name>.XXXXXX" and rename on success
 * (rename(2) is atomic within one file system). A symbolic link's target is
 * what gets replaced; devices and pipes (/dev/null) are written in place. */
#define _XOPEN_SOURCE 700         /* realpath */
#include "common/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"

/* The replaced file's mode, or what open(2) would give a new file (0666
 * less the umask). */
static mode_t new_file_mode(const char *path)
{
    struct stat st;
    mode_t mask;
    if (stat(path, &st) == 0)
        return st.st_mode & 07777;
    mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static void clear(struct tpl_outfile *o)
{
    free(o->path);
    free(o->tmp);
    o->fp = NULL;
    o->path = o->tmp = NULL;
}

/* A device or pipe (/dev/null, /dev/stdout): renaming over it would replace
 * it, so it is written as it is. */
static int open_in_place(struct tpl_outfile *o, const char *path,
                         const struct stat *st, struct tpl_err *err)
{
    if (S_ISDIR(st->st_mode))
        return tpl_errorf(err, TPL_EIO, "cannot write '%s': %s", path,
                          strerror(EISDIR));
    if (!(o->fp = fopen(path, "w")))
        return tpl_errorf(err, TPL_EIO, "cannot write '%s': %s", path,
                          strerror(errno));
    o->path = xstrdup(path);
    return 0;
}

/* "<dir>/.<name>.XXXXXX" beside the target, created with the mode the
 * target has or would get. */
static int open_temp(struct tpl_outfile *o, const char *path,
                     struct tpl_err *err)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path) + 16;
    int fd;
    o->tmp = xmalloc(n);
    snprintf(o->tmp, n, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
    o->path = xstrdup(path);
    fd = mkstemp(o->tmp);
    if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        tpl_errorf(err, TPL_EIO, "cannot write '%s': %s", path, strerror(e));
        clear(o);
        return TPL_EIO;
    }
    fchmod(fd, new_file_mode(path));
    return 0;
}

int tpl_outfile_open(struct tpl_outfile *o, const char *path, struct tpl_err *err)
{
    char *resolved = NULL;
    struct stat st;
    int rc;
    o->fp = NULL;
    o->path = o->tmp = NULL;
    if (!path || !strcmp(path, "-")) {
        o->fp = stdout;
        return 0;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return open_in_place(o, path, &st, err);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
        (resolved = realpath(path, NULL)))      /* replace the file, not the link */
        path = resolved;
    rc = open_temp(o, path, err);
    free(resolved);
    return rc;
}

int tpl_outfile_commit(struct tpl_outfile *o, struct tpl_err *err)
{
    int bad;
    if (!o->path) {                     /* stdout: main checks it, once */
        o->fp = NULL;
        return 0;
    }
    if (!o->tmp) {                      /* a device or pipe, written in place */
        bad = ferror(o->fp);
        bad |= fclose(o->fp) != 0;
        if (bad)
            tpl_errorf(err, TPL_EIO, "cannot write '%s'", o->path);
        clear(o);
        return bad ? TPL_EIO : 0;
    }
    errno = 0;
    bad = ferror(o->fp);
    bad |= fclose(o->fp) != 0;
    if (bad || rename(o->tmp, o->path) != 0) {
        int e = errno ? errno : EIO;
        unlink(o->tmp);
        tpl_errorf(err, TPL_EIO, "cannot write '%s': %s", o->path, strerror(e));
        clear(o);
        return TPL_EIO;
    }
    clear(o);
    return 0;
}

void tpl_outfile_abort(struct tpl_outfile *o)
{
    if (!o || !o->fp)
        return;
    if (o->path) {
        fclose(o->fp);
        if (o->tmp)
            unlink(o->tmp);
    }
    clear(o);
}
