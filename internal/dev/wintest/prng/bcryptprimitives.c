/*
 * bcryptprimitives.dll for Wine 8.0, which has none: since Go 1.22 every Go
 * program on Windows takes its random bytes from ProcessPrng in this DLL and
 * dies at start-up without it ("bcryptprimitives.dll not found"). This one
 * exports ProcessPrng on top of advapi32's SystemFunction036 (RtlGenRandom),
 * which Wine has. scripts/wintest builds it with x86_64-w64-mingw32-gcc into
 * the test's own Wine prefix; it is never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a ULONG length: fill larger requests in pieces. */
    while (length > 0) {
        ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        length -= n;
    }
    return TRUE;
}
