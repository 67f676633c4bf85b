package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Helpers of the browser tests (the payment page's and the dashboard's): the
// real binary in headless Chromium, driven through the DevTools protocol
// (chromedp). They need Debian's chromium (/usr/bin/chromium), which .ci/run
// installs; without it, and outside CI, the tests skip. KASSA_SCREENSHOTS=DIR
// keeps a screenshot of each state at 1280 and 375 pixels wide in DIR.

// beforeScripts runs js in every page the browser opens, before the page's own scripts.
func beforeScripts(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js}); err != nil {
		t.Fatal(err)
	}
}

// holds evaluates a JavaScript condition now and fails the test with what when false.
func holds(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if !get(t, ctx, what, chromedp.Evaluate[bool](js)) {
		t.Errorf("%s: %s is false", what, js)
	}
}

// until polls a JavaScript condition until it holds (30 s at most).
func until(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	get(t, ctx, what, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(30*time.Second)))
}

// contrastJS computes the WCAG contrast ratio of an element's text against the
// background it is drawn on, counting the opacity of the element and its ancestors.
const contrastJS = `function contrast(el) {
  function rgb(s) { var m = s.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; }
  function lum(c) {
    var f = [c.r, c.g, c.b].map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2];
  }
  var fg = rgb(getComputedStyle(el).color), op = 1, bg = null;
  for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
    var cs = getComputedStyle(n);
    op *= Number(cs.opacity);
    if (!bg) { var b = rgb(cs.backgroundColor); if (b.a > 0) bg = b; }
  }
  bg = bg || { r: 255, g: 255, b: 255 };
  var a = fg.a * op, mix = { r: fg.r * a + bg.r * (1 - a), g: fg.g * a + bg.g * (1 - a), b: fg.b * a + bg.b * (1 - a) };
  var l1 = lum(mix), l2 = lum(bg);
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}`

// browser starts headless Chromium for one test, or skips when there is none
// (never in CI, where .ci/run installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("KASSA_CHROMIUM")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs the Debian package chromium")
		}
		t.Skip("chromium not installed (apt-get install chromium); the browser tests skip")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("ignore-certificate-errors", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// do runs chromedp steps and fails the test on error.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action that returns a value and fails the test on error.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// css is a CSS selector.
func css(s string) chromedp.CSS { return chromedp.CSS(s) }

// waitText waits until the element's text contains want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	js := `(function(){var e=document.querySelector(` + quote(sel) + `);return !!e && e.textContent.indexOf(` + quote(want) + `)>=0})()`
	get(t, ctx, "wait for "+sel+" to say "+want, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(30*time.Second)))
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// viewport emulates a window of w by h pixels and waits until the page has it.
func viewport(t *testing.T, ctx context.Context, w, h int64) {
	t.Helper()
	do(t, ctx, "viewport", chromedp.EmulateViewport(w, h))
	until(t, ctx, "the page is "+strconv.FormatInt(w, 10)+" px wide", "window.innerWidth==="+strconv.FormatInt(w, 10))
}

// shot keeps a screenshot of the page at 1280 and 375 pixels wide when
// KASSA_SCREENSHOTS names a folder.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("KASSA_SCREENSHOTS")
	if dir == "" {
		return
	}
	for _, w := range []int64{1280, 375} {
		viewport(t, ctx, w, 800)
		png := get(t, ctx, "screenshot", chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(dir, name+"-"+strconv.FormatInt(w, 10)+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, "reset viewport", chromedp.ResetViewport())
}
