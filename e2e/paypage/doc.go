// Package paypage holds the browser tests of the hosted payment page: the real
// kassa binary, driven in headless Chromium through the DevTools protocol
// (chromedp). They need the Debian package chromium (/usr/bin/chromium), which
// .ci/run installs; without it, and outside CI, they skip.
//
// KASSA_SCREENSHOTS=docs/page go test ./e2e/paypage keeps a screenshot of each
// state at 1280 and 375 pixels wide in that folder.
package paypage
