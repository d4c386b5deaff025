// Command sdd-ledger keeps the progress ledger of a subagent-driven run: one
// verb per step of the skill, each a plain command; see internal/commands
// for what each verb does and docs/spec.md for its contract.
package main

import (
	"os"

	"github.com/sdd-go/sdd-go/internal/cliapp"
	"github.com/sdd-go/sdd-go/internal/sddledger"
)

func main() { os.Exit(cliapp.Main(sddledger.Command)) }
