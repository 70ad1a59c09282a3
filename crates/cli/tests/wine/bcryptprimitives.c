/* A stand-in for Windows' bcryptprimitives.dll, for the Windows check under wine only
 * (crates/cli/tests/windows.rs builds it with x86_64-w64-mingw32-gcc into the test's own wine
 * prefix; it is never shipped). Rust's standard library takes its random bytes from
 * ProcessPrng, which Windows 10 and later export from bcryptprimitives.dll; wine 8 has no such
 * DLL. This one forwards to RtlGenRandom (advapi32's SystemFunction036), which wine has. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
