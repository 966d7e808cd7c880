/* Runs argv[2..] as a child of this small process and writes the child's peak RSS (KB) and
 * CPU seconds to the file argv[1]. A benchmark in Python cannot read its children's peak
 * RSS itself: a child it forks counts Python's own resident pages until it execs. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: rss_exec <out-file> <program> [args...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("execvp");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (out) {
        fprintf(out, "%ld %f\n", ru.ru_maxrss,
                ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
        fclose(out);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
