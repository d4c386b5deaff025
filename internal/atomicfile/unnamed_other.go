//go:build !linux || sdd_named_temps

package atomicfile

import (
	"errors"
	"os"
)

// Elsewhere there is no unnamed file to publish: outputs are written to
// named temporary files, which a signal handler removes (cliapp).

func openUnnamed(string) (*os.File, bool, error) { return nil, false, nil }

func linkUnnamed(*os.File, string) error { return errors.ErrUnsupported }
