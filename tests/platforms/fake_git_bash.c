/* A stand-in for Git Bash's bash.exe in the Windows smoke test (tests/platforms/smoke.sh),
 * run by dcl.exe under wine through CLAUDE_CODE_GIT_BASH_PATH. It reads the command after
 * `-c`, as bash does:
 *   spawn-sleeper <token>   starts a copy of itself (`--sleep <token>`) that sleeps ten minutes,
 *                           prints "spawned <pid>" and exits at once: a process a command
 *                           leaves behind, which dcl's Job Object must end with dcl;
 *   anything else           prints "fake bash ran: <command>" and exits 0.
 * Git for Windows cannot be installed here (no package registry has it). */
#include <windows.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--sleep") == 0) {
    Sleep(600000);
    return 0;
  }
  const char *command = NULL;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "-c") == 0) command = argv[i + 1];
  }
  if (command == NULL) {
    fprintf(stderr, "fake bash: no -c command\n");
    return 2;
  }
  const char *spawn = strstr(command, "spawn-sleeper ");
  if (spawn != NULL) {
    char self[MAX_PATH], line[2 * MAX_PATH];
    GetModuleFileNameA(NULL, self, sizeof self);
    snprintf(line, sizeof line, "\"%s\" --sleep %s", self, spawn + strlen("spawn-sleeper "));
    STARTUPINFOA si = {sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi)) {
      fprintf(stderr, "fake bash: CreateProcess failed: %lu\n", GetLastError());
      return 1;
    }
    printf("spawned %lu\n", pi.dwProcessId);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return 0;
  }
  printf("fake bash ran: %s\n", command);
  return 0;
}
