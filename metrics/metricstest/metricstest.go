// Package metricstest reads /metrics for tests: it scrapes, checks that the answer
// is valid Prometheus text format and finds series by name and labels.
package metricstest

import (
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url (a /metrics address), fails t unless the answer is 200 in the
// Prometheus text format, and returns its families.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	return Parse(t, ScrapeText(t, url))
}

// ScrapeText GETs url and returns the text of a 200 answer in the Prometheus text
// format (by its content type).
func ScrapeText(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("scrape %s: %d %s\n%s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return string(body)
}

// Parse reads text in the Prometheus text format, failing t if it is not.
func Parse(t testing.TB, text string) Families {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("not the Prometheus text format: %v\n%s", err, text)
	}
	return fams
}

// Promtool runs `promtool check metrics` on text, which checks names, help texts
// and units against Prometheus' conventions, and fails t on any complaint. It
// skips t when promtool (Debian's prometheus package) is not installed.
func Promtool(t testing.TB, text string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// Value returns the value of the series of family name whose labels include
// labels (name, value pairs): a counter's or gauge's value, a histogram's count.
// It fails t unless exactly one series matches.
func (f Families) Value(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	v, ok := f.Lookup(name, labels...)
	if !ok {
		t.Fatalf("no single series %s%v among:\n%s", name, labels, f.Names())
	}
	return v
}

// Lookup is Value without failing: ok is false unless exactly one series matches.
func (f Families) Lookup(name string, labels ...string) (v float64, ok bool) {
	fam := f[name]
	if fam == nil {
		return 0, false
	}
	found := 0
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		found++
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Histogram != nil:
			v = float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		}
	}
	return v, found == 1
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		ok := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// HasPrefix reports whether some family's name starts with prefix ("kassa_go_").
func (f Families) HasPrefix(prefix string) bool {
	for n := range f {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// Names lists the families' names, sorted, one a line.
func (f Families) Names() string {
	var names []string
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "\n")
}
