/**
 * @file outfile.c
 * @brief Files written whole or not at all (see outfile.h).
 */
#define _GNU_SOURCE
#include "outfile.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** @brief The most temporary files one program has at once (--output, --save-input, two CSVs). */
#define MAX_PENDING 8

/* The temporary files that exist now, for the signal handler (which may only unlink). */
static char *volatile pending[MAX_PENDING];
static int handlers_installed;

static void remove_pending_and_reraise(int sig) {
    for (int i = 0; i < MAX_PENDING; ++i)
        if (pending[i])
            unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void) {
    if (handlers_installed)
        return;
    handlers_installed = 1;
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_pending_and_reraise;
        sigfillset(&sa.sa_mask);
        sigaction(signals[i], &sa, NULL);
    }
}

static void set_pending(char *tmp, char *replacement) {
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    for (int i = 0; i < MAX_PENDING; ++i)
        if (pending[i] == tmp) {
            pending[i] = replacement;
            break;
        }
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The folder a file at @p path goes in (its name without the last component; "." for none). */
static void folder_of(const char *path, char *dir, size_t len) {
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(dir, len, "%s", dirname(copy));
}

/* Whether this process may create and rename files in the folder @p dir: it exists, is a folder,
   and is writable and searchable; else HIST_ERR_USAGE naming @p option, @p path (the file or
   folder the option names) and what is wrong with @p dir. */
static hist_status check_folder(const char *option, const char *path, const char *dir,
                                const char *what) {
    struct stat st;
    if (stat(dir, &st) != 0)
        return hist_fail(HIST_ERR_USAGE, "--%s: cannot %s '%s': its folder '%s' %s", option, what,
                         path, dir, errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return hist_fail(HIST_ERR_USAGE, "--%s: cannot %s '%s': '%s' is not a folder", option, what,
                         path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return hist_fail(HIST_ERR_USAGE,
                         "--%s: cannot %s '%s': its folder '%s' is not writable (%s)", option, what,
                         path, dir, strerror(errno));
    return HIST_OK;
}

hist_status hist_outfile_check(const char *option, const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return hist_fail(HIST_ERR_USAGE, "--%s: '%s' exists and is not a regular file (%s)", option,
                         path,
                         S_ISDIR(st.st_mode)    ? "a folder"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISCHR(st.st_mode)  ? "a character device"
                         : S_ISBLK(st.st_mode)  ? "a block device"
                                                : "not a plain file");
    char dir[PATH_MAX];
    if (strlen(path) >= sizeof dir)
        return hist_fail(HIST_ERR_USAGE, "--%s: the path is longer than %d characters", option,
                         PATH_MAX - 1);
    folder_of(path, dir, sizeof dir);
    return check_folder(option, path, dir, "write");
}

hist_status hist_outdir_check(const char *option, const char *dir) {
    struct stat st;
    if (strlen(dir) >= PATH_MAX)
        return hist_fail(HIST_ERR_USAGE, "--%s: the path is longer than %d characters", option,
                         PATH_MAX - 1);
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return hist_fail(HIST_ERR_USAGE, "--%s: '%s' exists and is not a folder", option, dir);
        if (access(dir, W_OK | X_OK) != 0)
            return hist_fail(HIST_ERR_USAGE, "--%s: cannot write in '%s': not writable (%s)",
                             option, dir, strerror(errno));
        return HIST_OK;
    }
    if (errno != ENOENT)
        return hist_fail(HIST_ERR_USAGE, "--%s: cannot use '%s': %s", option, dir, strerror(errno));
    char parent[PATH_MAX];
    folder_of(dir, parent, sizeof parent);
    return check_folder(option, dir, parent, "create");
}

/* The absolute name of path's folder followed by its last component, in out. */
static int resolved_name(const char *path, char out[PATH_MAX * 2]) {
    char dir_copy[PATH_MAX], base_copy[PATH_MAX], dir[PATH_MAX];
    if (strlen(path) >= PATH_MAX)
        return 0;
    strcpy(dir_copy, path);
    strcpy(base_copy, path);
    if (!realpath(dirname(dir_copy), dir))
        return 0;
    snprintf(out, PATH_MAX * 2, "%s/%s", dir, basename(base_copy));
    return 1;
}

int hist_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[PATH_MAX * 2], rb[PATH_MAX * 2];
    if (resolved_name(a, ra) && resolved_name(b, rb))
        return strcmp(ra, rb) == 0;
    return strcmp(a, b) == 0;
}

hist_status hist_outfile_open(hist_outfile *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    const size_t len = strlen(path) + 16;
    o->tmp = malloc(len);
    if (!o->tmp)
        return hist_fail(HIST_ERR_NOMEM, "out of memory writing '%s'", path);
    snprintf(o->tmp, len, "%s.tmp.XXXXXX", path);
    install_handlers();
    int slot = -1;
    for (int i = 0; i < MAX_PENDING && slot < 0; ++i)
        if (!pending[i])
            slot = i;
    /* registered before it exists, so that a signal between mkstemp and here cannot miss it */
    if (slot >= 0)
        pending[slot] = o->tmp;
    const int fd = mkstemp(o->tmp);
    if (fd < 0 || fchmod(fd, 0644) != 0 || !(o->f = fdopen(fd, "wb"))) {
        const int err = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        set_pending(o->tmp, NULL);
        free(o->tmp);
        o->tmp = NULL;
        return hist_fail(HIST_ERR_IO, "cannot write '%s': %s", path, strerror(err));
    }
    return HIST_OK;
}

hist_status hist_outfile_close(hist_outfile *o) {
    if (!o->f)
        return HIST_OK;
    int ok = fflush(o->f) == 0 && fsync(fileno(o->f)) == 0 && !ferror(o->f);
    int err = errno;
    if (fclose(o->f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    o->f = NULL;
    if (ok)
        return HIST_OK;
    hist_outfile_discard(o);
    return hist_fail(HIST_ERR_IO, "cannot write '%s': %s", o->path, strerror(err ? err : EIO));
}

hist_status hist_outfile_commit(hist_outfile *o) {
    hist_status s = hist_outfile_close(o);
    if (s != HIST_OK)
        return s;
    if (rename(o->tmp, o->path) != 0) {
        const int err = errno;
        hist_outfile_discard(o);
        return hist_fail(HIST_ERR_IO, "cannot write '%s': %s", o->path, strerror(err));
    }
    set_pending(o->tmp, NULL);
    free(o->tmp);
    o->tmp = NULL;
    return HIST_OK;
}

void hist_outfile_discard(hist_outfile *o) {
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp) {
        unlink(o->tmp);
        set_pending(o->tmp, NULL);
        free(o->tmp);
        o->tmp = NULL;
    }
}

hist_status hist_outfile_append(hist_outfile *o, const char *path, const char *header) {
    hist_status s = hist_outfile_check("csv", path);
    if (s == HIST_OK)
        s = hist_outfile_open(o, path);
    if (s != HIST_OK)
        return s;
    FILE *old = fopen(path, "rb");
    char buf[65536];
    size_t n = 0, copied = 0;
    while (old && (n = fread(buf, 1, sizeof buf, old)) > 0 && fwrite(buf, 1, n, o->f) == n)
        copied += n;
    const int failed = old && (ferror(old) || n > 0);
    if (old)
        fclose(old);
    if (failed) {
        hist_outfile_discard(o);
        return hist_fail(HIST_ERR_IO, "cannot copy '%s' to append to it", path);
    }
    if (copied == 0)
        fputs(header, o->f);
    return HIST_OK;
}
