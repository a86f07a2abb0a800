/* pe_anchor docs: a display equation wider than the content column is set in a smaller font until it fits (at least
   60 %; scripts/check_docs.py fails one that still overflows). MathJax 3 (CHTML) sizes equations in em. */
(function () {
  function fit() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (m) {
      m.style.fontSize = '';
      var w = m.scrollWidth, c = m.clientWidth;
      if (c > 0 && w > c + 1) {
        var s = Math.max(0.6, 0.98 * c / w);
        m.style.fontSize = (100 * s).toFixed(1) + '%';
        m.setAttribute('data-pe-scaled', s.toFixed(2));
      }
    });
  }
  function ready(n) {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(fit);
    else if (n < 100) setTimeout(function () { ready(n + 1); }, 100);
  }
  if (document.readyState !== 'loading') ready(0); else document.addEventListener('DOMContentLoaded', function () { ready(0); });
  window.addEventListener('resize', fit);
})();
