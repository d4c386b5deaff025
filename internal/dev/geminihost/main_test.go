package geminihost

import (
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
