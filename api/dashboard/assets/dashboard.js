// Kassa dashboard: small enhancements. Every page works without this script.
(function () {
  "use strict";
  // Times in the reader's own time zone (the page prints UTC).
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (!isNaN(d)) {
      el.textContent = d.toLocaleString();
      el.title = el.getAttribute("datetime");
    }
  });
  // Copy buttons: data-copy names the field to copy.
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var field = document.querySelector(btn.getAttribute("data-copy"));
      if (!field || !navigator.clipboard) { return; }
      navigator.clipboard.writeText(field.value).then(function () { btn.textContent = "Copied"; });
    });
  });
  // Confirmations before forms that cannot be undone.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { e.preventDefault(); }
    });
  });
})();
