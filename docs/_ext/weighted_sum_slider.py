"""An interactive slider on the weighted-sum page: sharpen or flatten the scores.

``{weighted-sum-slider}`` with ``:scores:`` and ``:values:`` renders the
numbers for factor 1 at build time (with the reference ``weighted_sum``), so
the page is right without JavaScript; ``_static/weighted_sum_slider.js`` then
recomputes them as the slider moves. The numbers the build computed for
factors 0 and 1 are kept in ``data-expected`` for the browser test.
The label and the slider wrap onto two lines and the table scrolls inside
its box (``_static/site.css``), so the box fits a phone's screen.
"""

import html
import json

import torch
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

FACTOR_MIN, FACTOR_MAX, FACTOR_STEP = 0.0, 4.0, 0.05


def _matrix(text: str) -> list:
    rows = [[float(x) for x in row.split()] for row in text.split(";")]
    return rows if len(rows) > 1 else rows[0]


def compute(scores, values, factor: float) -> dict:
    from ex0_weighted_sum import weighted_sum

    s = torch.tensor(scores) * factor
    v = torch.tensor(values)
    return {
        "weights": [round(x, 3) for x in torch.softmax(s, dim=-1).tolist()],
        "summary": [round(x, 3) for x in weighted_sum(s, v).tolist()],
    }


def _both(zh: str, en: str) -> str:
    return f'<span class="lang-zh" lang="zh-CN">{zh}</span><span class="lang-en" lang="en">{en}</span>'


class WeightedSumSlider(SphinxDirective):
    option_spec = {"scores": _matrix, "values": _matrix}

    def run(self):
        scores, values = self.options["scores"], self.options["values"]
        now = compute(scores, values, 1.0)
        expected = {"0": compute(scores, values, 0.0), "1": now}
        rows = "".join(
            f'<tr><td>{j}</td><td>[{", ".join(f"{v:g}" for v in values[j])}]</td><td class="ws-score">{scores[j]:.2f}</td><td class="ws-weight">{w:.3f}</td></tr>' for j, w in enumerate(now["weights"])
        )
        summary = ", ".join(f"{x:.3f}" for x in now["summary"])
        markup = f"""
<div class="ws-slider" data-scores="{html.escape(json.dumps(scores))}" data-values="{html.escape(json.dumps(values))}"
     data-expected="{html.escape(json.dumps(expected))}">
  <label class="ws-control"><span class="ws-name">{_both("锐度", "sharpness")} k =
    <output class="ws-factor">1.00</output></span>
    <input type="range" class="ws-range" min="{FACTOR_MIN}" max="{FACTOR_MAX}" step="{FACTOR_STEP}" value="1"
           aria-label="k">
  </label>
  <p class="ws-note">{_both("分数乘以 k：k = 0 时一样平，k 越大越尖。", "The scores times k: all equal at k = 0, sharper as k grows.")}</p>
  <div class="ws-table-wrap">
  <table class="ws-table">
    <thead><tr><th>{_both("位置", "position")}</th><th>{_both("值", "value")}</th>
      <th>{_both("分数", "score")} × k</th><th>{_both("权重", "weight")}</th></tr></thead>
    <tbody>{rows}</tbody>
  </table>
  </div>
  <p class="ws-result">{_both("汇总", "summary")} = <output class="ws-summary">[{summary}]</output></p>
</div>
"""
        return [nodes.raw("", markup, format="html")]


def setup(app):
    app.add_directive("weighted-sum-slider", WeightedSumSlider)
    app.add_js_file("weighted_sum_slider.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
