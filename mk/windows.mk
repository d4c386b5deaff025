# The Windows end-to-end suite, run under Wine (scripts/wintest): the
# commands, install-skill and the test programs are cross-built for
# windows/amd64 and run as PE files against this machine's git, through a
# stand-in git.exe (Wine cannot wait for a Linux child process). Needs wine64
# and the MinGW-w64 C compiler (Debian: apt-get install wine64
# gcc-mingw-w64-x86-64); without them it prints one line and succeeds.
#
#   make test-windows
#   make test-windows WINTEST_FLAGS='-v -run TestScripts/win_'   # one suite's cases, every log
#   make test-windows WINTEST_FLAGS=-keep                        # keep the Wine prefix to poke at
#
# Everything lives in one temporary directory (the Wine prefix included,
# never ~/.wine), removed at the end with the prefix's wineserver shut down.

WINTEST_FLAGS ?=

.PHONY: test-windows

## test-windows: the Windows end-to-end suite under Wine (the e2e testscripts and internal/dev/wintest).
test-windows:
	GO=$(GO) $(GO) run ./scripts/wintest $(WINTEST_FLAGS)
