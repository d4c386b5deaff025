// Command printf is the printf.exe the Windows end-to-end tests put on PATH
// under Wine, so the testscripts that make their byte-exact inputs with
// `exec printf '…'` (CRLF plans, NUL bytes, a last line without newline)
// run unchanged on Windows. It does the part of POSIX printf(1) those
// scripts use: one FORMAT argument, backslash escapes (\n \r \t \v \f \a
// \b \\ \" \xHH \NNN) and %%; any other % directive or argument is an
// error, so a script that needs more fails loudly instead of writing
// something else.
//
// Test harness only: built by scripts/wintest, never shipped.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "printf (test stand-in): exactly one FORMAT argument, please")
		os.Exit(2)
	}
	out, err := expand(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "printf (test stand-in): %v\n", err)
		os.Exit(2)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		os.Exit(1)
	}
}

func expand(f string) ([]byte, error) {
	var b []byte
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '%':
			if i+1 < len(f) && f[i+1] == '%' {
				b = append(b, '%')
				i++
				continue
			}
			return nil, fmt.Errorf("unsupported directive in %q", f)
		case c != '\\' || i+1 == len(f):
			b = append(b, c)
			continue
		}
		i++
		e := f[i]
		if c, ok := escapes[e]; ok {
			b = append(b, c)
			continue
		}
		switch e {
		case 'x':
			v, n := 0, 0
			for ; n < 2 && i+1 < len(f) && isHex(f[i+1]); n++ {
				i++
				v = v*16 + hexVal(f[i])
			}
			if n == 0 {
				return nil, fmt.Errorf(`\x without hex digits in %q`, f)
			}
			b = append(b, byte(v))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			// \NNN: up to three octal digits (a leading 0 counts as one).
			v := int(e - '0')
			for n := 1; n < 3 && i+1 < len(f) && '0' <= f[i+1] && f[i+1] <= '7'; n++ {
				i++
				v = v*8 + int(f[i]-'0')
			}
			b = append(b, byte(v))
		default:
			b = append(b, '\\', e)
		}
	}
	return b, nil
}

// escapes are the one-letter escapes: \n is a newline, \\ a backslash, and
// so on.
var escapes = map[byte]byte{'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', 'f': '\f', 'a': '\a', 'b': '\b', '\\': '\\', '"': '"'}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

func hexVal(c byte) int {
	if c <= '9' {
		return int(c - '0')
	}
	return int(c|0x20-'a') + 10
}
