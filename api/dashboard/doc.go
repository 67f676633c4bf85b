// Package dashboard serves the merchant dashboard under /dashboard: server-rendered
// pages (html/template, embedded CSS and a small script) that work without
// JavaScript, with post/redirect/get forms and all list state in the URL
// (decisions.md, "Merchant dashboard"). A merchant signs in with the account's
// email and password; the session lives in the store (signin.DashboardSessionStore)
// and the browser holds only its token, in an HttpOnly SameSite cookie. With the
// optional TOTP second factor on (package secondfactor), the password leads to a
// short-lived half sign-in that only a code turns into a session.
// Cross-origin form posts are refused (403). The pages call the same services as
// the API, so no rule exists twice, and every query is the signed-in merchant's.
package dashboard
