// Command sdd-workspace is the Go drop-in for the SDD skill's bash script of the same
// name; see internal/commands for what it does and README.md for how it
// differs from the script.
package main

import (
	"os"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/commands"
)

func main() { os.Exit(cliapp.Main(commands.SDDWorkspace)) }
