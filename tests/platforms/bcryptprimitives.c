/* Wine 8 (Debian 12) lacks bcryptprimitives.dll, whose ProcessPrng Rust's standard library
 * (1.78+) takes random bytes from on Windows. The smoke test installs this stand-in into
 * its own wine prefix only: ProcessPrng through RtlGenRandom (advapi32's SystemFunction036),
 * which Wine has. Windows itself has had the real DLL since Windows 8. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
