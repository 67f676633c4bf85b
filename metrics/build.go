package metrics

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// newBuildInfo is kassa_build_info: always 1, labelled with the version, the VCS
// revision (when the build recorded one) and the Go version.
func newBuildInfo(version string) prometheus.Collector {
	revision := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if version == "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				revision = s.Value
			}
		}
	}
	if version == "" {
		version = "unknown"
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "kassa_build_info",
		Help:        "Always 1: the running build's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "go_version": runtime.Version()}})
	g.Set(1)
	return g
}
