"""The report's page in headless Chromium, English and French: every figure loads, every
contents link reaches its section, nothing overflows its column at 1280 px and at 390 px, the
contents stay in view, and dark mode applies. Skips without Chromium unless
BALANCE_REQUIRE_BROWSER=1 (tests/browser.py)."""
from pathlib import Path

import pytest

from browser import chromium_context

LANGS = ("en", "fr")
WIDTHS = (1280, 390)

#: every element of the text column that sticks out of it (scroll boxes and figures' insides
#: are checked as boxes), and whether the page scrolls sideways
OVERFLOW = """() => {
  const main = document.querySelector('main');
  const box = main.getBoundingClientRect(), cs = getComputedStyle(main);
  const left = box.left + parseFloat(cs.paddingLeft) - 1;
  const right = box.right - parseFloat(cs.paddingRight) + 1;
  const bad = [];
  for (const el of main.querySelectorAll('*')) {
    const scroller = el.parentElement && el.parentElement.closest('.tbl, svg');
    if (scroller) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const spills = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0
      && getComputedStyle(el).overflowX === 'visible';  // content wider than its box
    if (r.right > right || r.left < left || spills)
      bad.push(`${el.tagName.toLowerCase()}#${el.id || ''}.${el.getAttribute('class') || ''}`
               + ` [${Math.round(r.left)}, ${Math.round(r.right)}] not in`
               + ` [${Math.round(left)}, ${Math.round(right)}]`);
  }
  return {bad: bad.slice(0, 8), count: bad.length,
          scroll: document.documentElement.scrollWidth, width: window.innerWidth};
}"""

#: figures: <img> decoded with a size, inline <svg> drawn with a size
FIGURES = """() => Array.from(document.querySelectorAll('figure')).map(f => {
  const img = f.querySelector('img'), svg = f.querySelector('svg');
  const r = (img || svg).getBoundingClientRect();
  return {id: f.id, kind: img ? 'img' : 'svg', width: r.width, height: r.height,
          loaded: img ? (img.complete && img.naturalWidth > 0) : svg.childElementCount > 0,
          caption: (f.querySelector('figcaption') || {}).textContent || ''};
})"""

LINKS = """() => Array.from(document.querySelectorAll('a[href]')).map(a => {
  const href = a.getAttribute('href');
  const target = href.startsWith('#') ? document.getElementById(href.slice(1)) : null;
  return {href, inToc: !!a.closest('nav.toc'), target: !!target,
          section: !!(target && target.tagName === 'SECTION')};
})"""

COLOURS = """() => {
  const style = el => getComputedStyle(el);
  const card = document.querySelector('figure .card');
  return {body: style(document.body).backgroundColor,
          main: style(document.querySelector('main')).backgroundColor,
          text: style(document.querySelector('main p') || document.body).color,
          card: card ? style(card).backgroundColor : null};
}"""


def luminance(css: str) -> float:
    """Relative luminance (0 black .. 1 white) of a computed ``rgb(...)`` colour."""
    channels = [float(v) / 255 for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


class Pages(dict):
    """The default report's page per language, drawn on first use from the run's one default
    report (tests/conftest.py), so a worker that runs only the French tests draws only the
    French page."""

    def __init__(self, report):
        super().__init__()
        self.report = report

    def __missing__(self, lang: str) -> Path:
        self[lang] = self.report.folder(lang) / "index.html"
        return self[lang]


@pytest.fixture(scope="module")
def pages(default_report) -> Pages:
    return Pages(default_report)


@pytest.fixture(scope="module")
def context(tmp_path_factory):
    with chromium_context(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        yield ctx


def open_page(context, path: Path, width: int, scheme: str = "light"):
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.goto(path.as_uri(), wait_until="load")
    return page


@pytest.mark.parametrize("lang", LANGS)
def test_figures_load_and_links_resolve(context, pages, lang):
    page = open_page(context, pages[lang], 1280)
    try:
        figures = page.evaluate(FIGURES)
        links = page.evaluate(LINKS)
    finally:
        page.close()
    assert len(figures) >= 10, figures
    for number, fig in enumerate(figures, start=1):
        assert fig["loaded"] and fig["width"] > 100 and fig["height"] > 50, fig
        assert fig["caption"].startswith(f"Figure {number}."), fig  # numbered in order
    toc = [link["href"] for link in links if link["inToc"]]
    assert len(set(toc)) >= 10 and all(toc.count(h) == 2 for h in toc), toc  # both lists
    toc_links = [link for link in links if link["inToc"]]
    assert all(link["section"] for link in toc_links), [lk for lk in toc_links if not lk["section"]]
    assert all(link["target"] for link in links), [link for link in links if not link["target"]]
    assert all(link["href"].startswith("#") for link in links)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_overflows_its_column(context, pages, lang, width):
    page = open_page(context, pages[lang], width)
    try:
        found = page.evaluate(OVERFLOW)
        side = page.evaluate("""() => Array.from(document.querySelectorAll('nav.toc')).map(n =>
            ({shown: getComputedStyle(n).display !== 'none', position: getComputedStyle(n).position,
              right: n.getBoundingClientRect().right}))""")
        main_left = page.evaluate("document.querySelector('main').getBoundingClientRect().left")
    finally:
        page.close()
    assert found["count"] == 0, found["bad"]
    assert found["scroll"] <= found["width"], found  # no sideways scrolling of the page
    shown = [n for n in side if n["shown"]]
    assert len(shown) == 1, side  # one contents list at a time
    if width >= 1200:  # a sticky side column beside the text
        assert shown[0]["position"] == "sticky" and shown[0]["right"] <= main_left, side
    else:
        assert shown[0]["position"] == "static", side


@pytest.mark.parametrize("lang", LANGS)
def test_dark_mode_applies(context, pages, lang):
    colours = {}
    for scheme in ("light", "dark"):
        page = open_page(context, pages[lang], 1280, scheme)
        try:
            colours[scheme] = page.evaluate(COLOURS)
        finally:
            page.close()
    light, dark = colours["light"], colours["dark"]
    assert luminance(light["main"]) > 0.9 and luminance(light["text"]) < 0.1, light
    assert luminance(dark["main"]) < 0.05 and luminance(dark["body"]) < 0.05, dark
    assert luminance(dark["text"]) > 0.6, dark  # light text on the dark page
    assert luminance(dark["card"]) > 0.9, dark  # figures keep their light card


@pytest.mark.parametrize("lang", LANGS)
def test_values_on_hover_and_print_styles(context, pages, lang):
    page = open_page(context, pages[lang], 1280)
    try:
        hover = page.evaluate("""() => Array.from(document.querySelectorAll('figure svg title'))
            .map(t => ({parent: t.parentElement.tagName, text: t.textContent}))""")
        svgs = page.evaluate("document.querySelectorAll('figure svg').length")
        page.emulate_media(media="print")
        printed = page.evaluate("""() => ({
            h2: getComputedStyle(document.querySelector('h2')).breakAfter,
            figure: getComputedStyle(document.querySelector('figure')).breakInside,
            side: getComputedStyle(document.querySelector('.page > nav.toc')).display,
            top: getComputedStyle(document.querySelector('a.top')).display})""")
    finally:
        page.close()
    if svgs:  # SVG figures carry their values; a PNG report has none to show
        assert len(hover) >= 50 and all(h["parent"] == "use" for h in hover), hover[:3]
        assert any("%" in h["text"] for h in hover)
    assert printed == {"h2": "avoid", "figure": "avoid", "side": "none", "top": "none"}, printed

