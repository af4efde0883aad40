// The slider on the weighted-sum page: scores times k, softmax, weighted sum.
"use strict";
(function () {
  function softmax(xs) {
    const top = Math.max(...xs); // subtract the largest score: exp never overflows
    const e = xs.map((x) => Math.exp(x - top));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / total);
  }

  function weightedSum(weights, values) {
    return values[0].map((_, c) => weights.reduce((acc, w, j) => acc + w * values[j][c], 0));
  }

  function setUp(box) {
    const scores = JSON.parse(box.dataset.scores);
    const values = JSON.parse(box.dataset.values);
    const range = box.querySelector(".ws-range");
    const update = () => {
      const k = Number(range.value);
      const scaled = scores.map((s) => s * k);
      const weights = softmax(scaled);
      const summary = weightedSum(weights, values);
      box.querySelector(".ws-factor").textContent = k.toFixed(2);
      box.querySelectorAll(".ws-score").forEach((cell, j) => (cell.textContent = scaled[j].toFixed(2)));
      box.querySelectorAll(".ws-weight").forEach((cell, j) => (cell.textContent = weights[j].toFixed(3)));
      box.querySelector(".ws-summary").textContent = "[" + summary.map((x) => x.toFixed(3)).join(", ") + "]";
    };
    range.addEventListener("input", update);
    update();
  }

  document.addEventListener("DOMContentLoaded", () => document.querySelectorAll(".ws-slider").forEach(setUp));
})();
