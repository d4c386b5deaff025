//go:build !windows && !darwin

package workspace

// host is the path style of the OS this binary was built for.
var host = unixStyle
