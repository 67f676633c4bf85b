package main

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

// merchantUsage is the help of `kassa merchant`.
const merchantUsage = `usage: kassa merchant COMMAND [flags]

  create --name N --email E --password P [--mainnet]   a merchant; prints it as JSON
  enable-mainnet --id N                                grant mainnet access
  disable-two-step --id N                              turn off two-step sign-in (a lost app)

Each takes the store flags of serve (--data-dir, --database-url); "kassa merchant
COMMAND -h" lists them.
`

// isHelp reports whether arg asks for help rather than naming a subcommand.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "-help" || arg == "--help"
}

// withPositional makes fs's help start with its usage line, positional argument
// included, and what the command does.
func withPositional(fs *flag.FlagSet, usageLine, what string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n\nflags:\n", usageLine, what)
		fs.PrintDefaults()
	}
}

// version is the build as Go recorded it: the module's version, the commit and
// its time when built from a checkout, and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "kassa (unknown build)"
	}
	parts := []string{"kassa", info.Main.Version}
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))]+dirty)
	}
	if at != "" {
		parts = append(parts, at)
	}
	return strings.Join(append(parts, info.GoVersion), " ")
}
